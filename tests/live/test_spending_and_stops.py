"""Spending is capped before the call that would cross it; every stop reason ends a run typed, never raising."""

import json

import httpx2
import pytest

import agentlab
from agentlab import Limits, StopReason, run_agent
from agentlab.guards import Limits as GuardLimits
from agentlab.live.spend import SpendRefused, upper_bound_usd
from agentlab.meter.prices import cost_usd
from agentlab.sim.models.misbehaving import Looper
from agentlab.trace import read_trace

TASK = "Which is warmer, Paris or London? Save a note."


def test_a_session_cap_stops_before_the_crossing_call_and_that_call_is_never_sent(tools, tmp_path):
    client = agentlab.connect("sim", policy=Looper(), quiet=True, max_usd=0.05)
    run = run_agent(client, TASK, tools, limits=Limits(max_turns=50), trace=tmp_path / "t.jsonl")
    meter = agentlab.meter_of(client)
    spent = sum(cost_usd(c.model, c.usage) for c in meter.calls)
    assert run.stop_reason is StopReason.USD_BUDGET and run.model_calls >= 2
    assert spent <= 0.05  # never crossed
    assert len(meter.attempts) == len(meter.calls) == run.model_calls  # the refused call made no HTTP attempt
    assert client.agentlab_simulator.counter == run.model_calls
    stop = read_trace(tmp_path / "t.jsonl")[-1]
    assert stop["guard"] == "session max_usd" and stop["limit"] == 0.05 and "could cost up to" in stop["detail"]
    # the cap is per session: the next run on this client stops too, and the session still never crosses it
    again = run_agent(client, TASK, tools, limits=Limits(max_turns=50))
    assert again.stop_reason is StopReason.USD_BUDGET
    assert sum(cost_usd(c.model, c.usage) for c in meter.calls) <= 0.05


def test_a_session_cap_refuses_an_unpriced_model_before_paying():
    client = agentlab.connect("sim", model="claude-mythos-5-1", quiet=True, max_usd=1.0)
    with pytest.raises(SpendRefused, match="no known price"):
        client.messages.create(model="claude-mythos-5-1", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert agentlab.meter_of(client).attempts == []


def test_the_city_workflow_stops_typed_at_the_session_cap(tmp_path):
    client = agentlab.connect("sim", quiet=True, max_usd=0.0001)
    run = agentlab.run_workflow(client, ["Paris", "London"], tmp_path / "notes")
    assert run.stop_reason is StopReason.USD_BUDGET and run.model_calls == 0
    assert not list((tmp_path / "notes").glob("*")) if (tmp_path / "notes").exists() else True


def test_upper_bound_prices_a_one_hour_breakpoint_at_the_one_hour_write_rate():
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "x " * 500}]}],
    }
    marked = json.loads(json.dumps(body))
    marked["messages"][0]["content"] = [{"type": "text", "text": "x " * 500, "cache_control": {"type": "ephemeral"}}]
    hour = json.loads(json.dumps(marked))
    hour["messages"][0]["content"][0]["cache_control"]["ttl"] = "1h"
    assert upper_bound_usd(body) < upper_bound_usd(marked) < upper_bound_usd(hour)


def test_one_hour_cache_writes_are_counted_at_their_rate_by_the_usd_guard():
    usage = {
        "input_tokens": 10,
        "output_tokens": 10,
        "cache_creation_input_tokens": 10_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 10_000},
    }
    five = {**usage, "cache_creation": {"ephemeral_5m_input_tokens": 10_000, "ephemeral_1h_input_tokens": 0}}
    budget = GuardLimits(max_usd=10.0).start()
    budget.after_call([], usage, "claude-sonnet-5-5")
    assert budget.usd == pytest.approx(cost_usd("claude-sonnet-5-5", usage))
    assert budget.usd > cost_usd("claude-sonnet-5-5", five)


def _rewriting(sim, rewrite):
    """A transport over the simulator whose n-th Messages answer (1-based) ``rewrite(n, body)`` may change."""
    calls = []

    def handle(request):
        response = sim.handle(request)
        if not request.url.path.endswith("/v1/messages") or response.status_code != 200:
            return response
        calls.append(1)
        body = rewrite(len(calls), response.json())
        return httpx2.Response(
            200,
            json=body,
            headers=[
                (k, v) for k, v in response.headers.items() if k.lower() not in ("content-length", "content-encoding")
            ],
        )

    return handle


