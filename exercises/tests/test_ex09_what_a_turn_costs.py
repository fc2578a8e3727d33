"""Graded tests for exercises/ex09_what_a_turn_costs.py. Run: make grade"""

import pytest

import agentlab
from agentlab.grading import answered, lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.meter.prices.cost_usd",
    why="Exercise 9 asks you to price the calls yourself",
)

ex09 = lazy_import("exercises.ex09_what_a_turn_costs")
MODEL = "claude-opus-5"  # its minimum cacheable prompt is 512 tokens: a long run's history passes it early
MADE_UP = {"input": 1.0, "output": 2.0, "cache_read": 0.5, "cache_write_5m": 3.0, "cache_write_1h": 7.0}


YOUR_OWN_METER = pytest.mark.forbids(  # not Meter.handle: the simulated client runs it on every call, as middleware
    "agentlab.meter.middleware.meter_of",
    why="Exercise 9.1 asks you to write the meter yourself, not to read the lab's",
)


def _random_prices(rng):
    return {k: round(rng.uniform(0.1, 30.0), 2) for k in MADE_UP}


def _billed(usage: dict, p: dict) -> tuple[int, float]:
    """Every input token a recorded usage was billed for, and its USD at prices `p` (the rule 9.1 states)."""
    read, written = usage.get("cache_read_input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0
    one_hour = (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
    usd = (
        usage["input_tokens"] * p["input"]
        + usage["output_tokens"] * p["output"]
        + read * p["cache_read"]
        + (written - one_hour) * p["cache_write_5m"]
        + one_hour * p["cache_write_1h"]
    ) / 1e6
    return usage["input_tokens"] + read + written, usd


def _drive(create, tmp_path, system=None, turns=4):
    """The test's own loop: the city task, every model call made through the student's `create`."""
    from agentlab.tools import run_tool, toolset

    tools = agentlab.task_tools(tmp_path)
    by_name = toolset(tools)
    messages = [{"role": "user", "content": agentlab.city_task(agentlab.city_names()[:3])}]
    extra = {"system": system} if system else {}
    for _ in range(turns):
        reply = create(model=MODEL, max_tokens=512, messages=messages, tools=[t.spec() for t in tools], **extra)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": b["id"],
                        "content": run_tool(by_name, b["name"], b["input"]).content,
                    }
                    for b in content
                    if b["type"] == "tool_use"
                ],
            }
        )
    return messages


def _check_ledger(client, ledger, prices):
    calls = agentlab.meter_of(client).calls
    assert len(ledger) == len(calls), (
        f"one ledger entry per call the API answered: {len(ledger)} for {len(calls)} calls"
    )
    for i, (entry, call) in enumerate(zip(ledger, calls), 1):
        tokens, usd = _billed(call.usage, prices)
        got = {k: entry.get(k) for k in ("model", "input_tokens", "output_tokens")}
        want = {"model": call.model, "input_tokens": tokens, "output_tokens": call.usage["output_tokens"]}
        assert got == want, f"call {i}: the API reported usage {call.usage}; your entry says {got}, expected {want}"
        assert entry.get("usd") == pytest.approx(usd, rel=1e-9, abs=1e-12), (
            f"call {i}: usage {call.usage} at prices {prices} costs ${usd:.9f}; your entry says {entry.get('usd')!r}. "
            "Price each part of the usage at its own rate (reread 'The price list' in notebook 09)"
        )


@YOUR_OWN_METER
@pytest.mark.exercise("9.1")
@pytest.mark.points(1)
def test_every_call_is_recorded_with_the_tokens_the_api_reported(tmp_path):
    client, ledger = agentlab.connect("sim", model=MODEL, quiet=True), []
    messages = _drive(ex09.metered(client, dict(MADE_UP), ledger), tmp_path)
    assert messages[-1]["role"] == "assistant" and len(messages) > 3, (
        "create returns the reply unchanged, so a loop built on it runs the task as it would without the meter"
    )
    _check_ledger(client, ledger, MADE_UP)


@YOUR_OWN_METER
@pytest.mark.exercise("9.1")
@pytest.mark.points(2)
def test_cache_writes_of_both_lifetimes_and_cache_reads_are_priced_at_their_own_rates(tmp_path):
    import os
    import random

    prices = _random_prices(random.Random(os.urandom(8)))
    rules = " ".join(f"Rule {i}: report every temperature in degrees Celsius, rounded." for i in range(120))
    system = [
        {"type": "text", "text": rules, "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        {"type": "text", "text": "Answer briefly. " * 200, "cache_control": {"type": "ephemeral"}},
    ]
    client, ledger = agentlab.connect("sim", model=MODEL, quiet=True), []
    _drive(ex09.metered(client, prices, ledger), tmp_path, system=system)
    usages = [c.usage for c in agentlab.meter_of(client).calls]
    assert any((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") for u in usages)
    assert any(u.get("cache_read_input_tokens") for u in usages), usages
    _check_ledger(client, ledger, prices)


@YOUR_OWN_METER
@pytest.mark.exercise("9.1")
@pytest.mark.points(1)
def test_a_refused_call_costs_nothing_and_its_error_reaches_the_caller():
    client, ledger = agentlab.connect("sim", model=MODEL, quiet=True), []
    create = ex09.metered(client, dict(MADE_UP), ledger)
    with pytest.raises(Exception) as refused:
        create(model="claude-nope-9", max_tokens=64, messages=[{"role": "user", "content": "Hello"}])
    assert "claude-nope-9" in str(refused.value) or "not_found" in str(refused.value), (
        f"the API's own error should reach the caller: got {type(refused.value).__name__}: {refused.value}"
    )
    assert ledger == [], f"a refused call costs nothing, so it adds no entry: {ledger}"
    create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "Hello"}])
    assert len(ledger) == 1, "after a refused call the meter still records the next one"


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
        client, "Keep checking.", tools, MODEL, max_usd=0.1, prices=dict(CAP_PRICES), max_tokens=1000, max_turns=50
    )
    real, calls = _spent(client)
    assert why == "max_usd" and 1 < calls < 50, f"stopped with {why!r} after {calls} calls"
    assert spent == pytest.approx(real), f"you say ${spent:.6f}; the calls' usage costs ${real:.6f}"
    assert real <= 0.1, (
        f"the run spent ${real:.6f}, over the $0.1 budget: check before each call, against its worst case "
        "(reread 'Preview before you pay' and 'The price list' in notebook 09)"
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
        client, "Keep checking.", tools, MODEL, max_usd=first * 0.99, prices=dict(CAP_PRICES), max_tokens=4096
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
        client, agentlab.city_task(["Lima", "Quito"]), tools, MODEL, max_usd=5.0, prices=dict(CAP_PRICES)
    )
    assert why == "end_turn" and spent == pytest.approx(_spent(client)[0]), (why, spent)
    assert answered(messages), "every tool_use is answered, in order"
    _, why, _ = ex09.run_capped(
        _never_stops(), "Keep checking.", tools, MODEL, max_usd=5.0, prices=dict(CAP_PRICES), max_turns=3
    )
    assert why == "max_turns"
