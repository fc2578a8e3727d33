"""Graded tests for exercises/ex05_guards.py. Run: make grade"""

import pytest

from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids("agentlab.guards.canonical_call",
                                  why="Exercise 5.1 asks you to write repeated-call detection yourself")

ex05 = lazy_import("exercises.ex05_guards")


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_the_third_identical_call_is_found():
    calls = [("get_weather", {"city": "Paris"}), ("save_note", {"text": "x"}), ("get_weather", {"city": "Paris"}),
             ("get_weather", {"city": "Paris"})]
    got = ex05.first_repeat(calls, 3)
    assert got == 3, f"the 3rd get_weather(Paris) is at position 3; got {got!r}"


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_key_order_does_not_matter_but_values_do():
    calls = [("t", {"a": 1, "b": {"x": 1, "y": 2}}), ("t", {"b": {"y": 2, "x": 1}, "a": 1}), ("t", {"a": 2, "b": {}})]
    assert ex05.first_repeat(calls, 2) == 1, "inputs equal up to key order (nested too) are the same call"
    assert ex05.first_repeat([("t", {"a": 1}), ("t", {"a": 2}), ("u", {"a": 1})], 2) is None, \
        "different values or different tools are different calls"


@pytest.mark.exercise("5.1")
@pytest.mark.points(1)
def test_k_1_null_input_and_bad_k():
    assert ex05.first_repeat([("t", None)], 1) == 0, "with k=1 the first call already reaches k"
    assert ex05.first_repeat([], 2) is None
    for bad in (0, -1, 2.5, "3"):
        with pytest.raises(ValueError) as e:
            ex05.first_repeat([("t", {})], bad)
        assert repr(bad) in str(e.value), f"the error should name the bad value {bad!r}: {e.value}"
