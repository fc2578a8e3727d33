"""Notebook 10's definition of context engineering, measured: the window as a budget, call by call.

Every call the harness assembles the whole window again: the hidden tool-use prompt, the tool
definitions, the system prompt, the task, the history so far and what is new this turn. The meter
already splits each call's input into those parts (``agentlab.meter.breakdown``); here each part is
shown as a share of a configured window budget, so one can see which parts are fixed, which grow,
and which a context engineer chooses (all of them) against which prompt engineering words (the
system prompt and the task). On the simulator the token counts are the estimator's; live, with
``count_parts=True``, they come from ``count_tokens``.
"""

from __future__ import annotations

from typing import Any

from agentlab.meter.breakdown import LABELS
from agentlab.views.figures import COLORS, pyplot
from agentlab.views.i18n import localize

WORDED = ("system", "task")
"""The parts prompt engineering works on: the wording of the instructions and of the task."""
LEVERS = {
    "tool_prompt": "send tools at all (tool_choice, fewer tools)",
    "tool_definitions": "which tools, how long their descriptions",
    "system": "the system prompt's length and content",
    "task": "how the task is put",
    "history": "what is re-sent: compaction, clearing, memory, sub-agents",
    "new": "how large a tool result is: references, just-in-time retrieval",
}
"""Per part, what the harness (the context engineer) decides about it."""


def _parts(turn: Any) -> dict[str, int]:
    """One call's parts, or a ValueError saying how to get a split."""
    if turn.breakdown is None:
        raise ValueError(
            f"turn {turn.index}: breakdown is None, so its input cannot be split; "
            "on the live API connect with count_parts=True"
        )
    return turn.breakdown.parts()


def window_shares(turns: list, window_tokens: int) -> Any:
    """A DataFrame, one row per call: each part as a percent of the window budget, the whole input as a
    percent, the tokens left (negative: over budget), and the share of the call that the wording is."""
    import pandas as pd

    if window_tokens <= 0:
        raise ValueError(f"window_shares(window_tokens={window_tokens!r}): give the budget in tokens, e.g. 12_000")
    rows = []
    for t in turns:
        parts = _parts(t)
        total = sum(parts.values())
        row = {"call": t.index, **{LABELS[k]: round(100 * v / window_tokens, 1) for k, v in parts.items()}}
        row.update(
            {
                "window used (%)": round(100 * total / window_tokens, 1),
                "tokens left": window_tokens - total,
                "wording share of the call (%)": round(100 * sum(parts[k] for k in WORDED) / (total or 1), 1),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows).set_index("call")


def budget_summary(turns: list, window_tokens: int) -> dict[str, Any]:
    """The figures the notebook states: the fixed parts' share of the window, the first call over it,
    the history's share of the last call, and the wording's share of the window (what prompt engineering touches)."""
    first, last = _parts(turns[0]), _parts(turns[-1])
    fixed = sum(v for k, v in first.items() if k not in ("history", "new"))
    over = next((t.index for t in turns if sum(_parts(t).values()) > window_tokens), None)
    growth = [sum(_parts(b).values()) - sum(_parts(a).values()) for a, b in zip(turns, turns[1:])]
    return {
        "calls": len(turns),
        "fixed tokens": fixed,
        "fixed share of window (%)": round(100 * fixed / window_tokens, 1),
        "wording tokens": sum(last[k] for k in WORDED),
        "wording share of window (%)": round(100 * sum(last[k] for k in WORDED) / window_tokens, 1),
        "growth per call (tokens, median)": sorted(growth)[len(growth) // 2] if growth else 0,
        "first call over the window": over,
        "last call (tokens)": sum(last.values()),
        "history share of last call (%)": round(100 * last["history"] / (sum(last.values()) or 1), 1),
    }


def plot_window_budget(turns: list, window_tokens: int, title: str | None = None) -> Any:
    """Each call's input stacked by part, in percent of the window budget, with the budget as a dashed
    line at 100%; the first call, the first call over the budget and the last are labelled."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9.5, 4.4), constrained_layout=True)
    calls = [t.index for t in turns]
    bottom = [0.0] * len(turns)
    for key, label in LABELS.items():
        values = [100 * _parts(t)[key] / window_tokens for t in turns]
        if any(values):
            ax.bar(calls, values, bottom=bottom, color=COLORS[key], label=label, width=0.8)
            bottom = [b + v for b, v in zip(bottom, values)]
    summary = budget_summary(turns, window_tokens)
    marked = {calls[0], calls[-1], summary["first call over the window"]} - {None}
    for i, c in enumerate(calls):
        if c in marked:
            ax.annotate(
                f"{bottom[i]:.0f}%",
                (c, bottom[i]),
                ha="center",
                va="bottom",
                fontsize=8,
                xytext=(0, 2),
                textcoords="offset points",
            )
    ax.axhline(100, color="black", linestyle="--", linewidth=1)
    ax.annotate(
        f"window budget: {window_tokens:,} tokens",
        (calls[0], 100),
        xytext=(0, 4),
        textcoords="offset points",
        fontsize=8,
    )
    ax.set_xlabel("model call")
    ax.set_ylabel("share of the window budget (%)")
    ax.margins(y=0.1)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, 0.9))
    ax.set_title(title or "What fills the window, call by call: the history grows, the rest stays fixed", fontsize=10)
    return localize(fig)
