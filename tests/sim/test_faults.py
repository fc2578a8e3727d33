"""Seeded faults: the API's 429/529/500 and slow answers; the SDK retries them; the Meter sees every attempt."""

from __future__ import annotations

import json

import anthropic
import pytest
from sim_http import body, post

import agentlab
from agentlab.meter.middleware import meter_of
from agentlab.sim.faults import Faults, as_faults
from agentlab.sim.server import Simulator


def test_a_429_carries_retry_after_and_the_rate_limit_headers():
    r = post(body(), sim=Simulator(faults="at=1:429"))
    assert r.status_code == 429 and r.json()["error"]["type"] == "rate_limit_error"
    assert r.headers["retry-after"] == "1" and r.headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert {h for h in r.headers if h.startswith("anthropic-ratelimit-")} >= {
        "anthropic-ratelimit-requests-limit",
        "anthropic-ratelimit-requests-reset",
        "anthropic-ratelimit-tokens-limit",
        "anthropic-ratelimit-input-tokens-limit",
        "anthropic-ratelimit-output-tokens-limit",
    }


@pytest.mark.parametrize(
    "code,status,kind,message",
    [("529", 529, "overloaded_error", "Overloaded"), ("500", 500, "api_error", "Internal server error")],
)
def test_529_and_500_use_the_api_envelope(code, status, kind, message):
    r = post(body(), sim=Simulator(faults=f"at=1:{code}"))
    assert r.status_code == status and r.json()["error"] == {"type": kind, "message": message}


def test_faults_are_deterministic_for_a_seed():
    a, b = Faults(rates={"429": 0.3}, seed=3), Faults(rates={"429": 0.3}, seed=3)
    assert [bool(a.fault(n)) for n in range(1, 100)] == [bool(b.fault(n)) for n in range(1, 100)]
    share = sum(bool(a.fault(n)) for n in range(1, 1001)) / 1000
    assert 0.25 < share < 0.35


def test_spec_strings_and_rates_turn_faults_on():
    f = as_faults("429=0.1,529=0.05,500=0.05,slow=0.5:0.01,at=3:529,seed=7")
    assert f.rates == {"429": 0.1, "529": 0.05, "500": 0.05} and f.at == {3: "529"} and f.seed == 7 and f.slow_s == 0.01
    assert as_faults(0.3).rates == pytest.approx({"429": 0.1, "529": 0.1, "500": 0.1})
    with pytest.raises(ValueError, match="not understood"):
        as_faults("418=0.1")


def test_the_sdk_retries_and_the_meter_marks_the_retry():
    client = agentlab.connect("sim", quiet=True, faults="at=1:429+2:529")
    msg = client.messages.create(
        model="claude-sonnet-5-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
    )
    assert msg.stop_reason == "end_turn"
    meter = meter_of(client)
    assert [(a.status, a.retry) for a in meter.attempts] == [(429, False), (529, True), (200, True)]
    assert len(meter.calls) == 1 and meter.calls[0].retry


def test_without_retries_the_fault_reaches_the_caller_as_the_sdk_error():
    client = agentlab.connect("sim", quiet=True, faults="at=1:529", max_retries=0)
    with pytest.raises(anthropic.InternalServerError) as e:
        client.messages.create(model="claude-sonnet-5-5", max_tokens=50, messages=[{"role": "user", "content": "Hi"}])
    assert e.value.status_code == 529


def test_a_run_with_20_percent_faults_completes_with_its_trace_whole(tmp_path):
    client = agentlab.connect("sim", quiet=True, faults={"rates": {"429": 0.1, "529": 0.05, "500": 0.05}, "seed": 7})
    trace = tmp_path / "agent.jsonl"
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), trace=trace
    )
    events = [json.loads(line) for line in trace.read_text("utf-8").splitlines()]
    assert run.stop_reason.value == "end_turn" and events[-1]["event"] == "stop"
    meter = meter_of(client)
    assert sum(a.status >= 400 for a in meter.attempts) >= 1, (
        "seed 7 should inject at least one fault in this run (a 529 and a 500 in its three calls)"
    )
    assert len(meter.attempts) == len(meter.calls) + sum(a.status >= 400 for a in meter.attempts)


def test_connect_live_refuses_faults():
    with pytest.raises(ValueError, match="mode='sim'"):
        agentlab.connect("live", api_key="k", faults=0.1, quiet=True)


def test_serve_with_faults_over_http():
    import threading

    from agentlab.sim.serve import make_server

    server = make_server(Simulator(faults="at=1:429,retry_after=0.01"), port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = agentlab.connect(base_url=f"http://127.0.0.1:{server.server_address[1]}", quiet=True, max_retries=2)
        msg = client.messages.create(
            model="claude-sonnet-5-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
        )
        assert msg.stop_reason == "end_turn" and [a.status for a in meter_of(client).attempts] == [429, 200]
    finally:
        server.shutdown()
        server.server_close()
