"""Figures for a sweep DataFrame (:func:`agentlab.sweeps.sweep`): what grows with the number of cities."""

from __future__ import annotations

from typing import Any
from .i18n import localize

VARIANTS = (("agent", False, "agent", "#c0504d"), ("agent", True, "agent, cached", "#f79646"),
            ("workflow", False, "workflow", "#4f81bd"))
"""(kind, cache, label, colour) of each line."""


def _pick(df: Any, model: str | None, long_output: bool) -> tuple[Any, str]:
    model = model or df["model"].iloc[0]
    if model not in set(df["model"]):
        raise ValueError(f"plot_sweep(model={model!r}): the sweep has {sorted(set(df['model']))}")
    return df[(df["model"] == model) & (df["long output"] == long_output)], model


def _lines(ax: Any, sub: Any, column: str, label_last: bool = True, fmt: str = "{:g}") -> None:
    for kind, cache, label, colour in VARIANTS:
        part = sub[(sub["kind"] == kind) & (sub["cache"] == cache)].sort_values("cities")
        if part.empty:
            continue
        ax.plot(part["cities"], part[column], marker="o", ms=3, color=colour, label=label)
        if label_last:
            x, y = part["cities"].iloc[-1], part[column].iloc[-1]
            ax.annotate(fmt.format(y), (x, y), textcoords="offset points", xytext=(4, 0), fontsize=7, va="center")
    ax.set_xlabel("cities in the task (count)")
    ax.legend(fontsize=7)


def plot_sweep(df: Any, model: str | None = None, long_output: bool = False) -> Any:
    """Four panels against the number of cities, for one model: turns, input tokens by component
    (agent, uncached), cost and simulated latency."""
    import matplotlib.pyplot as plt

    sub, model = _pick(df, model, long_output)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), constrained_layout=True)
    _lines(axes[0, 0], sub, "turns")
    axes[0, 0].set_ylabel("model calls per run (count)")
    agent = sub[(sub["kind"] == "agent") & (~sub["cache"])].sort_values("cities")
    ax = axes[0, 1]
    parts = [("tool tokens", "#9bbb59"), ("re-sent history", "#bbbbbb"), ("new tokens", "#4f81bd")]
    ax.stackplot(agent["cities"], *[agent[c] for c, _ in parts], labels=[c for c, _ in parts],
                 colors=[c for _, c in parts])
    total = agent["input tokens (all)"]
    ax.annotate(f"{total.iloc[-1]:,}", (agent["cities"].iloc[-1], total.iloc[-1]), fontsize=7,
                textcoords="offset points", xytext=(-30, 4))
    ax.set_xlabel("cities in the task (count)")
    ax.set_ylabel("agent input tokens per run (tokens)")
    ax.legend(fontsize=7, loc="upper left")
    _lines(axes[1, 0], sub, "cost (USD)", fmt="${:.4f}")
    axes[1, 0].set_ylabel("cost per run (USD)")
    _lines(axes[1, 1], sub, "latency (s)", fmt="{:.1f} s")
    axes[1, 1].set_ylabel("simulated latency per run (s)")
    kind = "long answers" if long_output else "short answers"
    fig.suptitle(f"The city task, 1 to {int(sub['cities'].max())} cities: {model}, {kind} "
                 "(simulator: tokens estimated, latency from assumed rates)", fontsize=10)
    return localize(fig)


def plot_cost_by_model(df: Any, long_output: bool = False) -> Any:
    """Cost per run against cities, one panel per model: agent, cached agent and workflow."""
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(df["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(3.6 * len(models), 3.4), constrained_layout=True, squeeze=False)
    for ax, model in zip(axes[0], models):
        sub, _ = _pick(df, model, long_output)
        _lines(ax, sub, "cost (USD)", fmt="${:.4f}")
        ax.set_title(model, fontsize=9)
        ax.set_ylabel("cost per run (USD)")
    fig.suptitle("What caching saves depends on the model's price and its minimum cacheable length", fontsize=10)
    return localize(fig)
