"""The course's replacement experiment: the same task and tools, the model choosing each step
(agent) or code choosing (workflow); then the variants the fixed workflow did not foresee.

    side_by_side(client, ["Paris", "London"], folder)   -> DataFrame: one column per side
    variant_table(client, folder)                       -> DataFrame: one row per (variant, side)
    success_summary(table)                              -> DataFrame: success rate and cost per side
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentlab.experiments.variants import check, variant_tools, variants
from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.tools import Tool
from agentlab.views.figures import bars
from agentlab.views.i18n import SHOWN_IN_LANGUAGE, localize, task_language
from agentlab.views.style import HEATMAP, text_on
from agentlab.weather import city_task, task_tools
from agentlab.workflows import run_workflow
from agentlab.workflows.city_compare import write_prompt

if TYPE_CHECKING:  # imported where a table is built, not at import: pandas takes about 0.25 s to load
    import pandas as pd


def workflow_prompt(cities: list[str], lang: str | None = None) -> str:
    """The one prompt ``run_workflow`` sends (built by the same function, from the same data)."""
    from agentlab.weather import lookup

    return write_prompt([(c, lookup(c)["temp_c"]) for c in cities], task_language(lang, "workflow_prompt"))


FIGURES = [
    "model calls",
    "turns",
    "input tokens",
    "input: tool definitions",
    "input: task prompt",
    "input: earlier turns",
    "re-prefill tokens",
    "output tokens",
    "cost (USD)",
    "wall time (s)",
    "stop",
]
"""The rows of the side-by-side table."""


def input_split(client: Any, run: Run, prompt: str, tools: list[Tool]) -> dict[str, int]:
    """A run's input tokens by component, from the Messages API's ``count_tokens`` endpoint (free; the
    simulator estimates it): every call re-sends the tool definitions (with the hidden tool-use prompt)
    and the task prompt; the rest of the input is earlier turns (assistant turns, tool_use, tool_result)."""
    model, first = run.model, [{"role": "user", "content": prompt}]
    bare = client.messages.count_tokens(model=model, messages=first).input_tokens
    with_tools = (
        client.messages.count_tokens(model=model, messages=first, tools=[t.spec() for t in tools]).input_tokens
        if tools
        else bare
    )
    n = run.model_calls
    return {
        "input: tool definitions": n * (with_tools - bare),
        "input: task prompt": n * bare,
        "input: earlier turns": run.input_tokens - n * with_tools,
    }


def side_by_side(client: Any, cities: list[str], folder: str | Path) -> pd.DataFrame:
    """The city task both ways on one client; columns ``agent`` and ``workflow``, rows ``FIGURES``."""
    import pandas as pd

    folder = Path(folder)
    tools = task_tools(folder / "agent")
    agent = run_agent(client, city_task(cities), tools, trace=folder / "agent.jsonl")
    workflow = run_workflow(client, cities, folder / "workflow", trace=folder / "workflow.jsonl")
    splits = {
        "agent": input_split(client, agent, city_task(cities), tools),
        "workflow": input_split(client, workflow, workflow_prompt(cities), []),
    }
    table = pd.DataFrame(
        {r.kind: {k: {**r.summary(), **splits[r.kind]}[k] for k in FIGURES} for r in (agent, workflow)}
    )
    table.attrs["runs"] = {"agent": agent, "workflow": workflow}
    table.attrs[SHOWN_IN_LANGUAGE] = True
    return table


def _row(variant: str, side: str, run: Run, ok: bool, why: str) -> dict:
    return {
        "variant": variant,
        "side": side,
        "success": ok,
        "why": why,
        "model calls": run.model_calls,
        "input tokens": run.input_tokens,
        "output tokens": run.output_tokens,
        "cost (USD)": run.cost_usd,
        "stop": run.stop_reason.value,
    }


def variant_table(client: Any, folder: str | Path, lang: str | None = None) -> pd.DataFrame:
    """Every variant run by the agent and by the fixed workflow, each checked from its saved note; the
    tasks (and the workflow's prompt) in ``lang`` (``None``: the notebook's language, see ``variants``)."""
    import pandas as pd

    rows = []
    for v in variants(lang):
        for side in ("agent", "workflow"):
            notes = Path(folder) / v.name.replace(" ", "-") / side
            if side == "agent":
                run = run_agent(client, v.task, variant_tools(notes))
            else:
                run = run_workflow(client, v.cities, notes, lang=v.lang)
            ok, why = check(v, notes)
            rows.append(_row(v.name, side, run, ok, why))
    table = pd.DataFrame(rows)
    table.attrs[SHOWN_IN_LANGUAGE] = True
    return table


def success_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per side: variants run, successes, success rate, mean cost and mean model calls."""
    import pandas as pd

    g = table.groupby("side", sort=False)
    summary = pd.DataFrame(
        {
            "variants": g.size(),
            "succeeded": g["success"].sum(),
            "success rate": g["success"].mean(),
            "mean cost (USD)": g["cost (USD)"].mean(),
            "mean model calls": g["model calls"].mean(),
        }
    )
    summary.attrs[SHOWN_IN_LANGUAGE] = True
    return summary


def plot_variants(table: pd.DataFrame) -> Any:
    """Left: which variants each side solved; right: mean cost per side (from ``variant_table``)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    fig, (grid, cost) = plt.subplots(
        1, 2, figsize=(9.5, 3.4), constrained_layout=True, gridspec_kw={"width_ratios": [2, 1]}
    )
    wide = table.pivot(index="side", columns="variant", values="success").reindex(columns=table["variant"].unique())
    grid.imshow(wide.to_numpy(dtype=float), cmap=HEATMAP, vmin=0, vmax=1, aspect="auto")
    grid.set_xticks(range(wide.shape[1]), wide.columns, rotation=20, fontsize=8)
    grid.set_yticks(range(wide.shape[0]), wide.index)
    for (i, j), ok in pd.DataFrame(wide.to_numpy()).stack().items():
        grid.text(
            j, i, "solved" if ok else "failed", ha="center", va="center", fontsize=9, color=text_on(HEATMAP, float(ok))
        )
    grid.set_title("task solved? (checked from the saved note)", fontsize=9)
    means = table.groupby("side", sort=False)["cost (USD)"].mean()
    bars(cost, list(means.index), list(means.values), "${:.4f}", ["#D55E00", "#0072B2"], "mean cost per task (USD)")
    fig.suptitle("The agent adapts to variants the fixed workflow did not foresee, at a higher cost", fontsize=10)
    return localize(fig)
