"""`agentlab serve`: any Anthropic client works against the simulator over real HTTP on loopback."""

import threading

import anthropic
import pytest

import agentlab
from agentlab.sim.serve import make_server
from agentlab.sim.server import Simulator


@pytest.fixture
def base_url():
    server = make_server(Simulator(), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_plain_sdk_client_talks_to_the_local_server(base_url):
    client = anthropic.Anthropic(api_key="anything", base_url=base_url, max_retries=0)
    msg = client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}])
    assert msg.stop_reason == "end_turn" and msg.content[0].text.startswith("Hello")


def test_errors_cross_http_in_the_api_envelope(base_url):
    client = anthropic.Anthropic(api_key="anything", base_url=base_url, max_retries=0)
    with pytest.raises(anthropic.NotFoundError, match="model: nope"):
        client.messages.create(model="nope", max_tokens=5, messages=[{"role": "user", "content": "x"}])


def test_the_agent_loop_runs_against_the_server(base_url, tmp_path):
    client = agentlab.connect(base_url=base_url, quiet=True, max_retries=0)
    run = agentlab.run_agent(client, agentlab.city_task(["Tokyo", "Seoul"]), agentlab.task_tools(tmp_path))
    assert run.stop_reason.value == "end_turn" and "Tokyo" in run.final_text and run.estimated


def test_server_refuses_non_loopback_hosts():
    with pytest.raises(ValueError, match="only listens on loopback"):
        make_server(Simulator(), port=0, host="0.0.0.0")