def _client(rewrite, model="claude-haiku-4-5"):
    client = agentlab.connect("sim", model=model, quiet=True)
    client._client = httpx2.Client(transport=httpx2.MockTransport(_rewriting(client.agentlab_simulator, rewrite)))
    return client


def test_pause_turn_is_sent_back_and_the_run_continues(tools):
    def pause_first(n, body):
        if n == 1:
            body["stop_reason"], body["content"] = "pause_turn", [{"type": "text", "text": "Looking it up."}]
        return body

    run = run_agent(_client(pause_first), TASK, tools)
    assert run.stop_reason is StopReason.END_TURN and run.model_calls >= 3
    assert run.messages[1] == {"role": "assistant", "content": [{"type": "text", "text": "Looking it up."}]}
    assert run.messages[2]["role"] == "assistant"  # sent back as is, answered by the next call


def test_a_refusal_ends_typed_and_keeps_no_earlier_text(tools):
    def refuse_second(n, body):
        if n == 1:
            body["content"].insert(0, {"type": "text", "text": "Let me check Paris."})
        if n == 2:
            body["stop_reason"], body["content"] = "refusal", []
        return body

    run = run_agent(_client(refuse_second), TASK, tools)
    assert run.stop_reason is StopReason.REFUSAL and run.model_calls == 2 and run.final_text == ""


def test_max_tokens_mid_tool_use_ends_typed_and_runs_no_tool(tools):
    def cut(n, body):
        body["stop_reason"] = "max_tokens"
        return body

    run = run_agent(_client(cut), TASK, tools)
    assert run.stop_reason is StopReason.MAX_TOKENS and run.model_calls == 1 and run.tool_results == []


def test_an_unknown_stop_reason_ends_typed_after_the_paid_call_instead_of_raising(tools, tmp_path):
    def odd(n, body):
        body["stop_reason"] = "gremlins"
        return body

    run = run_agent(_client(odd), TASK, tools, trace=tmp_path / "t.jsonl")
    assert run.stop_reason is StopReason.UNKNOWN_STOP_REASON and run.model_calls == 1
    assert "gremlins" in read_trace(tmp_path / "t.jsonl")[-1]["detail"]


@pytest.mark.parametrize(
    "said, expected",
    [
        ("max_tokens", StopReason.MAX_TOKENS),
        ("refusal", StopReason.REFUSAL),
        ("gremlins", StopReason.UNKNOWN_STOP_REASON),
    ],
)
def test_the_city_workflow_reads_the_write_calls_stop_reason_and_saves_no_note(tmp_path, said, expected):
    def change(n, body):
        body["stop_reason"] = said
        return body

    run = agentlab.run_workflow(_client(change), ["Paris", "London"], tmp_path / "notes")
    assert run.stop_reason is expected
    assert not any(s.path.endswith("save_note") for s in run.steps)


def test_parallel_calls_on_one_capped_client_count_each_other_in_flight():
    """Calls still running count at their upper bound, so eight at once cannot pass the cap together."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    client = agentlab.connect("sim", quiet=True, max_usd=0.0035)
    sim, release = client.agentlab_simulator, threading.Event()

    def slow(request):  # every paid call waits inside the server until the test lets them all go
        release.wait(5)
        return sim.handle(request)

    client._client = httpx2.Client(transport=httpx2.MockTransport(slow))
    ask = {"model": "claude-sonnet-5-5", "max_tokens": 100, "messages": [{"role": "user", "content": "Say hello."}]}
    room = int(0.0035 // upper_bound_usd(ask))

    def call(_):
        try:
            client.messages.create(**ask)
            return "sent"
        except SpendRefused:
            return "refused"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(call, i) for i in range(8)]
        for _ in range(500):  # the refused return at once, the rest wait (bounded: at most ~5 s)
            if sum(f.done() for f in futures) >= 8 - room:
                break
            threading.Event().wait(0.01)
        release.set()
        outcomes = [f.result() for f in futures]
    assert room >= 1 and outcomes.count("sent") == room and outcomes.count("refused") == 8 - room
    assert sum(cost_usd(c.model, c.usage) for c in agentlab.meter_of(client).calls) <= 0.0035
