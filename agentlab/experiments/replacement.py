"""The course's replacement experiment: the same task and tools, the model choosing each step
(agent) or code choosing (workflow); then the variants the fixed workflow did not foresee.

    side_by_side(client, ["Paris", "London"], folder)   -> DataFrame: one column per side
    variant_table(client, folder)                       -> DataFrame: one row per (variant, side)
    success_summary(table)                              -> DataFrame: success rate and cost per side
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..loop import run_agent
from ..run import Run
from ..variants import check, variant_tools, variants
from ..weather import city_task, task_tools
from ..workflows import run_workflow

FIGURES = ["model calls", "turns", "input tokens", "re-prefill tokens", "output tokens", "cost (USD)",
           "wall time (s)", "stop"]
"""The rows of the side-by-side table."""


def side_by_side(client: Any, cities: list[str], folder: str | Path) -> pd.DataFrame:
    """The city task both ways on one client; columns ``agent`` and ``workflow``, rows ``FIGURES``."""
    folder = Path(folder)
    agent = run_agent(client, city_task(cities), task_tools(folder / "agent"), trace=folder / "agent.jsonl")
    workflow = run_workflow(client, cities, folder / "workflow", trace=folder / "workflow.jsonl")
    table = pd.DataFrame({r.kind: {k: r.summary()[k] for k in FIGURES} for r in (agent, workflow)})
    table.attrs["runs"] = {"agent": agent, "workflow": workflow}
    return table


def _row(variant: str, side: str, run: Run, ok: bool, why: str) -> dict:
    return {"variant": variant, "side": side, "success": ok, "why": why, "model calls": run.model_calls,
            "input tokens": run.input_tokens, "output tokens": run.output_tokens, "cost (USD)": run.cost_usd,
            "stop": run.stop_reason.value}


def variant_table(client: Any, folder: str | Path) -> pd.DataFrame:
    """Every variant run by the agent and by the fixed workflow, each checked from its saved note."""
    rows = []
    for v in variants():
        for side in ("agent", "workflow"):
            notes = Path(folder) / v.name.replace(" ", "-") / side
            if side == "agent":
                run = run_agent(client, v.task, variant_tools(notes))
            else:
                run = run_workflow(client, v.cities, notes)
            ok, why = check(v, notes)
            rows.append(_row(v.name, side, run, ok, why))
    return pd.DataFrame(rows)


def success_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per side: variants run, successes, success rate, mean cost and mean model calls."""
    g = table.groupby("side", sort=False)
    return pd.DataFrame({"variants": g.size(), "succeeded": g["success"].sum(),
                         "success rate": g["success"].mean(), "mean cost (USD)": g["cost (USD)"].mean(),
                         "mean model calls": g["model calls"].mean()})
