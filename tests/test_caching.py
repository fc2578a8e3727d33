"""Breakpoints placed for a loop, a cached run's cost against its usage, and when caching does not pay."""

import pytest

import agentlab
from agentlab.caching import with_cache_breakpoints
from agentlab.meter.prices import usage_cost_usd

TOOLS = [{"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}}]


def _marks(req):
    blocks = [*req.get("tools", []), *req.get("system", [])]
    blocks += [b for m in req["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b for b in blocks if "cache_control" in b]


def test_breakpoints_go_on_tools_system_and_the_last_block_without_touching_the_input():
    messages = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "1"}]},
    ]
    before = repr(messages) + repr(TOOLS)
    req = with_cache_breakpoints(messages, TOOLS, "be brief")
    assert len(_marks(req)) == 3
    assert "cache_control" in req["tools"][-1] and "cache_control" in req["system"][-1]
    assert "cache_control" in req["messages"][-1]["content"][-1]
    assert repr(messages) + repr(TOOLS) == before


def test_bad_ttl_names_the_choices():
    with pytest.raises(ValueError, match="'5m' or '1h'"):
        with_cache_breakpoints([{"role": "user", "content": "x"}], ttl="10m")


def test_a_long_cached_run_costs_less_and_each_turn_prices_from_its_usage(tmp_path):
    cities = agentlab.city_names()[:12]
    runs = {}
    for cache in (False, True):
        client = agentlab.connect("sim", model="claude-opus-5", quiet=True)
        runs[cache] = agentlab.run_agent(
            client,
            agentlab.city_task(cities),
            agentlab.task_tools(tmp_path),
            max_turns=20,
            cache=cache,
            trace=tmp_path / f"{cache}.jsonl",
        )
    plain, cached = runs[False], runs[True]
    assert plain.model_calls == cached.model_calls
    assert cached.cost_usd < plain.cost_usd
    assert any(t.cache_read_tokens for t in cached.turns)
    usages = [e["usage"] for e in agentlab.read_trace(tmp_path / "True.jsonl") if e.get("event") == "response"]
    for turn, usage in zip(cached.turns, usages):
        assert turn.cost_usd == pytest.approx(usage_cost_usd("claude-opus-5", usage))
    for a, b in zip(plain.turns, cached.turns):  # same prompt, split three ways instead of one
        assert a.input_tokens == b.input_tokens + b.cache_read_tokens + b.cache_write_tokens


def test_caching_a_short_run_changes_nothing(tmp_path):
    costs = []
    for cache in (False, True):
        client = agentlab.connect("sim", quiet=True)  # default model: 1024-token minimum, a 2-city run stays below
        run = agentlab.run_agent(
            client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), cache=cache
        )
        assert all(t.cache_write_tokens == t.cache_read_tokens == 0 for t in run.turns)
        costs.append(run.cost_usd)
    assert costs[0] == costs[1]


def test_one_hour_writes_cost_more_than_five_minute_writes():
    five = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 0},
    }
    hour = {**five, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000}}
    assert usage_cost_usd("claude-sonnet-5-5", hour) > usage_cost_usd("claude-sonnet-5-5", five)
    assert usage_cost_usd("claude-no-such-model", five) is None


def test_a_run_with_one_hour_writes_prices_each_turn_at_the_one_hour_rate(tmp_path):
    client = agentlab.connect("sim", model="claude-opus-5", quiet=True)
    run = agentlab.run_agent(
        client,
        agentlab.city_task(agentlab.city_names()[:6]),
        agentlab.task_tools(tmp_path),
        max_turns=20,
        cache="1h",
        trace=tmp_path / "1h.jsonl",
    )
    usages = [e["usage"] for e in agentlab.read_trace(tmp_path / "1h.jsonl") if e.get("event") == "response"]
    written = [(t, u) for t, u in zip(run.turns, usages) if t.cache_write_tokens]
    assert written and all(t.cache_write_1h_tokens == t.cache_write_tokens for t, _ in written)
    for turn, usage in written:
        assert turn.cost_usd == pytest.approx(usage_cost_usd("claude-opus-5", usage))
        as_if_5m = agentlab.cost_usd("claude-opus-5", {k: v for k, v in usage.items() if k != "cache_creation"})
        assert turn.cost_usd > as_if_5m  # without the 5m / 1h split every write is priced at the 5m rate
