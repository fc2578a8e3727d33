"""Figures for the notebooks and the CLI: one finding per figure, units on every axis."""

from __future__ import annotations

from typing import Any

from .fonts import use_cjk_font
from .run import Run


def _figure(ncols: int, width: float = 4.0):
    import matplotlib.pyplot as plt

    use_cjk_font()  # Chinese titles and labels render as glyphs, not boxes
    return plt.subplots(1, ncols, figsize=(width * ncols, 3.6), constrained_layout=True)


def plot_comparison(runs: list[Run], title: str | None = None, labels: list[str] | None = None) -> Any:
    """Agent vs workflow: model calls, input tokens (re-prefill shaded), output tokens and cost.

    ``labels`` names the bars (default: each run's kind, e.g. "agent", "workflow").
    """
    from matplotlib.ticker import MaxNLocator

    fig, axes = _figure(4, 3.2)
    names = labels or [r.kind for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"plot_comparison: bar labels must differ, got {names}; pass labels=[...]")
    colors = ["#c0504d", "#4f81bd", "#9bbb59", "#8064a2"][: len(runs)]
    axes[0].bar(names, [r.model_calls for r in runs], color=colors)
    axes[0].set_ylabel("model calls (count)")
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    new = [r.input_tokens - r.reprefill_tokens for r in runs]
    axes[1].bar(names, new, color=colors, label="new")
    axes[1].bar(names, [r.reprefill_tokens for r in runs], bottom=new, color="#bbbbbb", label="re-prefill")
    axes[1].set_ylabel("input tokens (tokens)")
    axes[1].legend(fontsize=8)
    axes[2].bar(names, [r.output_tokens for r in runs], color=colors)
    axes[2].set_ylabel("output tokens (tokens)")
    costs = [r.cost_usd or 0.0 for r in runs]
    axes[3].bar(names, costs, color=colors)
    axes[3].set_ylabel("cost (USD)")
    for i, r in enumerate(runs):
        if r.cost_usd is None:
            axes[3].text(i, 0, "no price", ha="center", va="bottom", fontsize=8)
    est = " (tokens estimated by the simulator)" if any(r.estimated for r in runs) else ""
    fig.suptitle((title or f"Same task, two code paths: {runs[0].model}") + est, fontsize=10)
    return fig


def plot_tokens_per_turn(run: Run) -> Any:
    """Input tokens per turn, split into re-prefill (sent before) and new, with the re-prefill share."""
    fig, (ax, share) = _figure(2, 4.4)
    turns = [t.index for t in run.turns]
    re = [t.reprefill_tokens for t in run.turns]
    new = [t.input_tokens - t.reprefill_tokens for t in run.turns]
    ax.bar(turns, re, color="#bbbbbb", label="re-prefill (sent before)")
    ax.bar(turns, new, bottom=re, color="#4f81bd", label="new this turn")
    ax.set_xlabel("turn (model call number)")
    ax.set_ylabel("input tokens (tokens)")
    ax.set_xticks(turns)
    ax.legend(fontsize=8)
    cum_in = [sum(t.input_tokens for t in run.turns[:i]) for i in range(1, len(turns) + 1)]
    cum_re = [sum(re[:i]) for i in range(1, len(turns) + 1)]
    share.plot(turns, [100 * r / i if i else 0 for r, i in zip(cum_re, cum_in)], marker="o")
    share.set_xlabel("turn (model call number)")
    share.set_ylabel("re-prefill share of input so far (%)")
    share.set_ylim(0, 100)
    share.set_xticks(turns)
    est = ", estimated" if run.estimated else ""
    fig.suptitle(f"{run.kind}: every turn re-sends the history ({run.model}{est})", fontsize=10)
    return fig
