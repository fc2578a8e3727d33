"""Record a live run once, replay it offline: vcrpy cassettes at the SDK's transport seam.

``connect("live", record=PATH)`` wraps the client's HTTP transport in a :class:`Recorder`: every
request and its response (a streamed one too: its server-sent events are read whole, then handed on)
goes into a vcrpy cassette (YAML, vcrpy's own ``Cassette`` and serializer), each interaction appended
to the file as it happens so a crash keeps what happened; a session that sends nothing leaves an
empty cassette, whose replay refuses every call. Only an allow-list of headers is kept, so the key
(``x-api-key``), ``authorization`` and cookies never reach the file; bodies are scrubbed of any key
agentlab knows too. ``connect("replay", cassette=PATH)`` answers from the file through a
:class:`Replayer` transport, in order, with no network: a request that does not match the next
recorded one raises :class:`CassetteMismatch` naming the first field that differs.

Recording here, not with ``vcr.use_cassette`` (which patches httpx2's transports process-wide), keeps
it to the one client that asked, and works the same over the in-process simulator. A cassette from a
student is untrusted input: vcrpy loads it with its safe YAML loader (no ``!!python`` object tags),
and :func:`load` checks its shape before any of it is used. vcrpy: https://vcrpy.readthedocs.io
(8.2.1+ records and plays ``httpx2``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx2

from agentlab.api.wire import BREAKDOWN_HEADER, LATENCY_HEADER, SIM_HEADER
from agentlab.live.keys import scrub

REQUEST_HEADERS = ("content-type", "anthropic-version", "anthropic-beta")
"""Request headers a cassette keeps (everything else, the key and the SDK's client details, is dropped)."""
RESPONSE_HEADERS = (
    "content-type",
    "request-id",
    "retry-after",
    "x-should-retry",
    SIM_HEADER,
    BREAKDOWN_HEADER,
    LATENCY_HEADER,
)
"""Response headers a cassette keeps (no organisation ids, no cookies, no rate-limit details); the
simulator's own, when a simulated run is recorded, so its replay still says its tokens are estimates."""
EMPTY = "interactions: []\nversion: 1\n"
"""A cassette of a session that sent nothing (vcrpy's format; a notebook that makes no live call)."""
HEADER = "version: 1\ninteractions:\n"
"""A cassette's first lines once it holds an interaction; each one recorded is appended after them."""
MATCH_ON = ("method", "path", "query")
"""What a replayed request must share with the recorded one (vcrpy matchers), besides the same body (:func:`same_body`)."""


class CassetteMismatch(RuntimeError):
    """A replayed request differs from the one recorded at that point (or the cassette has run out)."""


class BadCassette(ValueError):
    """A cassette file that is not a readable vcrpy cassette of Messages API calls."""


def _vcr_request(request: httpx2.Request, body: bytes) -> Any:
    from vcr.request import Request

    kept = {k: v for k, v in request.headers.items() if k.lower() in REQUEST_HEADERS}
    return Request(request.method, str(request.url), scrub(body.decode("utf-8", "replace")).encode(), kept)


def _serialize(response: httpx2.Response, raw: bytes) -> dict:
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        if name.lower() in RESPONSE_HEADERS:
            headers.setdefault(name.lower(), []).append(value)
    encoding = response.headers.get("content-encoding", "identity")
    text = raw.decode("utf-8", "replace") if encoding == "identity" else None  # compressed: kept as sent
    body = scrub(text).encode() if text is not None else raw
    if text is None:
        headers["content-encoding"] = [encoding]
    return {
        "status": {"code": response.status_code, "message": response.reason_phrase},
        "headers": headers,
        "body": {"string": body},
    }


def _cassette(path: str | Path, mode: str) -> Any:
    from vcr.cassette import Cassette
    from vcr.record_mode import RecordMode

    return Cassette(
        str(path), record_mode=RecordMode.ALL if mode == "record" else RecordMode.NONE, match_on=_matchers()
    )


def _matchers() -> tuple:
    from vcr import matchers

    return (*(getattr(matchers, name) for name in MATCH_ON), same_body)


def canonical(body: Any) -> Any:
    """A Messages request body with the spellings the API reads as one made one, so a request replays against a
    recording made by other code (the bundled real runs were recorded by pydantic-ai): a string ``content`` is one
    text block, and ``stream: false`` and a tool result's ``is_error: false`` are their defaults, left out
    (https://platform.claude.com/docs/en/api/messages). Every other difference still refuses the replay."""
    if not isinstance(body, dict):
        return body
    out = {k: v for k, v in body.items() if not (k == "stream" and v is False)}
    if isinstance(out.get("messages"), list):
        out["messages"] = [
            {**m, "content": _blocks(m.get("content"))} if isinstance(m, dict) else m for m in out["messages"]
        ]
    return out


def _blocks(content: Any) -> Any:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return content
    out = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_result":
            b = {k: v for k, v in b.items() if not (k == "is_error" and v is False)}
            if "content" in b:
                b["content"] = _blocks(b["content"])
        out.append(b)
    return out


def _json(request: Any) -> Any:
    body = request.body or b"null"
    return json.loads(body.decode("utf-8") if isinstance(body, bytes) else body)


def same_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the two requests' bodies are the same JSON once :func:`canonical` (raw bytes when not JSON)."""
    try:
        same = canonical(_json(r1)) == canonical(_json(r2))
    except (ValueError, TypeError):
        same = r1.body == r2.body
    if not same:
        raise AssertionError("the request bodies differ")


NOWHERE = "https://replay.agentlab.invalid"
"""The base URL a replay of an empty cassette reports (``.invalid``: nothing there can be reached)."""

_recorders: dict[Path, "Recorder"] = {}
_replayers: dict[Path, "Replayer"] = {}


def forget(path: str | Path | None = None) -> None:
    """Drop the shared recordings and replays (``agentlab.use`` does, so rerunning a notebook starts afresh);
    with ``path``, only that cassette's replay (its next client plays it from the start)."""
    if path is not None:
        _replayers.pop(Path(path).resolve(), None)
        return
    _recorders.clear()
    _replayers.clear()


def begin(path: str | Path) -> None:
    """Start the recording at ``path`` afresh: an empty cassette, until something is sent."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(EMPTY)


class Recorder(httpx2.BaseTransport):
    """A transport that sends through ``inner`` and records every interaction in the cassette at ``path``."""

    @classmethod
    def shared(cls, inner: httpx2.BaseTransport, path: str | Path) -> "Recorder":
        """One recording per file in this process: a second client recording to ``path`` appends to it."""
        key = Path(path).resolve()
        if key not in _recorders:
            _recorders[key] = cls(inner, path)
        recorder = _recorders[key]
        recorder.inner = inner
        return recorder

    def __init__(self, inner: httpx2.BaseTransport, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        """Where the cassette is written (a new file each session: recording replaces it)."""
        self.cassette = _cassette(self.path, "record")
        self._lock = threading.Lock()
        begin(self.path)  # a session that sends nothing still leaves a cassette saying so

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        response = self.inner.handle_request(request)
        try:
            raw = b"".join(response.stream)  # bytes as sent (still encoded): a stream is read whole here
        finally:
            response.stream.close()
        with self._lock:  # threads of a parallel workflow: one append and one whole-file write at a time
            vreq, vresp = _vcr_request(request, body), _serialize(response, raw)
            self.cassette.append(vreq, vresp)
            self._write(vreq, vresp)
        return httpx2.Response(
            response.status_code,
            headers=response.headers.multi_items(),
            stream=httpx2.ByteStream(raw),
            extensions=response.extensions,
            request=request,
        )

    def _write(self, vreq: Any, vresp: dict) -> None:
        """Add one interaction to the file as the run goes (a crash keeps what happened): appended, so a
        long recording costs each interaction once, where vcrpy's own save rewrites the whole file."""
        from vcr.serializers import compat, yamlserializer

        item = yamlserializer.serialize(
            [{"request": compat.convert_to_unicode(vreq._to_dict()), "response": compat.convert_to_unicode(vresp)}]
        )
        if len(self.cassette.data) == 1:  # the first one replaces the empty cassette
            self.path.write_text(HEADER + item)
        else:
            with self.path.open("a") as f:
                f.write(item)

    def close(self) -> None:
        self.inner.close()


def load(path: str | Path) -> Any:
    """The cassette at ``path``, loaded safely and checked; :class:`BadCassette` says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise BadCassette(
            f"connect(mode='replay', cassette={str(path)!r}): no such file; record one with "
            "connect('live', record=PATH)"
        )
    cassette = _cassette(path, "replay")
    try:
        cassette._load()  # noqa: SLF001 (vcrpy's safe loader)
    except Exception as e:  # a hand-edited, truncated or hostile file: say so, never run it
        first = str(e).splitlines()[0][:200] if str(e) else ""
        raise BadCassette(
            f"cassette {path.name!r} is not a readable vcrpy cassette ({type(e).__name__}: {first})"
        ) from None
    for i, (req, resp) in enumerate(cassette.data):
        ok = (
            isinstance(resp, dict)
            and isinstance(resp.get("status"), dict)
            and isinstance(resp["status"].get("code"), int)
            and isinstance(resp.get("headers"), dict)
            and isinstance(resp.get("body"), dict)
            and isinstance(getattr(req, "method", None), str)
        )
        if not ok:
            raise BadCassette(
                f"cassette {path.name!r}: interaction {i + 1} is not a request/response pair as vcrpy records them"
            )
    return cassette


def first_difference(got: Any, want: Any, where: str = "") -> str | None:
    """The first place two JSON values differ, as ``"messages[2].content: recorded ..., sent ..."``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got or key not in want:
                side = "recorded only" if key not in got else "sent only"
                return f"{where}.{key}".lstrip(".") + f" ({side})"
            found = first_difference(got[key], want[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list) and isinstance(want, list):
        for i, (g, w) in enumerate(zip(got, want)):
            found = first_difference(g, w, f"{where}[{i}]")
            if found:
                return found
        if len(got) != len(want):
            return f"{where or 'body'}: recorded {len(want)} items, sent {len(got)}"
        return None
    if got != want:
        return f"{where.lstrip('.') or 'body'}: recorded {json.dumps(want, ensure_ascii=False)[:80]}, sent {json.dumps(got, ensure_ascii=False)[:80]}"
    return None


class Replayer(httpx2.BaseTransport):
    """A transport that answers from a cassette, in recorded order, and never touches the network."""

    @classmethod
    def shared(cls, path: str | Path) -> "Replayer":
        """One replay per file in this process: a second client on ``path`` continues where the first is
        (a notebook connects more than once); a file changed since is read afresh, from its start."""
        key = Path(path).resolve()
        mtime = key.stat().st_mtime_ns if key.is_file() else None
        known = _replayers.get(key)
        if known is None or known.mtime != mtime:
            _replayers[key] = known = cls(path)
            known.mtime = mtime
        return known

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.cassette = load(self.path)
        self.played = 0
        """Interactions answered so far."""
        self._done: set[int] = set()
        self._lock = threading.Lock()
        self.refused: list[str] = []
        """Why each request this replay could not answer was refused (a mismatch, or one past the end)."""
        self.mtime: int | None = None
        """The file's modification time when it was read (``shared`` rereads a changed file)."""

    def recorded_model(self) -> str | None:
        """The model of the first recorded Messages request (the replay's default model)."""
        for req, _ in self.cassette.data:
            try:
                model = json.loads(req.body or b"{}").get("model")
            except (ValueError, AttributeError):
                continue
            if isinstance(model, str):
                return model
        return None

    def base_url(self) -> str:
        """Scheme and host the cassette was recorded against (so the client builds the same URLs)."""
        if not self.cassette.data:  # a session that sent nothing: any host will do, nothing is sent there
            return NOWHERE
        url = httpx2.URL(self.cassette.data[0][0].uri)
        return f"{url.scheme}://{url.netloc.decode()}"

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        vreq = _vcr_request(request, request.read())
        from vcr.matchers import requests_match

        with self._lock:  # concurrent steps (a parallel workflow's threads) each take a different interaction
            unplayed = [i for i in range(len(self.cassette.data)) if i not in self._done]
            if not self.cassette.data:
                raise self._refuse(
                    f"cassette {self.path.name!r} holds no interactions: the recorded run sent no calls, "
                    f"and this one sent {request.method} {request.url.path}. Replay the same code "
                    "with the same settings, or record again"
                )
            if not unplayed:
                raise self._refuse(
                    f"cassette {self.path.name!r} has {len(self.cassette.data)} interactions and all "
                    f"were played; this run sent one more ({request.method} {request.url.path}). "
                    "Replay the same code with the same settings, or record again"
                )
            # the next one in order; else (threads that finished in another order than when recorded) the
            # first unplayed one that matches, as vcrpy's own playback does
            found = next((i for i in unplayed if requests_match(vreq, self.cassette.data[i][0], _matchers())), None)
            if found is None:
                want = self.cassette.data[unplayed[0]][0]
                raise self._refuse(
                    f"cassette {self.path.name!r}, interaction {unplayed[0] + 1}: the request differs "
                    f"from the recorded one first at {self._diff(vreq, want)}"
                )
            self._done.add(found)
            self.played += 1
        resp = self.cassette.data[found][1]
        headers = [(k, v) for k, vs in resp["headers"].items() for v in vs]
        body = resp["body"]["string"]
        return httpx2.Response(
            resp["status"]["code"],
            headers=headers,
            stream=httpx2.ByteStream(body if isinstance(body, bytes) else str(body).encode()),
            request=request,
        )

    def _refuse(self, why: str) -> CassetteMismatch:
        """The mismatch to raise, noted in :attr:`refused` (a loop that ends on the error still leaves a trace)."""
        self.refused.append(why)
        return CassetteMismatch(why)

    @staticmethod
    def _diff(got: Any, want: Any) -> str:
        for field in ("method", "path", "query"):
            if getattr(got, field) != getattr(want, field):
                return f"{field}: recorded {getattr(want, field)!r}, sent {getattr(got, field)!r}"
        try:
            g, w = canonical(_json(got)), canonical(_json(want))
        except (ValueError, TypeError):
            return "body (not JSON)"
        return first_difference(g, w) or "body"
