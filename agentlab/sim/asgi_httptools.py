"""The HTTP/1.1 protocol ``agentlab serve`` speaks where httptools is installed: llhttp parses, h11 judges.

Why: h11 parses and writes in pure Python. Measured on the benchmark's keep-alive run, the server's
CPU per request was 1.44 ms with h11 alone, 1.12 ms with this protocol and 1.05 ms for the
``http.server`` it replaced (medians of 5 alternating rounds on a loaded 2-core machine): with h11
alone ``agentlab serve`` answered fewer requests per second than the old server. httptools
(llhttp, in C) does the parsing on the well-formed path; every request it refuses, or that it would let through where h11
does not (a header block over ``MAX_HEADER_BYTES``, no ``Host``, a version other than 1.0/1.1, an
upgrade, HTTP/0.9), is handed with its bytes to ``asgi.APIProtocol``, which answers it exactly as
when h11 serves alone: the same statuses, the same envelopes, and ``96, 96`` still accepted. Where
httptools is missing, ``serve.py`` uses ``APIProtocol`` for everything.
"""

from __future__ import annotations

import asyncio

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from agentlab.sim import asgi

KEPT_BYTES = 1 << 20
"""Bytes of a request kept for h11 to re-read; a longer one that llhttp refuses is answered 400 here."""


class _Refer(Exception):
    """Raised in a parser callback: this request is for h11 to judge."""


class FastProtocol(asgi.Bounded, HttpToolsProtocol):
    """uvicorn's httptools protocol with ``APIProtocol``'s timeouts and limits, handing anything unusual to it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.logger = asgi.LOG
        self._timer: asyncio.TimerHandle | None = None
        self._waiting_for: str | None = None
        self._phase = "idle"  # idle | headers | body | answer: what the connection waits for
        self._chunks: list[bytes] = []  # the bytes of the request in progress, for h11 if it is referred
        self._kept = 0  # their length
        self._head_bytes = 0  # bytes since the last request ended (the header block's length, while it arrives)
        self._exact = True  # False when they are not all of it (its first byte is inside a chunk, or over KEPT_BYTES)
        self._ended = self._torn = False  # in the chunk being parsed, a request ended / another began after it
        self._line_seen = b""  # b"\n" once the request line of the request in progress is whole

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(asgi._OneWrite(transport, self.loop))
        self._set_up(transport)
        self._arm("headers", asgi.HEADER_TIMEOUT_S)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        if self._exact:
            self._chunks.append(data)
            self._kept += len(data)
            if self._kept > KEPT_BYTES:
                self._chunks, self._exact = [], False
        self._head_bytes += len(data)  # since the request in progress began (or the connection last idled)
        self._ended = self._torn = False
        try:
            self.parser.feed_data(data)
            if self._phase == "headers":
                self._check_partial_head()
        except (_Refer, httptools.HttpParserCallbackError, httptools.HttpParserUpgrade):
            return self._refer("")
        except httptools.HttpParserError as e:
            return self._refer(str(e))
        if self._ended:  # the bytes kept were whole requests; one begun after them in the same chunk starts unknown
            self._chunks, self._kept, self._exact, self._head_bytes = [], 0, not self._torn, 0
        self._follow()

    def _check_partial_head(self) -> None:
        """A header block still arriving: over the limit, or an HTTP/0.9 request line, is h11's to answer."""
        if self._head_bytes > asgi.MAX_HEADER_BYTES:
            if not self._exact:
                return self._give_up(431, f"Request line and headers are over {asgi.MAX_HEADER_BYTES:,} bytes.")
            raise _Refer
        if self._exact and not self._line_seen:  # read the request line once it is whole, not at every byte after
            line, self._line_seen, _ = b"".join(self._chunks).lstrip(b"\r\n").partition(b"\n")
            if self._line_seen and not line.rstrip(b"\r").split(b" ")[-1].startswith(b"HTTP/"):
                raise _Refer

    def on_message_begin(self) -> None:
        self._torn = self._ended  # pipelined in the chunk another ended in: its first byte is somewhere inside it
        self._phase, self._line_seen = "headers", b""
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        version = self.parser.get_http_version()
        names = [k for k, _ in self.headers]
        if (
            self.parser.should_upgrade()
            or version not in ("1.1", "1.0")
            or (version == "1.1" and b"host" not in names)
            or (b"transfer-encoding" in names and (b"transfer-encoding", b"chunked") not in self.headers)
        ):
            raise _Refer  # h11 answers these (a coding other than chunked is 501, say) before the app sees them
        self._phase = "body"
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._phase, self._ended, self._torn = "answer", True, False
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self.transport.flush()  # the answer's headers and body, in one send
        if self._phase == "answer" and not self.pipeline:
            self._phase = "idle"
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        """Keep the one timer that matches what the connection waits for next."""
        if self.transport.is_closing():
            return self._disarm()
        if self._phase == "body":
            self._arm("body", asgi.BODY_TIMEOUT_S)
        elif self._phase == "headers" or (self._phase == "idle" and self.timeout_keep_alive_task is None):
            self._arm("headers", asgi.HEADER_TIMEOUT_S)
        else:
            self._disarm()

    def _refer(self, said: str) -> None:
        """Hand the connection, with the bytes of the request in progress, to h11's ``APIProtocol``; where that
        cannot be done faithfully (an answer still being written, a request's first byte unknown), refuse it here."""
        self._disarm()
        if self.transport.is_closing():
            return
        if not self._exact or (self.cycle is not None and not self.cycle.response_complete):
            return self._give_up(400, f"Invalid HTTP request: {said or 'not understood'} (HTTP/1.1, RFC 9112).")
        self._unset_keepalive_if_required()
        self.connections.discard(self)
        judge = asgi.APIProtocol(
            config=self.config, server_state=self.server_state, app_state=self.app_state, _loop=self.loop
        )
        self.transport.set_protocol(judge)
        judge.connection_made(self.transport)
        judge.data_received(b"".join(self._chunks))
        self.parser = None  # type: ignore[assignment]
