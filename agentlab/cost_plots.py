"""Cost and time per turn, and their running totals: cached against uncached, turn by turn."""

from __future__ import annotations

from typing import Any, Callable

from .latency import cumulative
from .run import Run
from .i18n import localize


def cost_curve(run: Run) -> tuple[list[float], list[float]]:
    """Per-turn cost (USD) and its running total; a turn with no known price raises, never counts as 0."""
    per = [t.cost_usd for t in run.turns]
    if any(c is None for c in per):
        raise ValueError(f"cost_curve: genai-prices has no price for {run.model!r}; there is no cost curve to draw")
    return per, cumulative(per)  # type: ignore[arg-type]


def plot_cost_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: cost of each turn, and cost so far, one line per labelled run (e.g. uncached / cached)."""
    fig = _per_turn_and_total(runs, cost_curve, lambda v: f"${v:.4f}",
                              "cost of this turn (USD)", "cost so far (USD)")
    model = next(iter(runs.values())).model
    fig.suptitle(f"Prompt caching, turn by turn ({model}; simulator, tokens estimated)", fontsize=10)
    return localize(fig)


def plot_latency_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: latency of each turn and elapsed model time, one line per labelled run."""

    def latency(run: Run) -> tuple[list[float], list[float]]:
        per = [t.latency_s for t in run.turns]
        return per, cumulative(per)

    fig = _per_turn_and_total(runs, latency, lambda v: f"{v:.1f} s", "latency of this turn (s)", "model time so far (s)")
    est = "simulated from assumed rates" if any(r.estimated for r in runs.values()) else "measured"
    fig.suptitle(f"Time per turn ({est})", fontsize=10)
    return localize(fig)


def _per_turn_and_total(runs: dict[str, Run], curve: Callable[[Run], tuple[list[float], list[float]]],
                        fmt: Callable[[float], str], per_label: str, total_label: str) -> Any:
    """Left: a value per turn; right: its running total (last point labelled); one line per labelled run."""
    import matplotlib.pyplot as plt

    fig, (ax, total) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    for label, run in runs.items():
        per, cum = curve(run)
        turns = [t.index for t in run.turns]
        ax.plot(turns, per, marker="o", ms=3, label=label)
        total.plot(turns, cum, marker="o", ms=3, label=label)
        total.annotate(fmt(cum[-1]), (turns[-1], cum[-1]), textcoords="offset points", xytext=(4, 0), fontsize=8)
    ax.set_ylabel(per_label)
    total.set_ylabel(total_label)
    for a in (ax, total):
        a.set_xlabel("turn (model call number)")
        a.legend(fontsize=8)
    return fig
