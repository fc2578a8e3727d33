"""A live stand-in for the tests: the simulator behind a transport that strips its own headers (as a
proxy in front of ``agentlab serve`` would), so the client sees what the real API sends."""

import httpx2

from agentlab.sim.server import Simulator


def strip_sim_headers(handler):
    """Wrap a request handler: answers lose every ``agentlab-*`` header; requests are kept for checks."""
    seen = []

    def handle(request):
        seen.append(request)
        response = handler(request)
        headers = [(k, v) for k, v in response.headers.multi_items() if not k.lower().startswith("agentlab-")]
        return httpx2.Response(response.status_code, headers=headers, content=response.read())

    handle.seen = seen
    return handle


def standin(**sim_options):
    """A transport answering like the API (no simulator headers), and the list of requests it saw."""
    handle = strip_sim_headers(Simulator(**sim_options).handle)
    return httpx2.MockTransport(handle), handle.seen
