"""Cost and time per turn, and their running totals: cached against uncached, turn by turn."""

from __future__ import annotations

from typing import Any

from .latency import cumulative
from .run import Run


def cost_curve(run: Run) -> tuple[list[float], list[float]]:
    """Per-turn cost (USD) and its running total; a turn with no known price raises, never counts as 0."""
    per = [t.cost_usd for t in run.turns]
    if any(c is None for c in per):
        raise ValueError(f"cost_curve: genai-prices has no price for {run.model!r}; there is no cost curve to draw")
    return per, cumulative(per)  # type: ignore[arg-type]


def plot_cost_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: cost of each turn, and cost so far, one line per labelled run (e.g. uncached / cached)."""
    import matplotlib.pyplot as plt

    fig, (ax, total) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    for label, run in runs.items():
        per, cum = cost_curve(run)
        turns = [t.index for t in run.turns]
        ax.plot(turns, per, marker="o", ms=3, label=label)
        total.plot(turns, cum, marker="o", ms=3, label=label)
        total.annotate(f"${cum[-1]:.4f}", (turns[-1], cum[-1]), textcoords="offset points", xytext=(4, 0), fontsize=8)
    ax.set_ylabel("cost of this turn (USD)")
    total.set_ylabel("cost so far (USD)")
    for a in (ax, total):
        a.set_xlabel("turn (model call number)")
        a.legend(fontsize=8)
    model = next(iter(runs.values())).model
    fig.suptitle(f"Prompt caching, turn by turn ({model}; simulator, tokens estimated)", fontsize=10)
    return fig


def plot_latency_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: latency of each turn and elapsed model time, one line per labelled run."""
    import matplotlib.pyplot as plt

    fig, (ax, total) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    for label, run in runs.items():
        per = [t.latency_s for t in run.turns]
        cum = cumulative(per)
        turns = [t.index for t in run.turns]
        ax.plot(turns, per, marker="o", ms=3, label=label)
        total.plot(turns, cum, marker="o", ms=3, label=label)
        total.annotate(f"{cum[-1]:.1f} s", (turns[-1], cum[-1]), textcoords="offset points", xytext=(4, 0), fontsize=8)
    ax.set_ylabel("latency of this turn (s)")
    total.set_ylabel("model time so far (s)")
    for a in (ax, total):
        a.set_xlabel("turn (model call number)")
        a.legend(fontsize=8)
    est = "simulated from assumed rates" if any(r.estimated for r in runs.values()) else "measured"
    fig.suptitle(f"Time per turn ({est})", fontsize=10)
    return fig
