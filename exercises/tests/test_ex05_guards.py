"""Graded tests for exercises/ex05_guards.py. Run: make grade"""

import pytest

from agentlab.grading import lazy_import

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


TEXT, CALL = (
    {"type": "text", "text": "Let me save the note."},
    {"type": "tool_use", "id": "t1", "name": "save_note", "input": {}},
)


@pytest.mark.exercise("5.2")
@pytest.mark.points(1)
def test_tool_use_runs_tools_a_pause_is_sent_back_and_an_ended_turn_is_checked():
    assert ex05.next_action("tool_use", [TEXT, CALL]) == "run tools"
    assert ex05.next_action("pause_turn", [TEXT]) == "send back", (
        "a paused turn is not over: send the reply back as it is so the server goes on"
    )
    for reason in ("end_turn", "stop_sequence"):
        got = ex05.next_action(reason, [TEXT])
        assert got == "check done", f"after {reason} the harness checks whether the task is done; got {got!r}"


@pytest.mark.exercise("5.2")
@pytest.mark.points(1)
def test_a_cut_tool_call_asks_for_more_tokens_and_a_refusal_stops():
    assert ex05.next_action("max_tokens", [TEXT, CALL]) == "raise max_tokens", (
        "a tool call cut by max_tokens may have a cut input: never run it, ask again with more tokens"
    )
    assert ex05.next_action("max_tokens", []) == "raise max_tokens", "nothing was written: more tokens, not 'continue'"
    assert ex05.next_action("max_tokens", [CALL, TEXT]) == "continue", "the reply was cut in its text: let it go on"
    for content in ([], [TEXT], [TEXT, CALL]):
        assert ex05.next_action("refusal", content) == "stop", "a refusal stops, whatever the reply holds"


@pytest.mark.exercise("5.2")
@pytest.mark.points(1)
def test_a_full_window_stops_and_an_unknown_stop_reason_is_an_error():
    assert ex05.next_action("model_context_window_exceeded", [TEXT]) == "stop"
    for bad in ("pause_run", "", None, "END_TURN"):
        with pytest.raises(ValueError) as e:
            ex05.next_action(bad, [TEXT])
        assert "stop_reason" in str(e.value) and repr(bad) in str(e.value), (
            f"the error should name stop_reason and the value {bad!r}: {e.value}"
        )
    assert set(ex05.ACTIONS) >= {"run tools", "send back", "check done", "continue", "raise max_tokens", "stop"}
