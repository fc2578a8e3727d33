"""Notebook 02b's scaling experiment: the city task on more and more cities, against a straight line.

Each extra city adds a turn, and every turn re-sends the whole history, so the run's total input
grows faster than the number of steps: :func:`above_straight_line` says by how much.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from agentlab.loop import run_agent
from agentlab.views.fonts import use_cjk_font
from agentlab.views.i18n import localize
from agentlab.weather import city_task, task_tools


def above_straight_line(table: Any) -> float:
    """How far the last row's total input is above the straight line through the first two rows, in percent."""
    x, y = list(table.index), list(table["input tokens"])
    line = y[0] + (y[1] - y[0]) / (x[1] - x[0]) * (x[-1] - x[0])
    return 100 * (y[-1] - line) / line


def scaling_table(
    client: Any,
    cities: list[str],
    notes_dir: str | Path,
    sizes: Iterable[int] = range(2, 7),
    forecast_days: int = 0,
    **run_options: Any,
) -> Any:
    """Run the city task on the first n ``cities`` for each n in ``sizes``; one row of totals per run.

    ``forecast_days`` > 0 gives ``get_weather`` results a forecast (a few hundred tokens each).
    The last column is how many input tokens the run needed beyond the previous row's run.
    """
    import pandas as pd

    rows = []
    for n in sizes:
        run = run_agent(client, city_task(list(cities[:n])), task_tools(notes_dir, forecast_days), **run_options)
        rows.append(
            {
                "cities": n,
                "model calls": run.model_calls,
                "input tokens": run.input_tokens,
                "re-prefill tokens": run.reprefill_tokens,
                "stop": run.stop_reason.value,
                "estimated": run.estimated,
            }
        )
    table = pd.DataFrame(rows).set_index("cities")
    table["extra input tokens vs previous row"] = table["input tokens"].diff().astype("Int64")
    return table


def plot_scaling(table: Any) -> Any:
    """Total input tokens against number of cities, with the straight line through the first two points."""
    import matplotlib.pyplot as plt

    use_cjk_font()  # Chinese titles and labels render as glyphs, not boxes
    fig, ax = plt.subplots(figsize=(7, 4.2), constrained_layout=True)
    x, y = list(table.index), list(table["input tokens"])
    ax.plot(x, y, marker="o", label="measured (agent run)")
    if len(x) >= 2:
        step = (y[1] - y[0]) / (x[1] - x[0])
        ax.plot(
            x,
            [y[0] + step * (n - x[0]) for n in x],
            linestyle="--",
            color="#999999",
            label="straight line through the first two points",
        )
    ax.set_xlabel("cities in the task (count)")
    ax.set_ylabel("input tokens over the whole run (tokens)")
    ax.set_xticks(x)
    ax.legend(fontsize=8)
    est = " (estimated by the simulator)" if "estimated" in table and table["estimated"].any() else ""
    for xi, yi in zip(x, y):
        ax.annotate(
            f"{yi:,}", (xi, yi), ha="right", va="bottom", fontsize=8, xytext=(-3, 3), textcoords="offset points"
        )
    ax.set_title(f"More cities: more turns, each re-sending more{est}", fontsize=10)
    return localize(fig)
