"""Graded tests for exercises/ex08_react.py. Run: make grade

Exercise 8.3 is also graded on corpora drawn at random here, with the expected answer worked out by the
test from the rule the exercise states.
"""

import os
import random

import pytest

import agentlab
from agentlab.grading import lazy_import

YOUR_OWN_REACT = pytest.mark.forbids(
    "agentlab.react.parse_action",
    "agentlab.react.run_react",
    "agentlab.loop.run_agent",
    why="Exercise 8.1 asks you to write the ReAct loop and its parsing yourself",
)

ex08 = lazy_import("exercises.ex08_react")
MODEL = "claude-haiku-4-5"


@pytest.mark.exercise("8.1")
@YOUR_OWN_REACT
@pytest.mark.points(1)
def test_the_react_loop_does_the_city_task_with_the_simulated_react_model(tmp_path):
    from agentlab.sim.models.react import ReactWriter

    client = agentlab.connect("sim", policy=ReactWriter(), quiet=True)
    task = agentlab.city_task(["Paris", "London"], "en")  # the answer is checked in English, whatever AGENTLAB_LANG
    answer = ex08.react_loop(client, task, agentlab.task_tools(tmp_path), MODEL)
    assert isinstance(answer, str) and "Paris" in answer and "London" in answer, (
        f"the model's Final Answer compares Paris and London; got {answer!r} (reread 'One ReAct run with malformed actions' in notebook 08)"
    )
    assert (tmp_path / "notes.md").exists(), "the model's save_note action should have run"
    sent = [c for c in agentlab.meter_of(client).calls]
    assert len(sent) >= 3, f"a ReAct run of this task takes several calls; yours made {len(sent)}"


def _inventing_model(seen: list):
    """Writes its action and then, unless cut, an invented Observation and an answer from it."""
    import agentlab

    def reply(messages, request):
        seen.append([str(m["content"]) for m in messages if m["role"] == "assistant"])
        observed = [m["content"] for m in messages if m["role"] == "user" and "Observation:" in str(m["content"])]
        if observed:
            return f"Thought: I have the result.\nFinal Answer: {str(observed[-1]).split('Observation:', 1)[1].strip()}"
        return (
            'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
            "Observation: Paris is 35 C and sunny.\nThought: That settles it.\nFinal Answer: Paris is 35 C."
        )

    return agentlab.FunctionModel(reply)


@pytest.mark.exercise("8.1")
@YOUR_OWN_REACT
@pytest.mark.points(1)
def test_an_observation_the_model_invents_never_reaches_the_answer(tmp_path):
    seen: list = []
    client = agentlab.connect("sim", policy=_inventing_model(seen), quiet=True)
    tools = agentlab.task_tools(tmp_path)
    answer = ex08.react_loop(client, "How warm is Paris today?", tools, MODEL)
    real = agentlab.run_tool({t.name: t for t in tools}, "get_weather", {"city": "Paris"}).content
    assert answer is not None and "35" not in answer and real in answer, (
        f"the model wrote its own 'Observation: Paris is 35 C' after its action; the answer should come from the "
        f"tool's real result ({real!r}), got {answer!r}. Cut each reply before 'Observation:' (stop_sequences), "
        "as run_react does (reread 'The prompt' in notebook 08)"
    )
    invented = [text for history in seen for text in history if "Observation:" in text]
    assert not invented, (
        f"the conversation you sent back holds the model's own invented Observation: {invented[0]!r}; the API can "
        "cut each reply before it (stop_sequences), so only your code ever writes an Observation"
    )


@pytest.mark.exercise("8.1")
@YOUR_OWN_REACT
@pytest.mark.points(1)
def test_a_reply_that_is_no_action_gets_a_format_message_and_the_loop_is_bounded(tmp_path):
    import agentlab

    asked: list = []

    def rambling(messages, request):
        asked.append((messages[-1]["role"], str(messages[-1]["content"])) if len(messages) > 1 else None)
        return "I think it is probably sunny somewhere."

    client = agentlab.connect("sim", policy=agentlab.FunctionModel(rambling), quiet=True)
    answer = ex08.react_loop(client, "How warm is Paris today?", agentlab.task_tools(tmp_path), MODEL, max_turns=3)
    assert answer is None and len(asked) == 3, (
        f"a model that never writes an action or a final answer: 3 calls with max_turns=3, then None; "
        f"got {len(asked)} calls and {answer!r}"
    )
    told = asked[1:]
    assert all(
        role == "user" and text.strip() and not text.lstrip().startswith("Observation:") for role, text in told
    ), (
        f"after a reply with no action, your next message (a user message) tells the model what to write; it is no "
        f"'Observation:', since no tool ran. The model read {told!r}"
    )


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
        "returns (today's temperature / weather) so it knows the tool fits (reread 'Same tool, three descriptions' in notebook 08)"
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
    assert got == ["bb", "ccc", "a", "eeeee", "dddd"], (
        "rank 1 first, rank 2 last, rank 3 second, ... (reread 'Position and length: what we measure, what we can only cite' in notebook 08b)"
    )
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
