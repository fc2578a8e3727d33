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


@pytest.mark.exercise("9.2")
@pytest.mark.points(3)
def test_prediction_matches_every_turn_of_a_run(tmp_path):
    client = agentlab.connect("sim", model="claude-sonnet-4-6", quiet=True)  # tokenizer factor 1: plain counts
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London", "Oslo", "Cairo"]), agentlab.task_tools(tmp_path)
    )
    results = [m["content"] for m in run.messages[2::2]]  # the user messages after each assistant reply
    for k in range(1, run.model_calls):
        prev, turn = run.turns[k - 1], run.turns[k]
        got = ex09.predict_next_input(prev.input_tokens, prev.output_tokens, results[k - 1])
        assert got == turn.input_tokens, f"turn {k + 1}: the simulator counted {turn.input_tokens}, you predicted {got}"
