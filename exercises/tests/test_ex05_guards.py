"""Graded tests for exercises/ex05_guards.py. Run: make grade"""

import pytest

import agentlab
from agentlab.grading import answered, lazy_import

ex05 = lazy_import("exercises.ex05_guards")


# Exercise 5.1: the student's own loop with a wall clock, a repeated-call and a no-progress guard, against models that
# never stop.

YOUR_OWN_GUARDS = pytest.mark.forbids(
    "agentlab.loop.run_agent",
    "agentlab.loop.execute_tools",
    "agentlab.guards.Limits.start",
    "agentlab.guards.Budget.check",
    "agentlab.guards.canonical_call",
    why="Exercise 5.1 asks you to write the loop and its guards yourself",
)
MODEL = "claude-haiku-4-5"


def _guarded(tmp_path, policy, clock=None, **limits):
    from agentlab.sim.clock import SimClock

    client = agentlab.connect("sim", policy=policy, quiet=True)
    clock = clock or SimClock()
    options = {"max_seconds": 60.0, "max_idle_turns": 100, "max_repeats": 100, **limits}
    messages, why = ex05.run_guarded(
        client, "Which is warmer, Paris or London?", agentlab.task_tools(tmp_path), MODEL, clock=clock, **options
    )
    return messages, why, len(agentlab.meter_of(client).calls)


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_the_wall_clock_stops_before_the_call_that_would_start_late(tmp_path):
    from agentlab.sim.clock import SimClock
    from agentlab.sim.models.misbehaving import Looper, SlowModel

    for latency, calls in ((4.0, 3), (5.0, 2)):  # calls start at 0, 4, 8 (12 is late); at 0, 5 (10 is not before 10)
        clock = SimClock()
        messages, why, made = _guarded(tmp_path, SlowModel(clock, latency, Looper()), clock=clock, max_seconds=10.0)
        assert (why, made) == ("max_wall_time", calls), (
            f"each call takes {latency:g} s and the limit is 10 s: expected {calls} calls then 'max_wall_time', "
            f"got {made} calls and {why!r}. A call may start only while less than max_seconds have passed: at "
            "exactly 10 s the time is up (reread 'A slow model, on a clock that does not sleep' in notebook 05)"
        )
        assert answered(messages), "the conversation you return must answer every tool_use"
    messages, why, made = _guarded(tmp_path, Looper(), max_seconds=0.0)
    assert (why, made) == ("max_wall_time", 0), (
        f"with max_seconds=0 the time is up before the first call: expected no call and 'max_wall_time', got {made} "
        f"calls and {why!r} (the check comes before each call, the first one too)"
    )


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_no_progress_counts_errors_and_repeats_as_idle_and_resets_on_news(tmp_path):
    from agentlab.sim.models.misbehaving import Looper, Wanderer

    cases = (
        (Wanderer(), 2, "every result is an error (made-up places)"),
        (Looper(), 3, "the first result is news, every later one repeats it"),
        (
            agentlab.FunctionModel(
                lambda m, info: [
                    {"type": "tool_use", "name": "get_weather", "input": {"city": ["Paris", "London"][len(m) > 4]}}
                ]
            ),
            5,
            "Paris twice, then London: the news on turn 3 starts the count again",
        ),
    )
    for policy, calls, why_so in cases:
        messages, why, made = _guarded(tmp_path, policy, max_idle_turns=2)
        assert (why, made) == ("no_progress", calls), (
            f"{why_so}: with max_idle_turns=2 expected {calls} calls then 'no_progress', got {made} and {why!r} "
            "(a turn makes progress only with a successful result not seen before; reread 'A model that wanders' in notebook 05)"
        )
        assert answered(messages)


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_a_model_that_stops_ends_the_run_itself_and_max_turns_bounds_the_rest(tmp_path):
    messages, why, made = _guarded(tmp_path, None)
    assert why == "end_turn", f"the model answered, so the run ends with its stop_reason 'end_turn'; got {why!r}"
    assert messages[-1]["role"] == "assistant", (
        "the conversation you return ends with the model's answer: append its last reply too, as in exercise 2.1"
    )
    cities = agentlab.city_names()
    news = agentlab.FunctionModel(
        lambda m, info: [{"type": "tool_use", "name": "get_weather", "input": {"city": cities[len(m) // 2]}}]
    )
    messages, why, made = _guarded(tmp_path, news, max_turns=4, max_idle_turns=1)
    assert (why, made) == ("max_turns", 4), (
        f"a new city every turn is progress, so only max_turns=4 stops it: got {made} calls and {why!r}"
    )
    assert answered(messages)


def _asks(*inputs_per_turn):
    """A model that asks, turn after turn, for get_weather with each turn's inputs (cycling), and never stops."""
    return agentlab.FunctionModel(
        lambda m, info: [
            {"type": "tool_use", "name": "get_weather", "input": i}
            for i in inputs_per_turn[(len(m) // 2) % len(inputs_per_turn)]
        ]
    )


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_the_kth_identical_request_is_answered_and_no_call_follows(tmp_path):
    from agentlab.sim.models.misbehaving import Looper

    for k in (2, 3, 5):
        messages, why, made = _guarded(tmp_path, Looper(), max_repeats=k)
        assert (why, made) == ("repeated_call", k), (
            f"the Looper asks for the same call every turn: with max_repeats={k} expected {k} calls then "
            f"'repeated_call', got {made} calls and {why!r}. The k-th request is still run and answered; no model "
            "call follows it (reread 'A model that loops' in notebook 05)"
        )
        uses = [b for m in messages if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use"]
        assert len(uses) == k and messages[-1]["role"] == "user", (
            f"the k-th request is still in the conversation, run and answered: found {len(uses)} of the {k} requests"
        )
        assert answered(messages), "the k-th request is answered: the conversation stays one the API accepts"


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_key_order_does_not_make_a_new_call_but_a_new_value_does(tmp_path):
    same = _asks([{"city": "Paris", "day": {"from": 1, "to": 2}}], [{"day": {"to": 2, "from": 1}, "city": "Paris"}])
    messages, why, made = _guarded(tmp_path, same, max_repeats=3)
    assert (why, made) == ("repeated_call", 3), (
        "the same input with its keys in another order (nested dicts too) is the same call: expected 3 calls then "
        f"'repeated_call', got {made} calls and {why!r}"
    )
    other = _asks([{"city": "Paris"}], [{"city": "paris"}], [{"city": "Paris "}])
    messages, why, made = _guarded(tmp_path, other, max_repeats=3, max_turns=5)
    assert (why, made) == ("max_turns", 5), (
        "Paris, paris and 'Paris ' are three different inputs, each asked at most twice in 5 turns: only max_turns=5 "
        f"stops it, got {made} calls and {why!r}"
    )


@pytest.mark.exercise("5.1")
@YOUR_OWN_GUARDS
@pytest.mark.points(1)
def test_every_request_counts_two_in_one_reply_too(tmp_path):
    twice = _asks([{"city": "Oslo"}, {"city": "Oslo"}])
    messages, why, made = _guarded(tmp_path, twice, max_repeats=3)
    assert (why, made) == ("repeated_call", 2), (
        "each reply asks for Oslo twice: after the 2nd reply Oslo was asked 4 times (3 or more), so expected 2 calls "
        f"then 'repeated_call', got {made} calls and {why!r}. Count every request, not every turn"
    )
    assert answered(messages), "both calls of the last reply are answered"
    messages, why, made = _guarded(tmp_path, twice, max_repeats=2)
    assert (why, made) == ("repeated_call", 1), f"max_repeats=2 is reached within the first reply: got {made}, {why!r}"
