"""Figures for the notebooks and the CLI: one finding per figure, units on every axis, values labelled.

Sizes fit a notebook at laptop width (about 9 inches at 100 dpi) without shrinking the text.
"""

from __future__ import annotations

from typing import Any

from agentlab.meter.breakdown import LABELS
from agentlab.run import Run
from agentlab.views.fonts import use_cjk_font
from agentlab.views.i18n import localize

COLORS = {
    "tool_prompt": "#CC79A7",
    "tool_definitions": "#b3a2c7",
    "system": "#E69F00",
    "task": "#009E73",
    "history": "#a6a6a6",
    "new": "#0072B2",
}
"""One color per input part; history is grey (it is what gets re-sent)."""
RUN_COLORS = ["#D55E00", "#0072B2", "#009E73", "#CC79A7"]


def pyplot():
    """``matplotlib.pyplot``, imported on first use, with a font that has CJK glyphs."""
    import matplotlib.pyplot as plt

    use_cjk_font()  # Chinese titles and labels render as glyphs, not boxes
    return plt


def _stacked(ax: Any, x: list, layers: list[tuple[str, list[float], str]]) -> None:
    """Stacked bars, one layer per (label, values, color), with each bar's total written on top."""
    bottom = [0.0] * len(x)
    for label, values, color in layers:
        if any(values):
            ax.bar(x, values, bottom=bottom, color=color, label=label)
            bottom = [b + v for b, v in zip(bottom, values)]
    for xi, total in zip(x, bottom):
        ax.annotate(
            f"{total:,.0f}",
            (xi, total),
            ha="center",
            va="bottom",
            fontsize=8,
            xytext=(0, 2),
            textcoords="offset points",
        )
    ax.margins(y=0.12)


def _part_layers(run: Run) -> list[tuple[str, list[float], str]]:
    """Per-turn layers by input part; re-prefill / new when a turn's split is unknown (live without counts)."""
    if all(t.breakdown is not None for t in run.turns):
        layers = [(LABELS[k], [t.breakdown.parts()[k] for t in run.turns], COLORS[k]) for k in LABELS]
        residual = [t.breakdown.residual for t in run.turns]
        if any(residual):
            layers.append(("not explained by the counts (residual)", residual, "#dddddd"))
        return layers
    return [
        ("re-prefill (sent before)", [t.reprefill_tokens for t in run.turns], COLORS["history"]),
        ("new this turn", [t.prompt_tokens - t.reprefill_tokens for t in run.turns], COLORS["new"]),
    ]


def plot_tokens_per_turn(run: Run, title: str | None = None) -> Any:
    """Left: each turn's input stacked by part (tool-use prompt, tool definitions, system, task,
    history, new). Right: the input paid so far, turn by turn, against a straight line through turn 1."""
    fig, (ax, cum) = pyplot().subplots(
        1, 2, figsize=(9.5, 4.2), constrained_layout=True, gridspec_kw={"width_ratios": [1.35, 1]}
    )
    turns = [t.index for t in run.turns]
    _stacked(ax, turns, _part_layers(run))
    ax.set_xlabel("turn (model call number)")
    ax.set_ylabel("input tokens of the call (tokens)")
    ax.set_xticks(turns)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)  # under the axes: no total under it
    totals = [sum(t.prompt_tokens for t in run.turns[:i]) for i in range(1, len(turns) + 1)]
    cum.plot(turns, totals, marker="o", label="measured")
    cum.plot(
        turns,
        [totals[0] * n for n in turns],
        linestyle="--",
        color="#999999",
        label="if every turn cost what turn 1 did",
    )
    cum.annotate(
        f"{totals[-1]:,}",
        (turns[-1], totals[-1]),
        ha="right",
        va="bottom",
        fontsize=8,
        xytext=(-4, 4),
        textcoords="offset points",
    )
    cum.set_xlabel("turn (model call number)")
    cum.set_ylabel("input tokens so far (tokens)")
    cum.set_xticks(turns)
    cum.legend(fontsize=8, loc="lower right")  # the curves climb to the upper right, where the total is written
    est = ", estimated by the simulator" if run.estimated else ""
    fig.suptitle(title or f"{run.kind}: where each turn's input goes ({run.model}{est})", fontsize=11)
    return localize(fig)


