"""Graded exercises for notebooks 04 and 04b (the five workflow patterns): 4.1 routing (04), 4.2 the evaluator
(04b). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

import json
from typing import Any, Callable


def route_ticket(client: Any, ticket: str, routes: dict[str, str], fallback: str, model: str) -> dict:
    """Exercise 4.1: write a router with a fallback.

    Classify: one call, client.messages.create(model=model, max_tokens=64, system="Classify the
    ticket.", messages=[{"role": "user", "content": ticket}], output_config={"format": {"type":
    "json_schema", "schema": {"type": "object", "properties": {"label": {"type": "string", "enum":
    [*routes, "other"]}}, "required": ["label"]}}}); the label is json.loads(first text)["label"].
    Branch: one call with the same messages (no output_config) and system=routes[label].
    A label that is not a key of routes, or a reply that is not JSON with a "label", must not
    raise: answer with system=fallback instead. Return {"label": <label, or None if unreadable>,
    "branch": <the route key used, or "fallback">, "reply": <the branch's first text block>}.
    """
    ### BEGIN SOLUTION
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": [*routes, "other"]}},
        "required": ["label"],
    }
    messages = [{"role": "user", "content": ticket}]
    first = client.messages.create(
        model=model,
        max_tokens=64,
        system="Classify the ticket.",
        messages=messages,
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    try:
        label = json.loads(first.content[0].text)["label"]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        label = None
    branch = label if isinstance(label, str) and label in routes else "fallback"
    system = routes[branch] if branch != "fallback" else fallback
    reply = client.messages.create(model=model, max_tokens=256, system=system, messages=messages)
    return {"label": label, "branch": branch, "reply": reply.content[0].text}
    ### END SOLUTION


def bounded_loop(
    generate: Callable[[str, str | None], str],
    evaluate: Callable[[str, str], tuple[str, str]],
    task: str,
    max_rounds: int,
) -> dict:
    """Exercise 4.2: bound the cookbook's `while True` evaluator loop and report why it stopped.

    The cookbook loop: result = generate(task, None); then forever: status, feedback =
    evaluate(task, result); if status == "PASS" return result; result = generate(task, feedback).
    Yours makes at most max_rounds evaluations (and so never more than max_rounds generations).
    max_rounds must be a whole number >= 1: otherwise raise ValueError naming max_rounds and the value.
    Return {"result": the last result, "rounds": evaluations made, "stopped_because": "accepted" or
    "max_rounds", "feedback": the last feedback ("" when accepted)}.
    """
    ### BEGIN SOLUTION
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a whole number >= 1, got {max_rounds!r}")
    result = generate(task, None)
    feedback = ""
    for rnd in range(1, max_rounds + 1):
        status, feedback = evaluate(task, result)
        if status == "PASS":
            return {"result": result, "rounds": rnd, "stopped_because": "accepted", "feedback": ""}
        if rnd < max_rounds:
            result = generate(task, feedback)
    return {"result": result, "rounds": max_rounds, "stopped_because": "max_rounds", "feedback": feedback}
    ### END SOLUTION
