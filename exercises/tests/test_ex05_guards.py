"""Graded tests for exercises/ex05_guards.py. Run: make grade"""

import pytest

import agentlab
from agentlab.grading import answered, lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.guards.canonical_call", why="Exercise 5.1 asks you to write repeated-call detection yourself"
)

ex05 = lazy_import("exercises.ex05_guards")


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_the_third_identical_call_is_found():
    calls = [
        ("get_weather", {"city": "Paris"}),
        ("save_note", {"text": "x"}),
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Paris"}),
    ]
    got = ex05.first_repeat(calls, 3)
    assert got == 3, f"the 3rd get_weather(Paris) is at position 3; got {got!r}"


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_key_order_does_not_matter_but_values_do():
    calls = [("t", {"a": 1, "b": {"x": 1, "y": 2}}), ("t", {"b": {"y": 2, "x": 1}, "a": 1}), ("t", {"a": 2, "b": {}})]
    assert ex05.first_repeat(calls, 2) == 1, "inputs equal up to key order (nested too) are the same call"
    assert ex05.first_repeat([("t", {"a": 1}), ("t", {"a": 2}), ("u", {"a": 1})], 2) is None, (
        "different values or different tools are different calls"
    )


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_k_1_null_input_and_bad_k():
    assert ex05.first_repeat([("t", None)], 1) == 0, "with k=1 the first call already reaches k"
    assert ex05.first_repeat([], 2) is None
    for bad in (0, -1, 2.5, "3"):
        with pytest.raises(ValueError) as e:
            ex05.first_repeat([("t", {})], bad)
        assert repr(bad) in str(e.value), f"the error should name the bad value {bad!r}: {e.value}"


# Exercise 5.2: the student's own loop with a wall clock and a no-progress guard, against models that never stop.

YOUR_OWN_GUARDS = pytest.mark.forbids(
    "agentlab.loop.run_agent",
    "agentlab.loop.execute_tools",
    "agentlab.guards.Limits.start",
    "agentlab.guards.Budget.check",
    why="Exercise 5.2 asks you to write the loop and its guards yourself",
)
MODEL = "claude-haiku-4-5"


def _guarded(tmp_path, policy, clock=None, **limits):
    from agentlab.sim.clock import SimClock

    client = agentlab.connect("sim", policy=policy, quiet=True)
    clock = clock or SimClock()
    options = {"max_seconds": 60.0, "max_idle_turns": 100, **limits}
    messages, why = ex05.run_guarded(
        client, "Which is warmer, Paris or London?", agentlab.task_tools(tmp_path), MODEL, clock=clock, **options
    )
    return messages, why, len(agentlab.meter_of(client).calls)


@pytest.mark.exercise("5.2")
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


@pytest.mark.exercise("5.2")
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


@pytest.mark.exercise("5.2")
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
