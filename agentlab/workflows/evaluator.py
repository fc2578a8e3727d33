"""Evaluator-optimizer: one model drafts, another scores the draft, the draft is revised; bounded.

    draft = model(write, task)
    for round in 1..max_rounds:                    # the code, not the model, bounds the loop
        verdict = model(critique, task, draft)     # JSON: {"score": 0-10, "reasons": [...]}
        if verdict.score >= min_score: stop(ACCEPTED)
        if round < max_rounds: draft = model(write, task, draft, verdict.reasons)
    stop(MAX_ROUNDS)                               # says the limit, the last score, what was still wrong

This is a loop, but a workflow: its exits and its roles are fixed in code (the course text's point).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentlab.run import Run, StopReason
from agentlab.workflows.step import Steps, UnparseableOutput, check_bound, guarded

VERDICT = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 0, "maximum": 10},
        "reasons": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["score", "reasons"],
    "additionalProperties": False,
}
"""The critic's output schema."""
WRITER = "Write the text the task asks for. If feedback is given, revise the draft to address it."
CRITIC = "Score the draft from 0 to 10 against the task's requirements; list one reason per unmet requirement."


@guarded
def run_evaluator(
    client: Any,
    task: str,
    *,
    max_rounds: int = 3,
    min_score: int = 10,
    writer: str = WRITER,
    critic: str = CRITIC,
    model: str | None = None,
    max_tokens: int = 512,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Draft, score, revise until a draft scores ``min_score`` or ``max_rounds`` critiques were made."""
    check_bound("max_rounds", max_rounds, 1, 20)
    check_bound("min_score", min_score, 0, 10)
    with Steps(
        client,
        "evaluator",
        limits=limits,
        model=model,
        trace=trace,
        max_tokens=max_tokens,
        max_rounds=max_rounds,
        min_score=min_score,
    ) as wf:
        draft = wf.ask("evaluator/write[1]", task, system=writer)
        score, reasons = None, []
        for rnd in range(1, max_rounds + 1):  # bounded: at most max_rounds critiques
            try:
                verdict = wf.ask(f"evaluator/critique[{rnd}]", f"{task}\nDraft: {draft}", system=critic, schema=VERDICT)
            except UnparseableOutput as e:
                return wf.finish(
                    StopReason.UNPARSEABLE_OUTPUT, draft, f"round {rnd}: the critique could not be read: {e}"
                )
            score, reasons = verdict["score"], verdict["reasons"]
            if score >= min_score:  # the exit is a number checked in code
                return wf.finish(
                    StopReason.ACCEPTED, draft, f"accepted in round {rnd} with score {score}/10 (needs {min_score})"
                )
            if rnd < max_rounds:
                revise = f"{task}\nPrevious draft: {draft}\nFeedback: {'; '.join(reasons) or 'raise the score'}"
                draft = wf.ask(f"evaluator/write[{rnd + 1}]", revise, system=writer)
        return wf.finish(StopReason.MAX_ROUNDS, draft, _not_accepted(max_rounds, score, min_score, reasons))


def _not_accepted(max_rounds: int, score: Any, min_score: int, reasons: list[str]) -> str:
    """Why a run ended at its round limit: the last score, the bar, and what the critic still found wrong."""
    return (
        f"not accepted after max_rounds={max_rounds}: last score "
        f"{score}/10 (needs {min_score}); still wrong: {'; '.join(reasons) or 'no reason given'}"
    )
