"""The gateway as an ASGI 3 app: students speak the Messages API to it, it forwards with the instructor's key.

Per request, in this order: find the student by the token their SDK sends as its API key (``x-api-key``,
or ``Authorization: Bearer``); count it against their requests per minute; for ``POST /v1/messages``,
reserve its worst case in the ledger (``budget.py``, ``store.py``), refusing with a 429 that names the
budget when it would not fit; forward the request body byte for byte, with the student's headers
(``anthropic-version`` and ``anthropic-beta`` among them) but the instructor's key; relay the answer (a
stream as its chunks arrive); settle the ledger row to the usage the answer reports.

Upstream is any httpx2 transport: the network to Anthropic's API, or the simulator's (``Simulator``'s
transport), which is how the tests and a class without a key run it. The instructor's key exists only
in this process; a student's request never carries it and no answer can (the upstream never sees it
echoed: it is sent as a header, and only response bodies and headers come back).
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
import sys
import time
from collections import Counter, defaultdict, deque

import httpx2

from agentlab.gateway.budget import StreamUsage, settled, tokens_of, worst_case
from agentlab.gateway.store import Ledger, OverBudget, utc_now

FORWARDED_PATHS = {("POST", "/v1/messages"), ("POST", "/v1/messages/count_tokens"), ("GET", "/v1/models")}
"""What the gateway serves; anything else is answered 404 without reaching upstream."""
DROPPED_REQUEST_HEADERS = {b"host", b"x-api-key", b"authorization", b"content-length", b"connection",
                           b"transfer-encoding", b"accept-encoding", b"keep-alive", b"te", b"upgrade", b"expect"}  # fmt: skip
"""Student headers not forwarded: their credentials, and what belongs to their own connection (an ``Expect:
100-continue`` was answered by the gateway's server already; forwarded, the body would wait for the API's)."""
DROPPED_RESPONSE_HEADERS = {b"content-length", b"connection", b"transfer-encoding", b"content-encoding", b"keep-alive",
                            b"anthropic-organization-id"}  # fmt: skip
"""Upstream headers not relayed: the relay sets its own length and framing (bodies arrive decoded), and the
instructor's organization is not the students' business."""
MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest request body taken (the Messages API's own limit is 32 MB; the course sends a few KB at most)."""
TIMEOUT_S = 600.0
"""Longest wait for upstream to connect, send or answer one read, in seconds (the SDK's own default read timeout);
past it the student gets a 504."""
INLINE_BYTES = 64 * 1024
"""A body up to this size is budgeted on the event loop (well under a millisecond); a larger one on a thread
(the hand-over costs 0.2-0.4 ms, measured)."""
NEVER_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout, httpx2.UnsupportedProtocol)
"""Upstream failures that happen before the request leaves: only these release a reservation."""
RPM = 30
"""Requests a student may send per minute by default (``agentlab gateway serve --rpm``)."""


def error(status: int, kind: str, message: str, **extra) -> tuple[int, list, bytes]:
    """An answer in the API's error envelope; ``extra`` goes beside ``type`` and ``message``."""
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message, **extra}}).encode()
    headers = [(b"content-type", b"application/json")]
    if status == 429 and "budget" in extra:  # a budget does not come back in seconds: the SDK should not retry
        headers.append((b"x-should-retry", b"false"))
    return status, headers, body


