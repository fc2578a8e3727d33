"""The HTTP/1.1 protocol ``agentlab serve`` speaks its ASGI app (``asgi_app.py``) with.

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
  and a body timeout, on top of uvicorn's idle keep-alive timeout.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from agentlab.sim.asgi_app import MAX_HEADER_BYTES, error_bytes

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection may take to send a request's header block (from connecting, or from its first byte after an idle wait)."""
BODY_TIMEOUT_S = 30.0
"""Seconds a request's body may take to arrive once its headers are in (32 MB on loopback takes well under one)."""
IDLE_TIMEOUT_S = 15
"""Seconds an idle keep-alive connection is kept (uvicorn's ``timeout_keep_alive``); above httpx's 5 s
``keepalive_expiry``, so the SDK's client closes an idle connection before the server does."""
MAX_CONNECTIONS = 1000
"""Open connections served at once; a request on one more is answered 529 ``overloaded_error`` and closed."""
LOG = logging.getLogger("agentlab.sim.serve")
LOG.addHandler(logging.NullHandler())
LOG.propagate = False  # uvicorn's warnings ("Invalid HTTP request received.") are answered, not printed


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
            self.transport.write(
                _raw_answer(status, "request_too_large" if status == 413 else "invalid_request_error", message)
            )
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
            self._give_up(
                400,
                f"Invalid HTTP request: no HTTP version in the request line {line[:80]!r}; "
                "HTTP/0.9 is not supported, send HTTP/1.1.",
            )

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
    headers, body = error_bytes(
        529,
        "overloaded_error",
        f"Overloaded: this server serves at most {MAX_CONNECTIONS} connections at once; retry shortly.",
        close=True,
    )
    await send({"type": "http.response.start", "status": 529, "headers": headers})
    await send({"type": "http.response.body", "body": body})
