"""Starting the gateway: its upstream (Anthropic's API with the instructor's key, or the simulator) and uvicorn."""

from __future__ import annotations

import asyncio
import os
import socket
import threading

import httpx2
import uvicorn

from agentlab.gateway.app import RPM, Gateway
from agentlab.gateway.store import Store
from agentlab.live.keys import clean_key

ANTHROPIC = "https://api.anthropic.com"
"""Where ``--upstream anthropic`` (the default) forwards."""
KEY_ENV = "AGENTLAB_GATEWAY_KEY"
"""Where the gateway reads the instructor's key first; ``ANTHROPIC_API_KEY`` is read when it is unset."""


def sim_upstream() -> httpx2.MockTransport:
    """The simulator as the gateway's upstream: it answers ``/v1/messages`` and ``count_tokens`` itself, and
    ``GET /v1/models`` (which it does not serve) is answered here from the models it knows."""
    from agentlab.sim.server import Simulator

    sim = Simulator()

    async def answer(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET" and request.url.path == "/v1/models":
            data = [{"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                    for m in sorted(sim.models)]  # fmt: skip
            body = {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
            return httpx2.Response(200, json=body)
        response, delay = sim.answer(request)
        if delay:
            await asyncio.sleep(delay)
        return response

    return httpx2.MockTransport(answer)


def make_gateway(db: str, upstream: str = "anthropic", rpm: int = RPM, log_bodies: bool = False) -> Gateway:
    """The gateway on ledger ``db``, forwarding to ``upstream`` (``anthropic``, ``sim`` or a base URL)."""
    if upstream == "sim":
        return Gateway(Store(db), sim_upstream(), "http://simulator", "sim-no-key-needed", rpm, log_bodies=log_bodies)
    key = clean_key(os.environ.get(KEY_ENV)) or clean_key(os.environ.get("ANTHROPIC_API_KEY"))
    if not key:
        raise ValueError(
            f"the gateway forwards with your key: set {KEY_ENV} (or ANTHROPIC_API_KEY) in its environment, "
            "or use --upstream sim to run the class on the simulator"
        )
    url = ANTHROPIC if upstream == "anthropic" else upstream
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"--upstream {upstream!r}: give anthropic, sim, or a base URL such as https://proxy.example")
    return Gateway(Store(db), api_upstream(), url, key, rpm, log_bodies=log_bodies)


def api_upstream() -> httpx2.AsyncBaseTransport:
    """The transport to the API (or any base URL): ``upstream.APITransport``, aiohttp behind httpx2's interface."""
    from agentlab.gateway.upstream import APITransport

    return APITransport()


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket whose accepted connections get ``TCP_NODELAY`` from asyncio.

    asyncio sets ``TCP_NODELAY`` only on sockets whose ``proto`` is ``IPPROTO_TCP``, and a socket made by
    ``socket.create_server`` (or by uvicorn itself) has proto 0, as have the connections it accepts. With
    uvicorn's own protocol, which writes an answer's head and body apart, each answer then waited for the
    student's delayed ACK: 40-45 ms a request, measured with ``benchmarks/gateway_load.py``. ``agentlab
    serve``'s protocol, which the gateway now uses, sets the option itself too; this keeps it whatever the
    protocol.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


class Running:
    """A gateway served by uvicorn on a thread (tests, a notebook cell); ``stop()`` ends it."""

    def __init__(self, gateway: Gateway, host: str = "127.0.0.1", port: int = 0) -> None:
        self.socket = listen(host, port)
        """The listening socket."""
        self.url = "http://{}:{}".format(*self.socket.getsockname()[:2])
        """The base URL students set as ``ANTHROPIC_BASE_URL``."""
        self.server = uvicorn.Server(_config(gateway))
        """The uvicorn server."""
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self._thread.start()
        for _ in range(500):  # bounded: up to 5 s for uvicorn to start
            if self.server.started:
                break
            self._thread.join(0.01)

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.should_exit = True
        self._thread.join(10)
        self.socket.close()


def serve(gateway: Gateway, host: str, port: int) -> None:
    """Serve until interrupted, saying where (and never the key)."""
    print(
        f"agentlab gateway: ledger {getattr(gateway.store, 'path', '(not a file)')}; students set ANTHROPIC_BASE_URL=http://{host}:{port} "
        "and ANTHROPIC_API_KEY=<their token>",
        flush=True,
    )
    try:
        uvicorn.Server(_config(gateway)).run(sockets=[listen(host, port)])
    except KeyboardInterrupt:  # Ctrl-C: uvicorn has answered what was in flight and closed the connections
        pass


def _config(gateway: Gateway) -> uvicorn.Config:
    """uvicorn with ``agentlab serve``'s protocol (and the ASGI lifespan, at whose end the gateway closes its
    connections to the API): a connection that sends no whole header block within 10 s, or
    no whole body within 30 s, is answered and closed (uvicorn alone holds it open), at most 1,000 at once; on
    uvloop where it is installed (uvicorn[standard]'s loop; the lock has it off Windows). ``benchmarks/gateway_load.py``
    measures what it adds to a request and the requests a class gets answered per second."""
    from agentlab.sim.asgi import IDLE_TIMEOUT_S
    from agentlab.sim.asgi_httptools import FastProtocol

    return uvicorn.Config(
        gateway, http=FastProtocol, loop="auto", lifespan="on", log_config=None, access_log=False, ws="none",
        timeout_keep_alive=IDLE_TIMEOUT_S,
    )  # fmt: skip
