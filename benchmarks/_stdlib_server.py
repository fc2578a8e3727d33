"""The ``agentlab serve`` of before issue 22, kept only as ``serve_load.py``'s baseline.

``http.server``'s ``ThreadingHTTPServer`` (one thread per connection, backlog 1024, TCP_NODELAY, one
write per answer) around ``Simulator.handle``, as ``agentlab/sim/serve.py`` was at the commit before
the move to uvicorn. It has no timeouts and answers many malformed requests with nothing at all
(issue 22): never use it to serve, only to measure against.
"""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

from agentlab.sim.errors import SimAPIError
from agentlab.sim.server import MAX_BODY_BYTES, Simulator

BACKLOG = 1024


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True
    allow_reuse_address = True


def make_stdlib_server(sim: Simulator, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """The old server bound to ``host:port`` (loopback), answering via ``sim``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY_BYTES:
                for _ in range(0, length, 1 << 20):
                    self.rfile.read(min(1 << 20, length))
                    length -= 1 << 20
                self._send(
                    httpx2.Response(
                        413,
                        json=SimAPIError("request_too_large", "Request exceeds the maximum size").envelope(
                            "req_sim_too_large"
                        ),
                    )
                )
                return
            body = self.rfile.read(length) if length else b""
            request = httpx2.Request(
                self.command, f"http://{host}:{port}{self.path}", headers=dict(self.headers), content=body
            )
            self._send(sim.handle(request))

        def _send(self, response: httpx2.Response) -> None:
            self.send_response(response.status_code)
            for key, value in response.headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("content-length", str(len(response.content)))
            self._headers_buffer.append(b"\r\n" + response.content)
            self.flush_headers()

        do_POST = do_GET = _answer

        def log_message(self, fmt: str, *args) -> None:
            pass

    return _Server((host, port), Handler)
