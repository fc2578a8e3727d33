"""``agentlab serve``: the same simulator behind a local HTTP server on 127.0.0.1.

Any Anthropic client then works offline with ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``.
Connections are served on threads (clients keep connections alive), with a listen backlog of
``BACKLOG`` so a burst of simultaneous clients is queued rather than reset. Each answer goes out in
one write on a socket with ``TCP_NODELAY``, so a keep-alive client does not wait for Nagle's
algorithm and delayed ACKs (about 40 ms per request otherwise). The simulator serialises its own
state, so ids stay deterministic; a slow fault waits outside its lock.
"""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

from agentlab.sim.errors import SimAPIError
from agentlab.sim.server import MAX_BODY_BYTES, Simulator

BACKLOG = 1024
"""Pending connections the listening socket queues (``socketserver``'s default is 5)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Hosts ``make_server`` binds without being asked twice."""


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True
    allow_reuse_address = True


def make_server(sim: Simulator, port: int = 8765, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An ``HTTPServer`` bound to ``host:port`` (port 0 picks a free one) that answers via ``sim``."""
    if host not in LOOPBACK and not host.startswith("127."):
        raise ValueError(f"serve host {host!r}: the simulator only listens on loopback (127.0.0.1)")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY_BYTES:  # read and drop it in pieces, then answer as the API does
                for _ in range(0, length, 1 << 20):
                    self.rfile.read(min(1 << 20, length))
                    length -= 1 << 20
                self._send(httpx2.Response(413, json=SimAPIError("request_too_large", "Request exceeds the maximum size").envelope("req_sim_too_large")))
                return
            body = self.rfile.read(length) if length else b""
            request = httpx2.Request(self.command, f"http://{host}:{port}{self.path}",
                                     headers=dict(self.headers), content=body)
            self._send(sim.handle(request))

        def _send(self, response: httpx2.Response) -> None:
            self.send_response(response.status_code)
            for key, value in response.headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("content-length", str(len(response.content)))
            self._headers_buffer.append(b"\r\n" + response.content)  # headers and body in one write
            self.flush_headers()

        do_POST = do_GET = _answer

        def log_message(self, fmt: str, *args) -> None:  # one short line per request, unless quiet
            if not getattr(self.server, "quiet", False):
                print(f"sim {self.command} {self.path} -> {args[1] if len(args) > 1 else ''}", flush=True)

    return _Server((host, port), Handler)


def serve(port: int = 8765, sim: Simulator | None = None) -> None:
    """Serve until interrupted (Ctrl-C)."""
    server = make_server(sim or Simulator(), port)
    print(f"agentlab simulator on http://127.0.0.1:{server.server_address[1]}  "
          f"(export ANTHROPIC_BASE_URL=http://127.0.0.1:{server.server_address[1]}; any API key works; Ctrl-C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