class Gateway:
    """The ASGI app (see the module's docstring)."""

    def __init__(self, store: Ledger, upstream: httpx2.AsyncBaseTransport, base_url: str, key: str,
                 rpm: int = RPM, clock=utc_now, timeout_s: float = TIMEOUT_S, log_bodies: bool = False) -> None:  # fmt: skip
        self.store = store
        """The ledger."""
        self.upstream = upstream
        """The transport requests go through, called directly: no client, so no cookie jar shared by students."""
        self.base_url = base_url.rstrip("/")
        """Where they go (``https://api.anthropic.com``)."""
        self._timeout = {"timeout": httpx2.Timeout(timeout_s, connect=10, pool=10).as_dict()}  # pool: aiohttp's DNS too
        self.key = key
        """The instructor's key (never logged, never relayed)."""
        self.rpm = rpm
        """Requests per minute each student may send."""
        self.clock = clock
        """Now, in UTC (injectable for tests)."""
        self.log_bodies = log_bodies
        """True: the ledger keeps every request's and answer's body (the instructor's choice; off by default)."""
        self._recent: dict[str, deque[float]] = defaultdict(deque)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":  # the server's start, then its stop: close the connections to the API
            for _ in range(2):
                if (await receive())["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                    continue
                try:
                    await self.upstream.aclose()
                except Exception as e:  # uvicorn prints the message and still stops
                    await send({"type": "lifespan.shutdown.failed", "message": f"closing the API connections: {e!r}"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                return
        if scope["type"] != "http":  # websocket scopes (and a lifespan that never got its stop): nothing to serve
            return
        answer = await self._answer(scope, receive, send)
        if answer is not None:
            status, headers, body = answer
            headers = headers + [(b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope, receive, send) -> tuple[int, list, bytes] | None:
        """The whole answer, or None when it was streamed through ``send`` already."""
        method, path = scope["method"], scope["path"]
        if (method, path) not in FORWARDED_PATHS:
            return error(404, "not_found_error", f"the class gateway serves {sorted(p for _, p in FORWARDED_PATHS)}")
        headers = dict(scope["headers"])
        token = headers.get(b"x-api-key", b"").decode("latin-1").strip()
        if not token and headers.get(b"authorization", b"").lower().startswith(b"bearer "):
            token = headers[b"authorization"][7:].decode("latin-1").strip()
        student = self.store.student(token) if token else None
        now = self.clock()
        if student is None or student.revoked or (student.expires and now.date().isoformat() > student.expires):
            why = (
                "no token"
                if not token
                else "an unknown token"
                if student is None
                else ("a revoked token" if student.revoked else f"a token that expired on {student.expires}")
            )
            return error(401, "authentication_error",
                         f"the class gateway got {why}: set ANTHROPIC_API_KEY to the token your instructor gave you")  # fmt: skip
        wait = self._wait(student.name)
        if wait:
            status, headers, body = error(429, "rate_limit_error", f"over {self.rpm} requests a minute; wait {wait} s")
            return status, headers + [(b"retry-after", str(wait).encode())], body
        try:
            raw = await _body(receive)
        except Gone:  # the student hung up (or sent no whole body in time): nothing to reserve or forward
            return None
        if raw is None:
            return error(413, "request_too_large", f"request body over {MAX_BODY_BYTES:,} bytes")
        reserved, model, streaming = 0.0, None, False
        if path == "/v1/messages":
            try:  # a large body on a thread, so it does not hold up the other students' requests
                big = len(raw) > INLINE_BYTES
                model, reserved, streaming = await asyncio.to_thread(_budgeted, raw) if big else _budgeted(raw)
            except (ValueError, AttributeError, TypeError, RecursionError) as e:
                return error(400, "invalid_request_error", f"the class gateway cannot budget this request: {e}")
        try:
            row = self.store.reserve(student, path, model, reserved, now)
        except OverBudget as e:
            resets = f"; it resets at {e.resets}" if e.resets else ""
            return error(429, "rate_limit_error",
                         f"your {e.budget} budget of ${e.limit_usd:.2f} has ${e.left_usd:.4f} left, and this request "
                         f"may cost up to ${e.needed_usd:.4f} (lower max_tokens, or ask your instructor){resets}",
                         budget=e.budget, limit_usd=e.limit_usd, left_usd=e.left_usd, resets=e.resets)  # fmt: skip
        return await self._forward(scope, raw, row, reserved, streaming, send)

    def _settle(self, row: int, *args, **kwargs) -> None:
        """``store.settle``; a ledger that fails here (locked, full disk) leaves the row at its reservation and
        says so on stderr, and the student still gets the answer the API gave (and may have billed)."""
        try:
            self.store.settle(row, *args, **kwargs)
        except sqlite3.Error as e:
            print(f"agentlab gateway: ledger row {row} stays at its reservation: {e}", file=sys.stderr, flush=True)

    def _keep(self, row: int, request: bytes, response: bytes) -> None:
        try:
            self.store.keep_bodies(row, request, response)
        except sqlite3.Error as e:
            print(f"agentlab gateway: bodies of ledger row {row} not kept: {e}", file=sys.stderr, flush=True)

    def _wait(self, name: str) -> int:
        """0, counting one request of ``name``'s; or, when they sent ``rpm`` in the last 60 s, the whole
        seconds until the oldest of those leaves the window (the ``retry-after`` the SDK honours)."""
        now, recent = time.monotonic(), self._recent[name]
        while recent and now - recent[0] > 60:
            recent.popleft()
        if len(recent) >= self.rpm:
            return max(1, math.ceil(60 - (now - recent[0])))
        recent.append(now)
        return 0

    async def _forward(self, scope, raw: bytes, row: int, reserved: float, streaming: bool, send):
        t0 = time.monotonic()
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in DROPPED_REQUEST_HEADERS]
        headers.append((b"x-api-key", self.key.encode()))
        query = scope.get("query_string", b"").decode("latin-1")
        url = self.base_url + scope["path"] + ("?" + query if query else "")
        request = httpx2.Request(scope["method"], url, headers=headers, content=raw, extensions=self._timeout)
        try:
            response = await self.upstream.handle_async_request(request)
        except httpx2.HTTPError as e:
            status, kind = _failed(e)
            # never sent: nothing can be billed, so the reservation is released; sent and then lost (a timeout, a
            # reset, a broken answer): the API may still bill what it generates, so the worst case stays charged
            unsent = isinstance(e, NEVER_SENT)
            self._settle(row, status, 0.0 if unsent else reserved, {}, time.monotonic() - t0)
            if status == 504:
                return error(504, kind, "the API did not answer the class gateway in time; try again")
            return error(502, kind, f"the class gateway could not reach the API ({type(e).__name__})")
        relayed = [(k, v) for k, v in response.headers.raw if k.lower() not in DROPPED_RESPONSE_HEADERS]
        try:
            if not (streaming and response.is_success):
                try:
                    content = await response.aread()
                except httpx2.HTTPError as e:  # sent, and its answer broke off or stalled: its worst case stays charged
                    status, kind = _failed(e)
                    self._settle(row, status, reserved, {}, time.monotonic() - t0)
                    return error(status, kind, "the API's answer did not reach the class gateway whole; try again")
                usage, model = _usage(content) if response.is_success else (None, None)
                usd = settled(model, usage, reserved) if response.is_success else 0.0  # an error is not billed
                if self.log_bodies:
                    self._keep(row, raw, content)
                self._settle(row, response.status_code, usd, tokens_of(usage or {}), time.monotonic() - t0, model)
                return response.status_code, relayed, content
            reader, whole, kept = StreamUsage(), False, []
            await send({"type": "http.response.start", "status": response.status_code, "headers": relayed})
            try:
                async for chunk in response.aiter_bytes():
                    reader.feed(chunk)
                    if self.log_bodies:
                        kept.append(chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                whole = True
            except httpx2.HTTPError:  # upstream broke off: the stream is left unended, so the student's SDK says so
                pass
            if whole:
                await send({"type": "http.response.body", "body": b""})
            if self.log_bodies:  # before the row is settled, so a settled row has its bodies
                self._keep(row, raw, b"".join(kept))
            usd = settled(reader.model, reader.usage, reserved) if whole else reserved  # cut short: its worst case
            self._settle(row, response.status_code, usd, tokens_of(reader.usage or {}),
                         time.monotonic() - t0, reader.model)  # fmt: skip
            return None
        finally:
            await response.aclose()


def _failed(e: httpx2.HTTPError) -> tuple[int, str]:
    """The status and error type a failed forward is answered with: 504 for a timeout, 502 otherwise."""
    return (504, "timeout_error") if isinstance(e, httpx2.TimeoutException) else (502, "api_error")


def _usage(content: bytes) -> tuple[dict | None, str | None]:
    """A Messages answer's ``usage`` and ``model`` (None, None for a count or a models list)."""
    try:
        data = json.loads(content)
    except ValueError:
        return None, None
    if not isinstance(data, dict) or not isinstance(data.get("usage"), dict):
        return None, None
    return data["usage"], data.get("model")


def _one_of_each(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are unique: with ``"max_tokens"`` twice, the API might read the other one
    than the gateway budgeted, so such a body is refused."""
    seen = dict(pairs)
    if len(seen) != len(pairs):
        twice = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        raise ValueError(f"the JSON names {twice[:5]} more than once; send each field once")
    return seen


def _budgeted(raw: bytes) -> tuple[str, float, bool]:
    """``(model, worst case in USD, streaming)`` of a Messages request body (run on a worker thread)."""
    body = json.loads(raw, object_pairs_hook=_one_of_each)
    model, reserved = worst_case(body, raw)
    return model, reserved, body.get("stream") is True


class Gone(Exception):
    """The student went away before their request's body was whole."""


async def _body(receive) -> bytes | None:
    """The request body; None once it is over ``MAX_BODY_BYTES``; :class:`Gone` if the student went away first."""
    chunks, size = [], 0
    for _ in range(MAX_BODY_BYTES):  # bounded: each round takes at least one byte or ends
        message = await receive()
        if message["type"] != "http.request":
            raise Gone
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            break
    return b"".join(chunks)
