"""Graded tests for exercises/ex08_react.py. Run: make grade"""

import pytest

from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids("agentlab.react.parse_action",
                                  why="Exercise 8.1 asks you to parse the action yourself")

ex08 = lazy_import("exercises.ex08_react")


@pytest.mark.exercise("8.1")
@pytest.mark.points(1)
def test_reads_a_call_with_keyword_arguments():
    got = ex08.parse_call_syntax("Thought: I need Paris.\nAction: get_weather(city='Paris', days=3)")
    assert got == ("get_weather", {"city": "Paris", "days": 3}), got


@pytest.mark.exercise("8.1")
@pytest.mark.points(1)
def test_reads_literals_of_every_kind_and_no_arguments():
    got = ex08.parse_call_syntax('Action: f(a="x y", b=-1.5, c=True, d=None, e=[1, "2"])')
    assert got == ("f", {"a": "x y", "b": -1.5, "c": True, "d": None, "e": [1, "2"]}), got
    assert ex08.parse_call_syntax("Action: free_seats()") == ("free_seats", {})


@pytest.mark.exercise("8.1")
@pytest.mark.points(1)
def test_refuses_what_is_not_a_safe_keyword_call():
    for bad in ("Thought: hmm", "Action: get_weather('Paris')", "Action: f(x=__import__('os').getcwd())",
                "Action: get_weather"):
        with pytest.raises(ValueError):
            ex08.parse_call_syntax(bad)
