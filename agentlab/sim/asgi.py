"""The simulator as an ASGI app, and the HTTP/1.1 protocol ``agentlab serve`` speaks it with.

Why uvicorn with h11 (not ``http.server``): h11 is a small, strict, well-tested HTTP/1.1 parser, so
every malformed request (a ``Content-Length`` of ``abc``, ``96, 96`` or ``-5``, a bad request line,
HTTP/0.9, an over-long header block, a non-token method) is *detected* in one place, and uvicorn
serves all connections on one asyncio loop (no thread per connection) with a keep-alive timeout and a
listen backlog. h11 is the judge of every request; where httptools is installed, its C parser (llhttp)
handles the well-formed path and hands anything it refuses to h11 (``asgi_httptools.py`` says why: h11
alone is slower than the ``http.server`` it replaced). What uvicorn leaves to the app we add here:

* every error uvicorn would answer in plain text (or not at all) is answered in the Messages API's
  error envelope (``errors.py``): protocol errors (400/431/501), a header block or body that does not
  arrive in time (408), more connections than ``MAX_CONNECTIONS`` (529 ``overloaded_error``, which the
  SDK retries), a body over 32 MB (413), a request target that is not a path (400);
* a header timeout (uvicorn has none: a connection that never finishes its headers is held forever)
  and a body timeout, on top of uvicorn's idle keep-alive timeout;
* ``Simulator.answer`` runs on a small thread pool (a student's policy may block), and a seeded
  "slow" fault waits on the loop, not in a thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from urllib.parse import urlsplit

import h11
import httpx2
from uvicorn.protocols.http.h11_impl import H11Protocol

from agentlab.sim.errors import SimAPIError
from agentlab.sim.server import MAX_BODY_BYTES, Simulator

try:
    from resource import RUSAGE_THREAD, getrusage
except ImportError:  # not Linux: CPU time only, and any wait counts as one
    RUSAGE_THREAD = None

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection may take to send a request's header block (from connecting, or from its first byte after an idle wait)."""
BODY_TIMEOUT_S = 30.0
"""Seconds a request's body may take to arrive once its headers are in (32 MB on loopback takes well under one)."""
IDLE_TIMEOUT_S = 15
"""Seconds an idle keep-alive connection is kept (uvicorn's ``timeout_keep_alive``); above httpx's 5 s
``keepalive_expiry``, so the SDK's client closes an idle connection before the server does."""
MAX_HEADER_BYTES = 16 * 1024
"""Largest request line plus header block (h11's default); a longer one, a 70 KB URL say, is answered 431."""
MAX_CONNECTIONS = 1000
"""Open connections served at once; a request on one more is answered 529 ``overloaded_error`` and closed."""
WORKERS = 16
"""Threads that run ``Simulator.answer`` once its policy is seen waiting (``SimApp``)."""
WAITING_S = 0.02
"""An answer taking longer than this, mostly not on the CPU, may show a policy that waits (``SimApp``)."""
WAITS_IN_A_ROW = 3
"""Consecutive such answers that do show it (``SimApp``)."""
LOG = logging.getLogger("agentlab.sim.serve")
LOG.addHandler(logging.NullHandler())
LOG.propagate = False  # uvicorn's warnings ("Invalid HTTP request received.") are answered, not printed


def error_bytes(status: int, kind: str, message: str, *, close: bool = False) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """Headers and body of an error answer in the API's envelope (``kind`` is the envelope's error type)."""
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message},
                       "request_id": "req_sim_http"}, ensure_ascii=True, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return headers + ([(b"connection", b"close")] if close else []), body


def _raw_answer(status: int, kind: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response, for a connection the parser has given up on (then closed)."""
    headers, body = error_bytes(status, kind, message, close=True)
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    head = f"HTTP/1.1 {status} {phrase}\r\n".encode() + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    return head + b"\r\n" + body


class _Connection(h11.Connection):
    """h11's connection, remembering the last protocol error so the answer can say what it was."""

    last_error: h11.RemoteProtocolError | None = None

    def next_event(self):  # type: ignore[override]
        try:
            return super().next_event()
        except h11.RemoteProtocolError as e:
            self.last_error = e
            raise


class _OneWrite:
    """A transport that joins the writes made in one turn of the loop into one ``send`` (uvicorn writes
    an answer's headers and body apart: two system calls, and two wake-ups of the client)."""

    def __init__(self, transport, loop) -> None:
        self._transport, self._loop, self._pending = transport, loop, []

    def write(self, data: bytes) -> None:
        if data:
            if not self._pending:
                self._loop.call_soon(self.flush)
            self._pending.append(data)

    def flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str):
        return getattr(self._transport, name)


