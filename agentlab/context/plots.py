"""Figures of the context-engineering lab: input tokens per call (the sawtooth) and the tactic table."""

from __future__ import annotations

from typing import Any

from agentlab.context.task import WINDOW_TOKENS
from agentlab.views.figures import pyplot
from agentlab.views.i18n import localize

COLORS = {
    "plain": "#D55E00",
    "compaction": "#0072B2",
    "clearing (harness)": "#009E73",
    "clearing (API, simulated)": "#009E73",
    "memory (sessions)": "#CC79A7",
    "sub-agents": "#E69F00",
    "just-in-time": "#56B4E9",
}
"""One color per tactic (the palette's colour for clearing serves both kinds; see ``LINESTYLES``)."""
LINESTYLES = {"clearing (API, simulated)": ":"}
"""The API's clearing is dotted, so it stays apart from the harness's clearing (same colour) in colour and in print."""


def plot_tokens_per_call(
    results: dict,
    tactics: tuple[str, ...] = ("plain", "compaction", "clearing (harness)", "clearing (API, simulated)"),
    window_tokens: int | None = None,
) -> Any:
    """Input tokens of each call, one line per tactic, with the configured window as a dashed line."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for name in tactics:
        per_call = results[name].per_call
        ax.plot(
            range(1, len(per_call) + 1),
            per_call,
            marker=".",
            color=COLORS.get(name),
            linestyle=LINESTYLES.get(name, "-"),
            label=name,
        )
        ax.annotate(
            f"{max(per_call):,}",
            (per_call.index(max(per_call)) + 1, max(per_call)),
            fontsize=8,
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            color=COLORS.get(name),
        )
    window = window_tokens or next(iter(results.values())).window_tokens
    ax.axhline(window, color="black", linestyle="--", linewidth=1)
    ax.annotate(f"window: {window:,} tokens", (1, window), xytext=(0, 4), textcoords="offset points", fontsize=8)
    ax.set_xlabel("model call")
    ax.set_ylabel("input tokens per call")
    ax.set_title("Input tokens per call: compaction and clearing cut the history back")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, 0.93))
    fig.tight_layout()
    return localize(fig)


def plot_tactics(table: Any) -> Any:
    """Two panels per tactic: total input tokens, and the peak context of one call against the window."""
    from matplotlib.ticker import FuncFormatter

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    names = list(table.index)
    colors = [COLORS.get(n, "#a6a6a6") for n in names]
    for ax, col, title in (
        (left, "input tokens", "Total input tokens (all calls)"),
        (right, "peak context (tokens)", "Peak context of one call"),
    ):
        values = [int(v) for v in table[col]]
        ax.barh(range(len(names)), values, color=colors)
        ax.set_yticks(range(len(names)), names)  # explicit tick labels, so localize() sees them
        for y, v in enumerate(values):
            ax.annotate(f"{v:,}", (v, y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
        ax.set_title(title)
        ax.set_xlabel("tokens")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:,.0f}k" if v else "0"))
        ax.margins(x=0.25)
    right.axvline(_window(table), color="black", linestyle="--", linewidth=1, label="configured window")
    right.legend(fontsize=8, loc="lower right")
    left.invert_yaxis()
    fig.tight_layout()
    return localize(fig)


def _window(table: Any) -> int:
    """The window the table was measured against (``table.attrs``), else the lab's default."""
    return int(table.attrs.get("window_tokens", 0)) or WINDOW_TOKENS
