"""`agentlab serve`: any Anthropic client works against the simulator over real HTTP on loopback."""

import threading

import anthropic
import pytest

import agentlab
from agentlab.sim.serve import make_server
from agentlab.sim.server import Simulator


def test_plain_sdk_client_talks_to_the_local_server(base_url):
    client = anthropic.Anthropic(api_key="anything", base_url=base_url, max_retries=0)
    msg = client.messages.create(
        model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
    )
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


def test_200_simultaneous_clients_are_all_answered(base_url):
    import http.client
    import json as _json

    port = int(base_url.rsplit(":", 1)[1])
    body = _json.dumps(
        {"model": "claude-sonnet-5-5", "max_tokens": 20, "messages": [{"role": "user", "content": "Hello"}]}
    )
    barrier, answered = threading.Barrier(200), []

    def one():
        barrier.wait(timeout=60)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(
            "POST",
            "/v1/messages",
            body=body,
            headers={"anthropic-version": "2026-10-21", "content-type": "application/json"},
        )
        answered.append(conn.getresponse().status)
        conn.close()

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert answered.count(200) == 200


def test_a_body_over_32_mb_is_413_over_http(base_url):
    import httpx2

    r = httpx2.post(
        f"{base_url}/v1/messages",
        content=b"x" * 32_000_001,
        headers={"anthropic-version": "2026-10-21", "content-type": "application/json"},
        timeout=120,
    )
    assert r.status_code == 413 and r.json()["error"]["type"] == "request_too_large"


def test_cli_serve_rejects_a_bad_fault_spec(capsys):
    from agentlab.cli import main

    assert main(["serve", "--port", "0", "--faults", "418=1"]) == 2
    assert "not understood" in capsys.readouterr().err