class Bounded:
    """What both protocols (h11's here, httptools' in ``asgi_httptools.py``) add to uvicorn's: one write per
    answer, ``TCP_NODELAY``, the connection limit, one timer for what the connection waits for, and
    ``_give_up`` (an answer in the API's envelope, then close)."""

    def _set_up(self, transport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:  # asyncio sets it only on sockets made with proto=IPPROTO_TCP; an answer is 2-3 writes
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if len(self.connections) > MAX_CONNECTIONS:
            self.app = _overloaded

    def _arm(self, what: str, seconds: float) -> None:
        if self._waiting_for != what:
            self._disarm()
            self._waiting_for, self._timer = what, self.loop.call_later(seconds, self._timed_out, what, seconds)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._waiting_for = None

    def _timed_out(self, what: str, seconds: float) -> None:
        self._timer = self._waiting_for = None
        self._give_up(408, f"Request timeout: the request's {what} did not arrive within {seconds:g} s.")

    def _give_up(self, status: int, message: str) -> None:
        """Answer ``status`` in the envelope unless a response has begun, then close the connection."""
        self._disarm()
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            if self.cycle is not None:
                self.cycle.disconnected = True  # the app's own answer, if any, is dropped
                self.cycle.message_event.set()
            self.transport.write(_raw_answer(status, "request_too_large" if status == 413 else "invalid_request_error", message))
        self.transport.close()


class APIProtocol(Bounded, H11Protocol):
    """uvicorn's h11 protocol, answering in the API's envelope and bounding each wait."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _Connection(h11.SERVER, MAX_HEADER_BYTES)
        self.logger = LOG
        self._timer: asyncio.TimerHandle | None = None
        self._waiting_for: str | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport if isinstance(transport, _OneWrite) else _OneWrite(transport, self.loop))
        self._set_up(transport)
        self._arm("headers", HEADER_TIMEOUT_S)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._refuse_http09()
        self._follow()

    def _refuse_http09(self) -> None:
        """h11 waits for a blank line that an HTTP/0.9 client (``GET /``, no version) never sends: answer now."""
        buffered = self.conn.trailing_data[0].lstrip(b"\r\n")  # at most MAX_HEADER_BYTES
        line, newline, _ = buffered.partition(b"\n")
        line = line.rstrip(b"\r")
        if newline and not line.split(b" ")[-1].startswith(b"HTTP/"):
            self._give_up(400, f"Invalid HTTP request: no HTTP version in the request line {line[:80]!r}; "
                               "HTTP/0.9 is not supported, send HTTP/1.1.")

    def on_response_complete(self) -> None:
        self.transport.flush()  # the answer's headers and body, in one send
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        """Keep the one timer that matches what the connection waits for next."""
        if self.transport.is_closing():
            return self._disarm()
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._arm("body", BODY_TIMEOUT_S)
        elif state is h11.IDLE and self.timeout_keep_alive_task is None:  # part of a header block is in
            self._arm("headers", HEADER_TIMEOUT_S)
        else:  # a request is being answered, or the connection idles under uvicorn's keep-alive timer
            self._disarm()

    def send_400_response(self, msg: str) -> None:  # called by uvicorn on any h11 RemoteProtocolError
        e = self.conn.last_error
        status = e.error_status_hint if e is not None else 400
        said = str(e) if e is not None else msg
        self._give_up(status, f"Invalid HTTP request: {said[:200]} (HTTP/1.1, RFC 9112).")


async def _overloaded(scope, receive, send) -> None:
    headers, body = error_bytes(529, "overloaded_error", f"Overloaded: this server serves at most {MAX_CONNECTIONS} connections at once; retry shortly.", close=True)
    await send({"type": "http.response.start", "status": 529, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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
            raise SimAPIError("invalid_request_error", f"Request target {shown!r} is not a path; send e.g. POST /v1/messages.")
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
        head = len(scope["raw_path"]) + len(scope["query_string"]) + sum(len(k) + len(v) + 4 for k, v in scope["headers"])
        if head > MAX_HEADER_BYTES:  # h11 refuses this only when it arrives in pieces; in one read it gets through
            return (431, *error_bytes(431, "invalid_request_error", f"Request line and headers are {head:,} bytes; "
                                                                   f"the limit is {MAX_HEADER_BYTES:,}."))
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
        headers = [(k, v) for k, v in response.headers.raw
                   if k.lower() not in (b"content-length", b"transfer-encoding", b"connection")]
        return response.status_code, headers + [(b"content-length", str(len(response.content)).encode())], response.content

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
                raise SimAPIError("invalid_request_error", f"Request target is not a valid URL path: {str(e)[:200]}") from None
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
