"""Orchestrator-workers: a model plans the subtasks, workers do them concurrently, a model joins them.

    plan = model(task, schema=PLAN)              # parsed and checked: 1..max_subtasks subtasks
    parts = [worker(s) for s in plan] at once    # each: code gathers context, one model call
    answer = model(synthesise, parts)            # only the parts that succeeded

The plan comes from the model, but what happens to it is fixed in code: how many workers at most,
how long each may take, what a failure does. An unreadable plan ends the run
(``UNPARSEABLE_OUTPUT``); a failed or slow worker is left out and named (``WORKER_FAILED``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from agentlab.run import Run, StopReason
from agentlab.workflows.parallel import check_pool
from agentlab.workflows.step import Steps, UnparseableOutput, guarded

PLAN = {
    "type": "object",
    "properties": {
        "subtasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1},
                    "instruction": {"type": "string", "minLength": 1},
                },
                "required": ["title", "instruction"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["subtasks"],
    "additionalProperties": False,
}
"""The orchestrator's output schema: a list of subtasks, each a title and an instruction."""
PLANNER = "Plan: break the task into independent subtasks, one per item the task names."
"""The planning step's system prompt."""


@guarded
def run_orchestrator(
    client: Any,
    task: str,
    *,
    worker_system: str,
    synth_system: str,
    context: Callable[[dict], str] | None = None,
    max_subtasks: int = 8,
    max_workers: int = 4,
    worker_timeout: float = 60.0,
    model: str | None = None,
    max_tokens: int = 512,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Plan ``task`` into subtasks, run a worker per subtask concurrently, synthesise what came back.

    ``context(subtask)`` (code, optional) returns data for a worker's prompt, e.g. a tool result;
    if it raises, that worker fails and the others go on. A plan longer than ``max_subtasks`` is
    refused; ``max_workers`` workers run at a time.
    """
    check_pool(max_subtasks, max_workers, worker_timeout, "max_subtasks")
    with Steps(client, "orchestrator", limits=limits, model=model, trace=trace, max_tokens=max_tokens, task=task) as wf:
        subtasks, why = _plan(wf, task, max_subtasks)  # the model writes the plan; code reads and checks it
        if why:
            return wf.finish(StopReason.UNPARSEABLE_OUTPUT, "", why)
        paths = [f"orchestrator/worker[{i}]" for i in range(1, len(subtasks) + 1)]
        jobs = [
            (p, lambda p=p, s=s: wf.ask(p, _brief(s, context), system=worker_system)) for p, s in zip(paths, subtasks)
        ]
        out = wf.concurrently(jobs, max_workers=max_workers, timeout=worker_timeout)  # workers run at the same time
        parts = [(s["title"], out[p].output) for p, s in zip(paths, subtasks) if out[p].status == "ok"]
        failed = [s["title"] for p, s in zip(paths, subtasks) if out[p].status != "ok"]
        if not parts:
            return wf.finish(StopReason.WORKER_FAILED, "", f"every worker failed: {failed}")
        joined = "\n".join(f"{title}: {text}" if not text.startswith(title) else text for title, text in parts)
        answer = wf.ask("orchestrator/synthesise", f"Task: {task}\nParts:\n{joined}", system=synth_system)
        if failed:
            why = f"workers for {failed} failed or timed out; synthesised from the other {len(parts)}"
            return wf.finish(StopReason.WORKER_FAILED, answer, why)
        return wf.finish(StopReason.COMPLETED, answer, f"{len(parts)} workers synthesised")


def _plan(wf: Steps, task: str, max_subtasks: int) -> tuple[list[dict], str]:
    """The planner's subtasks, read and checked in code; ``([], why)`` when the plan cannot be used."""
    try:
        subtasks = wf.ask("orchestrator/plan", task, system=PLANNER, schema=PLAN)["subtasks"]
    except UnparseableOutput as e:
        return [], f"the plan could not be read: {e}"
    titles = [s["title"] for s in subtasks]
    if len(subtasks) > max_subtasks or len(set(titles)) < len(titles):
        why = (
            f"the plan has {len(subtasks)} subtasks, max_subtasks={max_subtasks}"
            if len(subtasks) > max_subtasks
            else f"the plan repeats a subtask title: {titles}"
        )
        wf.fail("orchestrator/plan/check", "rejected", why)
        return [], f"invalid plan: {why}"
    return subtasks, ""


def _brief(subtask: dict, context: Callable[[dict], str] | None) -> str:
    """A worker's prompt: its instruction and the data ``context`` (code) fetched for it; if that raises, the
    worker fails and the others go on."""
    data = context(subtask) if context else ""
    return f"{subtask['instruction']}\n{data}".strip()