def plot_comparison(runs: list[Run], title: str | None = None, labels: list[str] | None = None) -> Any:
    """Agent vs workflow in four labelled panels: model calls, input tokens (fixed overhead, history,
    new), output tokens, cost. ``labels`` names the bars (default: each run's kind)."""
    from matplotlib.ticker import MaxNLocator

    names = labels or [r.kind for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"plot_comparison: bar labels must differ, got {names}; pass labels=[...]")
    fig, axes = pyplot().subplots(2, 2, figsize=(9, 6.4), constrained_layout=True)
    (calls, inputs), (outputs, costs) = axes
    colors = RUN_COLORS[: len(runs)]
    bars = calls.bar(names, [r.model_calls for r in runs], color=colors)
    calls.bar_label(bars, fontsize=9)
    calls.set_ylabel("model calls (count)")
    calls.yaxis.set_major_locator(MaxNLocator(integer=True))
    calls.margins(y=0.15)
    _stacked(inputs, names, _input_layers(runs))
    inputs.set_ylabel("input tokens, all calls (tokens)")
    inputs.set_ylim(top=1.9 * max(sum(t.prompt_tokens for t in r.turns) for r in runs) or 1)
    inputs.legend(fontsize=8, loc="upper right")  # in the headroom above the bars, over no total
    bars = outputs.bar(names, [r.output_tokens for r in runs], color=colors)
    outputs.bar_label(bars, fontsize=9)
    outputs.set_ylabel("output tokens, all calls (tokens)")
    outputs.margins(y=0.15)
    bars = costs.bar(names, [r.cost_usd or 0.0 for r in runs], color=colors)
    costs.bar_label(bars, labels=["no price" if r.cost_usd is None else f"${r.cost_usd:.5f}" for r in runs], fontsize=9)
    costs.set_ylabel("cost (USD)")
    costs.margins(y=0.15)
    est = " (tokens estimated by the simulator)" if any(r.estimated for r in runs) else ""
    fig.suptitle((title or f"Same task, two code paths: {runs[0].model}") + est, fontsize=11)
    return localize(fig)


def _input_layers(runs: list[Run]) -> list[tuple[str, list[float], str]]:
    """Each run's input summed over its calls: fixed overhead (tool prompt, definitions, system, task), history, new."""
    if all(t.breakdown is not None for r in runs for t in r.turns):
        fixed = [sum(t.breakdown.fixed for t in r.turns) for r in runs]
        tools = [sum(t.breakdown.tool_prompt + t.breakdown.tool_definitions for t in r.turns) for r in runs]
        return [
            ("tool-use prompt + tool definitions", tools, COLORS["tool_prompt"]),
            ("system + task", [f - t for f, t in zip(fixed, tools)], COLORS["task"]),
            ("history (earlier turns)", [sum(t.breakdown.history for t in r.turns) for r in runs], COLORS["history"]),
            (
                "new this turn",
                [sum(t.breakdown.new + t.breakdown.residual for t in r.turns) for r in runs],
                COLORS["new"],
            ),
        ]
    return [
        ("new", [r.input_tokens - r.reprefill_tokens for r in runs], COLORS["new"]),
        ("re-prefill (sent before)", [r.reprefill_tokens for r in runs], COLORS["history"]),
    ]


def bars(ax: Any, names: list[str], values: list[float], fmt: str, color: Any, ylabel: str) -> None:
    """Bars with their values written on top (``fmt``, e.g. ``"{:.0f}"``), x labels turned to fit."""
    drawn = ax.bar(names, values, color=color)
    ax.bar_label(drawn, labels=[fmt.format(v) for v in values], fontsize=7)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    ax.margins(y=0.15)
