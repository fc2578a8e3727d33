"""Graded tests for exercises/ex08_react.py. Run: make grade

Exercise 8.3 is also graded on corpora drawn at random here, with the expected answer worked out by the
test from the rule the exercise states.
"""

import os
import random

import pytest

from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.react.parse_action", why="Exercise 8.1 asks you to parse the action yourself"
)

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
    for bad in (
        "Thought: hmm",
        "Action: get_weather('Paris')",
        "Action: f(x=__import__('os').getcwd())",
        "Action: get_weather",
    ):
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
    assert all(r["used_tool"] for r in runs), (
        "the model never called lookup: say in the description what it "
        "returns (today's temperature / weather) so it knows the tool fits"
    )
    assert all(r["answered"] for r in runs), [r["stop"] for r in runs]


@pytest.mark.exercise("8.2")
@pytest.mark.points(1)
def test_every_first_input_is_the_format_the_tool_takes():
    runs = _runs_with_every_guess_wrong()
    refused = [r["refused_inputs"] for r in runs]
    assert refused == [0] * len(runs) and all(r["turns"] == 3 for r in runs), (
        f"lookup refused {refused} inputs per run: show the input format with an example value in quotes, "
        "e.g. 'e.g. \"Paris\"', in the description or the query's description"
    )


@pytest.mark.exercise("8.2")
@pytest.mark.points(1)
def test_the_definition_states_the_unit_within_the_token_budget():
    from agentlab.experiments.tool_descriptions import definition_tokens, lookup_tool

    description, query_description = ex08.describe_lookup()
    cost = definition_tokens(lookup_tool(description, query_description))
    assert cost <= ex08.BUDGET_TOKENS, (
        f"the definition costs about {cost} tokens per turn, over the budget of "
        f"{ex08.BUDGET_TOKENS}: every turn re-sends it; cut words the model does not need"
    )
    assert any(u in f"{description} {query_description}".casefold() for u in ("celsius", "°c")), (
        "say the unit of the temperature (degrees Celsius, °C): whoever reads the result needs it"
    )


@pytest.fixture
def rng():
    """A random generator seeded from the OS: new cases on every run."""
    return random.Random(os.urandom(16))


def _arranged(docs, scores, budget, count):
    """The rule exercise 8.3 states, worked out here to check random cases."""
    kept, used = [], 0
    for i in sorted(range(len(docs)), key=lambda i: (-scores[i], i)):
        if used + count(docs[i]) <= budget:
            kept, used = kept + [docs[i]], used + count(docs[i])
    return kept[0::2] + kept[1::2][::-1]


@pytest.mark.exercise("8.3")
@pytest.mark.points(1)
def test_the_best_documents_sit_at_the_edges_and_the_weakest_in_the_middle():
    docs = ["a", "bb", "ccc", "dddd", "eeeee"]
    scores = [0.1, 0.9, 0.5, 0.7, 0.3]
    got = ex08.arrange_context(docs, scores, budget=100, count=len)
    assert got == ["bb", "ccc", "a", "eeeee", "dddd"], "rank 1 first, rank 2 last, rank 3 second, ..."
    assert ex08.arrange_context(docs, scores, budget=0, count=len) == []


@pytest.mark.exercise("8.3")
@pytest.mark.points(1)
def test_a_document_that_does_not_fit_is_skipped_and_smaller_ones_still_go_in():
    docs = ["x" * 50, "y" * 80, "z" * 10, "w" * 30]
    scores = [0.9, 0.8, 0.1, 0.5]
    got = ex08.arrange_context(docs, scores, budget=100, count=len)
    assert sum(map(len, got)) <= 100
    assert got == ["x" * 50, "z" * 10, "w" * 30], "the 80-token document does not fit after the 50: skip it, keep going"
    assert docs == ["x" * 50, "y" * 80, "z" * 10, "w" * 30] and scores == [0.9, 0.8, 0.1, 0.5]


@pytest.mark.exercise("8.3")
@pytest.mark.points(1)
def test_random_corpora_follow_the_rule(rng):
    from agentlab.api.tokens import text_tokens

    for _ in range(30):
        n = rng.randint(0, 12)
        docs = [" ".join(f"w{rng.randint(0, 99)}" for _ in range(rng.randint(1, 60))) for _ in range(n)]
        scores = [rng.choice([0.1, 0.5, 0.9, rng.random()]) for _ in range(n)]
        budget = rng.randint(0, 400)
        assert ex08.arrange_context(list(docs), list(scores), budget, text_tokens) == _arranged(
            docs, scores, budget, text_tokens
        )
