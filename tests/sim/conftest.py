import threading

import pytest

from agentlab.sim.serve import make_server
from agentlab.sim.server import Simulator


@pytest.fixture
def base_url():
    """``agentlab serve`` on a free loopback port, for the duration of one test."""
    server = make_server(Simulator(), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
