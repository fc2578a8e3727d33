"""Graded tests for exercises/ex04_patterns.py. Run: make grade"""

import json

import pytest

import agentlab
from agentlab.client import connect  # noqa: F401  (imports the SDK at collection, outside the time limit)
from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.workflows.routing.run_router",
    "agentlab.workflows.evaluator.run_evaluator",
    why="Exercise 4 asks you to write the router and the bounded loop yourself",
)

ex04 = lazy_import("exercises.ex04_patterns")
MODEL = "claude-haiku-4-5"
ROUTES = {
    "billing": "You are the billing team. Write a short reply. Offer a refund check within 3 business days.",
    "technical": "You are the technical team. Write a short reply. Tell them to reinstall the app.",
}
FALLBACK = "You are the general help desk. Write a short reply. Promise a human will answer within a day."


def _fake(label_text):
    def fn(messages, info):
        return label_text if info.get("output_config") else "Help desk: noted."

    return agentlab.connect("sim", policy=agentlab.FunctionModel(fn), quiet=True)


@pytest.mark.exercise("4.1")
@pytest.mark.points(2)
def test_ticket_goes_to_its_branch():
    client = agentlab.connect("sim", quiet=True)
    out = ex04.route_ticket(client, "I was charged twice, please refund me.", dict(ROUTES), FALLBACK, MODEL)
    assert out.get("label") == "billing" and out.get("branch") == "billing", (
        f"expected the billing branch, got {out!r} (reread '2. Routing' in notebook 04)"
    )
    assert out.get("reply", "").startswith("Billing team"), (
        f"the reply should come from the billing prompt, got {out!r}"
    )


@pytest.mark.exercise("4.1")
@pytest.mark.points(1)
def test_other_goes_to_the_fallback():
    out = ex04.route_ticket(
        agentlab.connect("sim", quiet=True), "Do you have an office in Lisbon?", dict(ROUTES), FALLBACK, MODEL
    )
    assert out.get("label") == "other" and out.get("branch") == "fallback", f"'other' has no route: {out!r}"


@pytest.mark.exercise("4.1")
@pytest.mark.points(2)
def test_unknown_label_goes_to_the_fallback_not_a_key_error():
    out = ex04.route_ticket(_fake(json.dumps({"label": "refunds"})), "money back", dict(ROUTES), FALLBACK, MODEL)
    assert out == {"label": "refunds", "branch": "fallback", "reply": "Help desk: noted."}, f"got {out!r}"


@pytest.mark.exercise("4.1")
@pytest.mark.points(1)
def test_unreadable_classification_goes_to_the_fallback():
    out = ex04.route_ticket(_fake("billing, I think"), "money back", dict(ROUTES), FALLBACK, MODEL)
    assert out.get("label") is None and out.get("branch") == "fallback", f"got {out!r}"


def _counting(passes_on=None):
    calls = {"generate": 0, "evaluate": 0}

    def generate(task, feedback):
        calls["generate"] += 1
        return f"draft {calls['generate']}"

    def evaluate(task, result):
        calls["evaluate"] += 1
        return ("PASS", "") if passes_on == calls["evaluate"] else ("NEEDS_IMPROVEMENT", f"fix {result}")

    return generate, evaluate, calls


@pytest.mark.exercise("4.2")
@pytest.mark.points(2)
def test_loop_stops_when_the_evaluator_passes():
    generate, evaluate, calls = _counting(passes_on=2)
    out = ex04.bounded_loop(generate, evaluate, "task", max_rounds=5)
    assert out == {"result": "draft 2", "rounds": 2, "stopped_because": "accepted", "feedback": ""}, f"got {out!r}"


@pytest.mark.exercise("4.2")
@pytest.mark.points(2)
def test_loop_that_never_passes_stops_at_max_rounds_and_says_why():
    generate, evaluate, calls = _counting(passes_on=None)
    out = ex04.bounded_loop(generate, evaluate, "task", max_rounds=3)
    assert out.get("stopped_because") == "max_rounds" and out.get("rounds") == 3, f"got {out!r}"
    assert calls == {"generate": 3, "evaluate": 3}, (
        f"3 rounds: 3 drafts, 3 evaluations; got {calls} (reread '5. Evaluator-optimizer' in notebook 04b)"
    )
    assert out.get("feedback") == "fix draft 3", f"report the last feedback, got {out.get('feedback')!r}"


@pytest.mark.exercise("4.2")
@pytest.mark.points(1)
def test_nonsense_round_limit_is_refused():
    generate, evaluate, _ = _counting()
    with pytest.raises(ValueError, match="max_rounds"):
        ex04.bounded_loop(generate, evaluate, "task", max_rounds=0)
