import threading

import pytest

from agentlab.sim.asgi import APIProtocol
from agentlab.sim.serve import PROTOCOL, make_server
from agentlab.sim.server import Simulator


@pytest.fixture(params=sorted({PROTOCOL, APIProtocol}, key=lambda p: p.__name__), ids=lambda p: p.__name__)
def base_url(request):
    """``agentlab serve`` on a free loopback port, for the duration of one test: with httptools and h11
    judging (``FastProtocol``, where httptools is installed) and with h11 alone (``APIProtocol``, the fallback)."""
    server = make_server(Simulator(), port=0, protocol=request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
