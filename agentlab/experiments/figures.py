"""Figures for notebooks 03 and 04: one finding per figure, units on every axis, values on the bars."""

from __future__ import annotations

from typing import Any

import pandas as pd
from ..i18n import localize


def _bars(ax: Any, names: list[str], values: list[float], fmt: str, color: Any, ylabel: str) -> None:
    bars = ax.bar(names, values, color=color)
    ax.bar_label(bars, labels=[fmt.format(v) for v in values], fontsize=7)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.margins(y=0.15)


def plot_variants(table: pd.DataFrame) -> Any:
    """Left: which variants each side solved; right: mean cost per side (from ``variant_table``)."""
    import matplotlib.pyplot as plt

    fig, (grid, cost) = plt.subplots(1, 2, figsize=(9.5, 3.4), constrained_layout=True,
                                     gridspec_kw={"width_ratios": [2, 1]})
    wide = table.pivot(index="side", columns="variant", values="success").reindex(columns=table["variant"].unique())
    grid.imshow(wide.to_numpy(dtype=float), cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    grid.set_xticks(range(wide.shape[1]), wide.columns, rotation=20, fontsize=8)
    grid.set_yticks(range(wide.shape[0]), wide.index)
    for (i, j), ok in pd.DataFrame(wide.to_numpy()).stack().items():
        grid.text(j, i, "solved" if ok else "failed", ha="center", va="center", fontsize=8)
    grid.set_title("task solved? (checked from the saved note)", fontsize=9)
    means = table.groupby("side", sort=False)["cost (USD)"].mean()
    _bars(cost, list(means.index), list(means.values), "${:.4f}", ["#c0504d", "#4f81bd"], "mean cost per task (USD)")
    fig.suptitle("The agent adapts to variants the fixed workflow did not foresee, at a higher cost", fontsize=10)
    return localize(fig)


def plot_patterns(table: pd.DataFrame) -> Any:
    """Model calls, input tokens, cost and wall time for each pattern and the agent (``pattern_table``)."""
    import matplotlib.pyplot as plt

    cols = [("model calls", "{:.0f}", "model calls (count)"), ("input tokens", "{:.0f}", "input tokens (tokens)"),
            ("cost (USD)", "{:.4f}", "cost (USD)"), ("wall time (s)", "{:.2f}", "wall time (s)")]
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), constrained_layout=True)
    colors = ["#c0504d" if n == "agent" else "#4f81bd" for n in table.index]
    for ax, (col, fmt, label) in zip(axes, cols):
        _bars(ax, list(table.index), [float(v or 0) for v in table[col]], fmt, colors, label)
    fig.suptitle("One task, five workflow patterns and the agent (red); token counts estimated by the simulator",
                 fontsize=10)
    return localize(fig)


def plot_speedup(table: pd.DataFrame) -> Any:
    """Measured speed-up of each parallel pattern against its ideal, by number of parallel calls."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6), constrained_layout=True)
    for name, g in table.groupby("pattern", sort=False):
        line, = ax.plot(g["calls in parallel"], g["speed-up"], marker="o", label=f"{name} (measured)")
        ax.plot(g["calls in parallel"], g["ideal"], linestyle=":", color=line.get_color(), label=f"{name} (ideal)")
        for x, y in zip(g["calls in parallel"], g["speed-up"]):
            ax.annotate(f"{y:.1f}x", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel("calls that can run at once (count)")
    ax.set_ylabel("speed-up over 1 worker (x)")
    ax.legend(fontsize=7)
    ax.set_title("Wall-time speed-up with a simulated response time per call", fontsize=10)
    return localize(fig)
