"""Graded tests for exercises/ex09_what_a_turn_costs.py. Run: make grade"""

import pytest

import agentlab
from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.meter.prices.cost_usd",
    "agentlab.meter.prices.usage_cost_usd",
    why="Exercise 9 asks you to price the call yourself",
)

ex09 = lazy_import("exercises.ex09_what_a_turn_costs")
MODEL = "claude-opus-5"  # its minimum cacheable prompt is 512 tokens: a long run's history passes it early
MADE_UP = {"input": 1.0, "output": 2.0, "cache_read": 0.5, "cache_write_5m": 3.0, "cache_write_1h": 7.0}


def _genai_prices(model: str) -> dict:
    """USD per million tokens for `model`, read off genai-prices one unit at a time."""
    from agentlab.meter.prices import usage_cost_usd

    zero = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    one = {
        "input": {"input_tokens": 10**6},
        "output": {"output_tokens": 10**6},
        "cache_read": {"cache_read_input_tokens": 10**6},
        "cache_write_5m": {"cache_creation_input_tokens": 10**6},
        "cache_write_1h": {
            "cache_creation_input_tokens": 10**6,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 10**6},
        },
    }
    return {k: usage_cost_usd(model, {**zero, **u}) for k, u in one.items()}


@pytest.mark.exercise("9.1")
@pytest.mark.points(2)
def test_cost_by_hand_uses_every_part_of_the_usage():
    usage = {
        "input_tokens": 1000,
        "output_tokens": 100,
        "cache_read_input_tokens": 4000,
        "cache_creation_input_tokens": 3000,
        "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 1000},
    }
    want = (1000 * 1.0 + 100 * 2.0 + 4000 * 0.5 + 2000 * 3.0 + 1000 * 7.0) / 1e6
    got = ex09.cost_by_hand(usage, MADE_UP)
    assert got == pytest.approx(want), f"expected {want}, got {got}"
    plain = {
        "input_tokens": 10,
        "output_tokens": 1,
        "cache_read_input_tokens": None,
        "cache_creation_input_tokens": 500,
    }
    got = ex09.cost_by_hand(plain, MADE_UP)
    assert got == pytest.approx((10 + 2 + 500 * 3.0) / 1e6), f"without 'cache_creation' all writes are 5m; got {got}"


@pytest.mark.exercise("9.1")
@pytest.mark.points(2)
def test_cost_by_hand_matches_the_meter_on_a_cached_run(tmp_path):
    client = agentlab.connect("sim", model=MODEL, quiet=True)
    run = agentlab.run_agent(
        client,
        agentlab.city_task(agentlab.city_names()[:4]),
        agentlab.task_tools(tmp_path),
        cache=True,
        trace=tmp_path / "t.jsonl",
    )
    usages = [e["usage"] for e in agentlab.read_trace(tmp_path / "t.jsonl") if e.get("event") == "response"]
    prices = _genai_prices(MODEL)
    got = sum(ex09.cost_by_hand(u, prices) for u in usages)
    assert got == pytest.approx(run.cost_usd), (
        f"the run cost ${run.cost_usd:.6f} by genai-prices; you computed ${got:.6f}"
    )


YOUR_OWN_CAP = pytest.mark.forbids(
    "agentlab.loop.run_agent",
    "agentlab.loop.execute_tools",
    "agentlab.guards.Limits.start",
    "agentlab.guards.Budget.check",
    why="Exercise 9.2 asks you to write the loop and its dollar check yourself",
)
CAP_PRICES = {"input": 3.0, "output": 15.0}


def _never_stops():
    """A simulated model that asks for the weather again on every turn."""
    again = agentlab.FunctionModel(
        lambda m, i: [{"type": "tool_use", "name": "get_weather", "input": {"city": "Oslo"}}]
    )
    return agentlab.connect("sim", policy=again, quiet=True)


def _worst(client, messages, tools, max_tokens):
    n = client.messages.count_tokens(model=MODEL, messages=messages, tools=[t.spec() for t in tools]).input_tokens
    return (n * CAP_PRICES["input"] + max_tokens * CAP_PRICES["output"]) / 1e6


def _spent(client):
    calls = agentlab.meter_of(client).calls
    p = CAP_PRICES
    return sum(
        (c.usage["input_tokens"] * p["input"] + c.usage["output_tokens"] * p["output"]) / 1e6 for c in calls
    ), len(calls)


@YOUR_OWN_CAP
@pytest.mark.exercise("9.2")
@pytest.mark.points(1)
def test_a_model_that_never_stops_is_stopped_before_the_call_that_would_cross_the_budget(tmp_path):
    client, tools = _never_stops(), agentlab.task_tools(tmp_path)
    messages, why, spent = ex09.run_capped(
        client, "Keep checking.", tools, MODEL, max_usd=0.1, prices=CAP_PRICES, max_tokens=1000, max_turns=50
    )
    real, calls = _spent(client)
    assert why == "max_usd" and 1 < calls < 50, f"stopped with {why!r} after {calls} calls"
    assert spent == pytest.approx(real), f"you say ${spent:.6f}; the calls' usage costs ${real:.6f}"
    assert real <= 0.1, (
        f"the run spent ${real:.6f}, over the $0.1 budget: check before each call, against its worst case "
        "(reread the cost preview and the price list of notebook 09)"
    )
    assert spent + _worst(client, messages, tools, 1000) > 0.1, (
        "the next call's worst case still fitted the budget: stop only before a call that could cross it"
    )


@YOUR_OWN_CAP
@pytest.mark.exercise("9.2")
@pytest.mark.points(1)
def test_a_budget_below_the_first_calls_worst_case_makes_no_call(tmp_path):
    client, tools = _never_stops(), agentlab.task_tools(tmp_path)
    first = _worst(client, [{"role": "user", "content": "Keep checking."}], tools, 4096)
    messages, why, spent = ex09.run_capped(
        client, "Keep checking.", tools, MODEL, max_usd=first * 0.99, prices=CAP_PRICES, max_tokens=4096
    )
    assert (why, spent, _spent(client)[1]) == ("max_usd", 0.0, 0), (
        f"the first call alone could cost ${first:.6f}, over the budget: no call should be made ({why!r}, {spent})"
    )
    assert messages == [{"role": "user", "content": "Keep checking."}]


@YOUR_OWN_CAP
@pytest.mark.exercise("9.2")
@pytest.mark.points(1)
def test_within_budget_the_model_ends_the_run_and_the_conversation_stays_valid(tmp_path):
    client, tools = agentlab.connect("sim", quiet=True), agentlab.task_tools(tmp_path)
    messages, why, spent = ex09.run_capped(
        client, agentlab.city_task(["Lima", "Quito"]), tools, MODEL, max_usd=5.0, prices=CAP_PRICES
    )
    assert why == "end_turn" and spent == pytest.approx(_spent(client)[0]), (why, spent)
    asked = [b["id"] for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    answered = [
        b["tool_use_id"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
    ]
    assert asked == answered, "every tool_use is answered, in order"
    _, why, _ = ex09.run_capped(
        _never_stops(), "Keep checking.", tools, MODEL, max_usd=5.0, prices=CAP_PRICES, max_turns=3
    )
    assert why == "max_turns"
