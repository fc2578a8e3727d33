"""Every call's input split into parts: in the simulator the parts add up to input_tokens exactly."""

import httpx2
import pytest

import agentlab
from agentlab.api.tokens import input_parts, tool_def_tokens, tool_prompt_overhead
from agentlab.api.wire import BREAKDOWN_HEADER
from agentlab.meter.breakdown import InputBreakdown
from agentlab.meter.middleware import PartsMismatch


def test_demo_turns_split_into_tool_prompt_definitions_task_history_and_new(sim, tmp_path):
    agent, workflow = agentlab.compare(sim, ["Paris", "London"], tmp_path)
    specs = [t.spec() for t in agentlab.task_tools(tmp_path)]
    for t in agent.turns:
        b = t.breakdown
        assert b.parts_total == t.input_tokens and b.residual == 0
        assert b.tool_prompt == tool_prompt_overhead(agent.model, None)[0]
        assert b.tool_definitions == sum(tool_def_tokens(s, model=agent.model) for s in specs)
    first, last = agent.turns[0].breakdown, agent.turns[-1].breakdown
    assert first.history == first.new == 0  # the first call sends only the fixed part
    assert last.history > agent.turns[1].breakdown.history > 0  # history grows turn by turn
    assert workflow.turns[0].breakdown.tool_prompt == workflow.turns[0].breakdown.tool_definitions == 0


def test_reprefill_is_fixed_overhead_plus_history_resent(sim, tools):
    run = agentlab.run_agent(sim, agentlab.city_task(["Paris", "London"]), tools)
    assert run.turns[0].reprefill_tokens == 0
    for t in run.turns[1:]:
        assert t.reprefill_fixed == t.breakdown.fixed  # the whole fixed part was sent before
        assert t.reprefill_fixed + t.reprefill_history == t.reprefill_tokens
        assert 0 < t.reprefill_history <= t.breakdown.history


def test_parts_cover_system_prompt_and_a_chat_without_tools():
    body = {
        "model": "claude-sonnet-5-5",
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "user", "content": "How are you?"},
        ],
    }
    parts = input_parts(body)
    assert parts["system"] > 0 and parts["history"] > 0 and parts["new"] > 0 and parts["tool_prompt"] == 0
    assert sum(parts.values()) == agentlab.api.tokens.estimate_input_tokens(body)


def _without_parts(sim):
    def handle(request):
        response = sim.handle(request)
        response.headers.pop(BREAKDOWN_HEADER, None)  # as the real API: no split in the response
        return response

    return handle


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-sonnet-5-5"])
def test_count_tokens_split_matches_the_simulators_own_parts(tools, model):
    """The live method (count_tokens on prefixes), run against the simulator, which serves count_tokens.

    A model that refuses prefill (the default, claude-sonnet-5-5) will not count a prefix ending in the
    assistant's turn, so the newest message is counted as an empty placeholder there: "new" is then
    short by the placeholder's framing (kept in history), the sum still matches, and no count is refused.
    """
    counted = agentlab.connect("sim", model=model, quiet=True, count_parts=True)
    statuses = []
    strip = _without_parts(counted.agentlab_simulator)
    counted._client = httpx2.Client(transport=httpx2.MockTransport(lambda r: statuses.append(strip(r)) or statuses[-1]))
    one = {"type": "auto", "disable_parallel_tool_use": True}  # one tool_result per newest message: one placeholder
    run = agentlab.run_agent(
        counted, agentlab.city_task(["Paris", "London"]), tools, system="Be careful.", tool_choice=one
    )
    plain = agentlab.run_agent(
        agentlab.connect("sim", model=model, quiet=True),
        agentlab.city_task(["Paris", "London"]),
        tools,
        system="Be careful.",
        tool_choice=one,
    )
    prefill = agentlab.api.profiles.profile(model).prefill
    for c, p in zip(run.turns, plain.turns):
        assert c.breakdown.source == "count_tokens" and c.breakdown.residual == 0
        if prefill:
            assert c.breakdown.parts() == p.breakdown.parts()
        else:
            got, want = c.breakdown.parts(), p.breakdown.parts()
            assert got["history"] + got["new"] == want["history"] + want["new"]
            assert want["new"] == 0 or 0 < got["new"] <= want["new"] <= got["new"] + 10  # placeholder framing
            assert {k: v for k, v in got.items() if k not in ("history", "new")} == {
                k: v for k, v in want.items() if k not in ("history", "new")
            }

    assert all(r.status_code == 200 for r in statuses)  # no prefix the API refuses: no wasted count


def test_a_failing_count_tokens_never_resends_or_loses_the_paid_call(tools, capsys):
    """A 429 on count_tokens (counts come first, never retried) leaves the paid call sent once and recorded."""
    client = agentlab.connect("sim", quiet=True, count_parts=True, max_retries=2)
    strip = _without_parts(client.agentlab_simulator)
    paid = []

    def handle(request):
        if request.url.path.endswith("count_tokens"):
            return httpx2.Response(
                429,
                json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
                headers={"retry-after": "0"},
            )
        paid.append(request)
        return strip(request)

    client._client = httpx2.Client(transport=httpx2.MockTransport(handle))
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), tools)
    meter = agentlab.meter_of(client)
    assert len(paid) == run.model_calls == len(meter.calls) and len(meter.attempts) == run.model_calls
    assert all(t.breakdown is None for t in run.turns)
    said = [line for line in capsys.readouterr().err.splitlines() if "count_tokens failed" in line]
    assert len(said) == 1 and "HTTP 429" in said[0] and meter.count_errors == run.model_calls  # said once


def _tampered(sim):
    def handle(request):
        response = sim.handle(request)
        if BREAKDOWN_HEADER in response.headers:
            response.headers[BREAKDOWN_HEADER] = '{"task": 1}'
        return response

    return handle


def test_parts_that_do_not_add_up_fail_the_call(monkeypatch):
    monkeypatch.setenv("AGENTLAB_CHECK_PARTS", "1")
    client = agentlab.connect("sim", quiet=True)
    client._client = httpx2.Client(transport=httpx2.MockTransport(_tampered(client.agentlab_simulator)))
    with pytest.raises(PartsMismatch, match="add up to 1, but usage reports"):
        client.messages.create(
            model="claude-sonnet-5-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}]
        )


def test_breakdown_names_its_fixed_part():
    b = InputBreakdown(tool_prompt=346, tool_definitions=96, system=0, task=28, history=133, new=13)
    assert b.fixed == 470 and b.parts_total == 616


def _billing_more(sim, extra):
    def handle(request):
        response = _without_parts(sim)(request)
        if request.url.path.endswith("/v1/messages"):
            body = response.json()
            body["usage"]["input_tokens"] += extra  # a real model's tokenizer disagrees with the counts
            return httpx2.Response(200, json=body, headers=response.headers)
        return response

    return handle


def test_what_the_counts_do_not_explain_is_shown_as_residual(tools):
    client = agentlab.connect("sim", quiet=True, count_parts=True)
    client._client = httpx2.Client(transport=httpx2.MockTransport(_billing_more(client.agentlab_simulator, 7)))
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), tools)
    assert all(t.breakdown.residual == 7 and t.breakdown.parts_total + 7 == t.input_tokens for t in run.turns)
