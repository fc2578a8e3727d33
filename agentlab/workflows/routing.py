"""Routing: one classification step, then the preset branch for its label.

    label = model(classify, text)           # JSON output: {"label": one of routes, or "other"}
    branch = routes.get(label, fallback)    # code picks; an unknown label is never a KeyError
    answer = model(branch, text)

The classifier may only choose among the routes (plus ``"other"``), but a model you plug in may
still answer a label with no route, or nothing parseable: both go to the declared ``fallback``,
and the run says so (``StopReason.FALLBACK`` / ``UNPARSEABLE_OUTPUT``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentlab.run import Run, StopReason
from agentlab.workflows.step import Steps, UnparseableOutput, check_bound, guarded

MAX_ROUTES = 20
"""Most branches a router may have."""
CLASSIFY = "Classify the user's message into exactly one label from the schema's enum. Use \"other\" if no label fits."
"""The classification step's system prompt."""

ANY_LABEL = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}
"""What the router accepts back: any label (one with no route goes to the fallback, by design)."""


def label_schema(labels: list[str]) -> dict:
    """The classifier's output schema: one label from ``labels`` or ``"other"``."""
    return {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": [*labels, "other"]}},
        "required": ["label"],
        "additionalProperties": False,
    }


@guarded
def run_router(
    client: Any,
    text: str,
    routes: dict[str, str],
    *,
    fallback: str,
    model: str | None = None,
    max_tokens: int = 512,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Classify ``text``, then answer it with the system prompt of its route (``fallback`` if none fits)."""
    check_bound("len(routes)", len(routes), 1, MAX_ROUTES)
    if not isinstance(fallback, str) or not fallback.strip():
        raise ValueError(
            f"fallback={fallback!r}: declare the branch for unknown labels as a system prompt, "
            "e.g. 'You are the general help desk. Write a short reply.'"
        )
    with Steps(
        client, "routing", limits=limits, model=model, trace=trace, max_tokens=max_tokens, routes=list(routes)
    ) as wf:
        why = ""
        try:
            label = wf.ask(
                "router/classify", text, system=CLASSIFY, schema=label_schema(list(routes)), check=ANY_LABEL
            )["label"]
        except UnparseableOutput as e:
            label, why = None, f"the classifier's output could not be read ({e.problem}); the fallback answered"
        if label in routes:
            answer = wf.ask(f"router/branch[{label}]", text, system=routes[label])
            return wf.finish(StopReason.COMPLETED, answer, f"routed to {label!r}")
        why = why or f"label {label!r} has no route (routes: {', '.join(routes)}); the fallback answered"
        answer = wf.ask("router/fallback", text, system=fallback)
        return wf.finish(StopReason.FALLBACK if label is not None else StopReason.UNPARSEABLE_OUTPUT, answer, why)
