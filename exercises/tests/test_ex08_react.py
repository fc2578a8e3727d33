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


def _runs_with_every_guess_wrong():
    from agentlab.experiments.tool_descriptions import run_once

    description, query_description = ex08.describe_lookup()
    return [run_once(description, query_description, seed=s, guess_wrong=1.0) for s in range(5)]


@pytest.mark.exercise("8.2")
@pytest.mark.points(1)
def test_the_model_picks_the_described_tool_and_answers():
    runs = _runs_with_every_guess_wrong()
    assert all(r["used_tool"] for r in runs), ("the model never called lookup: say in the description what it "
                                               "returns (today's temperature / weather) so it knows the tool fits")
    assert all(r["answered"] for r in runs), [r["stop"] for r in runs]


@pytest.mark.exercise("8.2")
@pytest.mark.points(1)
def test_every_first_input_is_the_format_the_tool_takes():
    runs = _runs_with_every_guess_wrong()
    refused = [r["refused_inputs"] for r in runs]
    assert refused == [0] * len(runs) and all(r["turns"] == 3 for r in runs), (
        f"lookup refused {refused} inputs per run: show the input format with an example value in quotes, "
        "e.g. 'e.g. \"Paris\"', in the description or the query's description")


@pytest.mark.exercise("8.2")
@pytest.mark.points(1)
def test_the_definition_states_the_unit_within_the_token_budget():
    from agentlab.experiments.tool_descriptions import definition_tokens, lookup_tool

    description, query_description = ex08.describe_lookup()
    cost = definition_tokens(lookup_tool(description, query_description))
    assert cost <= ex08.BUDGET_TOKENS, (f"the definition costs about {cost} tokens per turn, over the budget of "
                                        f"{ex08.BUDGET_TOKENS}: every turn re-sends it; cut words the model does not need")
    assert any(u in f"{description} {query_description}".casefold() for u in ("celsius", "°c")), (
        "say the unit of the temperature (degrees Celsius, °C): whoever reads the result needs it")
