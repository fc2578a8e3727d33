"""``agentlab serve``: the same simulator behind a local HTTP server on 127.0.0.1.

Any Anthropic client then works offline with ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``. The server
is uvicorn speaking HTTP/1.1 around a small ASGI app (``asgi.py`` says why, and what it adds: the API's
error envelope for every malformed request, header/body/idle timeouts, a connection limit), parsing
with httptools where it is installed and h11 judging whatever httptools refuses (``asgi_httptools.py``).
One asyncio loop serves every connection (asyncio sets ``TCP_NODELAY``, and each answer is
written whole), with a listen backlog of ``BACKLOG`` so a burst of clients is queued, not reset. The
simulator serialises its own state, so ids stay deterministic.
"""

from __future__ import annotations

import socket
import threading

import uvicorn

from agentlab.sim.asgi import IDLE_TIMEOUT_S, MAX_HEADER_BYTES, APIProtocol
from agentlab.sim.asgi_app import SimApp

try:  # llhttp parses where httptools is installed (asgi_httptools.py says why); h11 alone otherwise
    from agentlab.sim.asgi_httptools import FastProtocol as PROTOCOL
except ImportError:  # pragma: no cover - httptools is a dependency, but a bare install still serves
    PROTOCOL = APIProtocol
from agentlab.sim.server import Simulator
from agentlab.sim.validate_api import documented_fields

BACKLOG = 1024
"""Pending connections the listening socket queues."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Hosts ``make_server`` binds without being asked twice."""
SHUTDOWN_GRACE_S = 2
"""Seconds ``shutdown`` lets answers in flight finish before it cancels them."""


class LocalServer:
    """A uvicorn server on an already-bound loopback socket (so port 0's choice is known at once).

    The interface of the ``http.server`` it replaced: ``serve_forever`` (blocks), ``shutdown`` (from
    another thread: returns once ``serve_forever`` has), ``server_close`` and ``server_address``.
    """

    def __init__(self, sim: Simulator, host: str, port: int, protocol: type | None = None) -> None:
        self.socket = socket.create_server(
            (host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET, backlog=BACKLOG
        )
        """The listening socket."""
        self.server_address: tuple = self.socket.getsockname()
        """``(host, port)`` actually bound."""
        self.app = SimApp(sim)
        """The ASGI app answering through ``sim``."""
        config = uvicorn.Config(
            self.app,
            http=protocol or PROTOCOL,
            loop="asyncio",
            lifespan="off",
            ws="none",
            interface="asgi3",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            date_header=False,
            backlog=BACKLOG,
            timeout_keep_alive=IDLE_TIMEOUT_S,
            timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        )
        self.uvicorn = uvicorn.Server(config)
        """The uvicorn server (``should_exit`` stops it)."""
        self._done = threading.Event()

    @property
    def quiet(self) -> bool:
        """True (the default): no line per request."""
        return self.app.quiet

    @quiet.setter
    def quiet(self, value: bool) -> None:
        self.app.quiet = value

    def serve_forever(self) -> None:
        """Serve until ``shutdown`` (or Ctrl-C when run in the main thread)."""
        self._done.clear()
        try:
            self.uvicorn.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop ``serve_forever`` and wait (at most ``timeout`` s) until it has returned."""
        self.uvicorn.should_exit = True
        self._done.wait(timeout)

    def server_close(self) -> None:
        """Close the listening socket and the app's thread pool."""
        self.socket.close()
        self.app.close()


def make_server(sim: Simulator, port: int = 8765, host: str = "127.0.0.1", protocol: type | None = None) -> LocalServer:
    """A server bound to ``host:port`` (port 0 picks a free one) that answers via ``sim``; loopback only.
    ``protocol``: uvicorn's protocol class (default ``PROTOCOL``; ``APIProtocol`` is h11 alone)."""
    if host not in LOOPBACK and not host.startswith("127."):
        raise ValueError(f"serve host {host!r}: the simulator only listens on loopback (127.0.0.1)")
    return LocalServer(sim, "127.0.0.1" if host == "localhost" else host, port, protocol)


def serve(port: int = 8765, sim: Simulator | None = None) -> None:
    """Serve until interrupted (Ctrl-C)."""
    server = make_server(sim or Simulator(), port)
    server.quiet = False
    threading.Thread(
        target=documented_fields, args=(False,), daemon=True
    ).start()  # the SDK's field list (2-3 s to import) loads while we listen
    url = f"http://127.0.0.1:{server.server_address[1]}"
    print(
        f"agentlab simulator on {url}  (export ANTHROPIC_BASE_URL={url}; any API key works; Ctrl-C stops)", flush=True
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
