"""Advisory against enforced (notebook 13): the same task with no budget, a task budget, and ``Limits(max_tokens)``.

``budget_table`` turns runs of one task into one row each: how the run stopped, its model calls, the
cities it looked up, whether the note was saved, the tokens billed, the tokens a task budget's countdown
counts (the loop's own work, estimated as ``agentlab/sim/budgets.py`` does) and the answer. A task budget
is a countdown the model sees (https://platform.claude.com/docs/en/build-with-claude/task-budgets); the
harness's token guard is a limit the model never sees (``agentlab.guards``).
"""

from __future__ import annotations

from typing import Any

from agentlab.run import Run
from agentlab.sim.budgets import loop_tokens


def budget_row(run: Run) -> dict:
    """One run as a row: stop, model calls, cities looked up, note saved, tokens billed and counted, answer."""
    ran = [r["name"] for r in run.tool_results]
    return {
        "stop": run.stop_reason.value,
        "model calls": run.model_calls,
        "cities looked up": ran.count("get_weather"),
        "note saved": "save_note" in ran,
        "tokens billed": run.input_tokens + run.output_tokens,
        "loop tokens (countdown's count)": loop_tokens(run.messages, run.model),
        "answer": run.final_text or "(none)",
    }


def budget_table(runs: dict[str, Run]) -> Any:
    """A pandas DataFrame, one row per named run (see :func:`budget_row`)."""
    import pandas as pd

    return pd.DataFrame([budget_row(r) for r in runs.values()], index=list(runs))
