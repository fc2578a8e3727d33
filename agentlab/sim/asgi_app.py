"""The simulator as an ASGI 3 app: each HTTP request answered through ``Simulator.answer``.

Served by ``asgi.py``'s protocols (``serve.py`` starts them); what is malformed at the HTTP level never
gets here, it is answered there. Errors are answered in the Messages API's envelope, never with a
traceback or a server path. ``Simulator.answer`` runs on the loop, or on a small thread pool once the
policy is seen to block (``SimApp``); a seeded "slow" fault waits on the loop, not in a thread.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx2

from agentlab.sim.errors import SimAPIError
from agentlab.sim.server import MAX_BODY_BYTES, Simulator

try:
    from resource import RUSAGE_THREAD, getrusage
except ImportError:  # not Linux: CPU time only, and any wait counts as one
    RUSAGE_THREAD = None

MAX_HEADER_BYTES = 16 * 1024
"""Largest request line plus header block (h11's default); a longer one, a 70 KB URL say, is answered 431."""
WORKERS = 16
"""Threads that run ``Simulator.answer`` once its policy is seen waiting (``SimApp``)."""
WAITING_S = 0.02
"""An answer taking longer than this, mostly not on the CPU, may show a policy that waits (``SimApp``)."""
WAITS_IN_A_ROW = 3
"""Consecutive such answers that do show it (``SimApp``)."""


def error_bytes(
    status: int, kind: str, message: str, *, close: bool = False
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """Headers and body of an error answer in the API's envelope (``kind`` is the envelope's error type)."""
    body = json.dumps(
        {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_sim_http"},
        ensure_ascii=True,
        separators=(",", ":"),
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return headers + ([(b"connection", b"close")] if close else []), body


def _thread_clock() -> tuple[float, int]:
    """The calling thread's CPU seconds and voluntary context switches so far (switches ``-1`` where unknown)."""
    if RUSAGE_THREAD is None:
        return time.thread_time(), -1
    usage = getrusage(RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime, usage.ru_nvcsw


def _target(scope: dict) -> str:
    """The request's path and query as a URL on the loopback host, or ``SimAPIError`` if the target is not a path."""
    raw = scope["raw_path"].decode("ascii", "replace")
    if not raw.startswith("/"):  # absolute-form (RFC 9112 section 3.2.2): use its path; "*" and others are refused
        parts = urlsplit(raw) if raw.lower().startswith(("http://", "https://")) else None
        if parts is None or not parts.path.startswith("/"):
            shown = raw if len(raw) <= 80 else raw[:80] + "..."
            raise SimAPIError(
                "invalid_request_error", f"Request target {shown!r} is not a path; send e.g. POST /v1/messages."
            )
        raw = parts.path
    query = scope["query_string"].decode("ascii", "replace")
    return "http://127.0.0.1" + raw + ("?" + query if query else "")


class SimApp:
    """An ASGI 3 app that answers every HTTP request through ``Simulator.answer``.

    Answers are computed on the event loop (the simulator is CPU-bound: a thread would only add a
    hand-off per request) until the policy is seen *waiting*: ``WAITS_IN_A_ROW`` answers in a row that
    each took over ``WAITING_S`` of wall time with under half of it CPU time *and* blocked the thread
    (a voluntary context switch: a ``Latency`` policy, a student's policy that sleeps or does I/O). An
    answer slowed by a busy machine is only preempted (involuntary switches): on a loaded machine three
    in a row are common, and switching then made every answer pay a thread hand-off. From
    then on every answer runs on a pool of ``WORKERS`` threads, so waits overlap as they did when each
    connection had its own thread. ``threaded=True`` starts there.
    """

    def __init__(self, sim: Simulator, *, threaded: bool = False, quiet: bool = True) -> None:
        self.sim = sim
        """The simulator answering."""
        self.threaded = threaded
        """True: answers run on the thread pool (set by itself once the policy is seen waiting)."""
        self.quiet = quiet
        """False: print one line per request (``sim POST /v1/messages -> 200``)."""
        self._pool: ThreadPoolExecutor | None = None
        self._urls: dict[tuple[bytes, bytes], httpx2.URL] = {}
        self._seen: set[str] = set()
        self._waits = 0

    def close(self) -> None:
        """Stop the thread pool, if one was started."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        status, headers, body = await self._respond(scope, receive)
        if not self.quiet:
            print(f"sim {scope['method']} {scope['raw_path'].decode('ascii', 'replace')[:200]} -> {status}", flush=True)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _respond(self, scope, receive) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        head = (
            len(scope["raw_path"]) + len(scope["query_string"]) + sum(len(k) + len(v) + 4 for k, v in scope["headers"])
        )
        if head > MAX_HEADER_BYTES:  # h11 refuses this only when it arrives in pieces; in one read it gets through
            return (
                431,
                *error_bytes(
                    431,
                    "invalid_request_error",
                    f"Request line and headers are {head:,} bytes; the limit is {MAX_HEADER_BYTES:,}.",
                ),
            )
        try:
            content = await self._body(scope, receive)
            request = httpx2.Request(scope["method"], self._url(scope), headers=scope["headers"], content=content)
            response, delay = await self._answer(request)
            if delay:
                await asyncio.sleep(delay)
        except SimAPIError as e:
            return (e.status, *error_bytes(e.status, e.type, e.message))
        except Exception as e:  # never a traceback, never a path: the kind of failure only
            return (500, *error_bytes(500, "api_error", f"Internal server error ({type(e).__name__})."))
        headers = [
            (k, v)
            for k, v in response.headers.raw
            if k.lower() not in (b"content-length", b"transfer-encoding", b"connection")
        ]
        return (
            response.status_code,
            headers + [(b"content-length", str(len(response.content)).encode())],
            response.content,
        )

    async def _answer(self, request: httpx2.Request) -> tuple[httpx2.Response, float]:
        if self.threaded:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="sim")
            return await asyncio.get_running_loop().run_in_executor(self._pool, self.sim.answer, request)
        wall, (cpu, blocked) = time.perf_counter(), _thread_clock()
        answered = self.sim.answer(request)
        wall, (cpu, blocked) = time.perf_counter() - wall, (a - b for a, b in zip(_thread_clock(), (cpu, blocked)))
        first = request.url.path not in self._seen  # a path's first answer imports the SDK's types: not a wait
        self._seen.add(request.url.path)
        waited = not first and wall > WAITING_S and cpu < wall / 2 and (blocked != 0 or RUSAGE_THREAD is None)
        self._waits = self._waits + 1 if waited else 0
        self.threaded = self._waits >= WAITS_IN_A_ROW
        return answered

    def _url(self, scope: dict) -> httpx2.URL:
        """The request's URL (parsed once per distinct target: a client sends the same few again and again)."""
        key = (scope["raw_path"], scope["query_string"])
        url = self._urls.get(key)
        if url is None:
            try:
                url = httpx2.URL(_target(scope))
            except httpx2.InvalidURL as e:
                raise SimAPIError(
                    "invalid_request_error", f"Request target is not a valid URL path: {str(e)[:200]}"
                ) from None
            if len(self._urls) < 256:
                self._urls[key] = url
        return url

    @staticmethod
    async def _body(scope, receive) -> bytes:
        """The whole request body, or 413 once it is over ``MAX_BODY_BYTES`` (by its header or as it arrives)."""
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and int(length) > MAX_BODY_BYTES:  # h11 has checked it is a number
            raise SimAPIError("request_too_large", "Request exceeds the maximum size")
        chunks, size = [], 0
        for _ in range(MAX_BODY_BYTES):  # bounded: each round takes at least one byte or ends
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY_BYTES:
                raise SimAPIError("request_too_large", "Request exceeds the maximum size")
            if not message.get("more_body", False):
                break
        return b"".join(chunks)
