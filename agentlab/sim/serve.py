"""``agentlab serve``: the same simulator behind a local HTTP server on 127.0.0.1.

Any Anthropic client then works offline with ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``.
Connections are served on threads (clients keep connections alive); requests reach the simulator
one at a time, under a lock, so its counter and ids stay deterministic.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

from .server import Simulator


def make_server(sim: Simulator, port: int = 8765, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An ``HTTPServer`` bound to ``host:port`` (port 0 picks a free one) that answers via ``sim``."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"serve host {host!r}: the simulator only listens on loopback (127.0.0.1)")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            request = httpx2.Request(self.command, f"http://{host}:{port}{self.path}",
                                     headers=dict(self.headers), content=body)
            with lock:
                response = sim.handle(request)
            self.send_response(response.status_code)
            for key, value in response.headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("content-length", str(len(response.content)))
            self.end_headers()
            self.wfile.write(response.content)

        do_POST = do_GET = _answer

        def log_message(self, fmt: str, *args) -> None:  # one short line per request
            print(f"sim {self.command} {self.path} -> {args[1] if len(args) > 1 else ''}", flush=True)

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


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
