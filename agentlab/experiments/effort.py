"""What ``output_config.effort`` does to a run's cost (notebook 09): the same task at each level.

``effort_runs`` runs the city task once per level (and once without ``effort``: the model's default) on fresh
simulated clients; ``effort_table`` shows model calls, input and output tokens and the price of each run.
How the simulated model answers each level is how it is written (``agentlab/sim/effort.py``), not a
measurement of Claude: the docs say lower effort means fewer tool calls and less text
(https://platform.claude.com/docs/en/build-with-claude/effort), not by how much.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentlab.client import connect
from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.sim.effort import LEVELS, default_effort
from agentlab.weather import city_task, task_tools

NOT_SET = "(not set)"
"""The label of the run that sends no ``effort``."""


def effort_runs(cities: list[str], workdir: str | Path, model: str = "claude-sonnet-5-5") -> dict[str, Run]:
    """``{level: run}`` for the city task on ``model``: first without ``effort``, then each of ``LEVELS``."""
    runs = {}
    for level in (None, *LEVELS):
        label = level or NOT_SET
        runs[label] = run_agent(
            connect("sim", model=model, quiet=True),
            city_task(cities),
            task_tools(Path(workdir) / label.strip("()").replace(" ", "_")),
            max_turns=len(cities) + 4,
            effort=level,
        )
    return runs


def effort_table(runs: dict[str, Run]) -> Any:
    """A pandas DataFrame, one row per level: model calls, input and output tokens, cost in USD, and the
    cost against the run that sets no ``effort`` (the model's default level)."""
    import pandas as pd

    base = runs[NOT_SET].cost_usd
    rows = [
        {
            "model calls": r.model_calls,
            "input tokens": r.input_tokens,
            "output tokens": r.output_tokens,
            "cost (USD)": r.cost_usd,
            "cost / not set": (r.cost_usd / base) if base and r.cost_usd is not None else None,
        }
        for r in runs.values()
    ]
    table = pd.DataFrame(rows, index=list(runs))
    table.index.name = f"effort (default: {default_effort(next(iter(runs.values())).model)})"
    return table
