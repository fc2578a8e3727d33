"""Figures for notebook 11: the injection matrix, the approval sweep, and ours beside the published numbers.

Every figure says where its numbers come from: "gullible simulated model" (what the harness let
through, the worst case) or "cited" (a real model's behaviour, from the paper named on the figure).
"""

from __future__ import annotations

from typing import Any

from agentlab.injection.published import agentdojo_rows, source
from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS
from agentlab.views.figures import pyplot
from agentlab.views.i18n import localize
from agentlab.views.style import HEATMAP, text_on

METRICS = ("benign utility %", "utility under attack %", "attack success %")
"""The matrix columns drawn as a heatmap (all in percent)."""


def plot_injection_matrix(frame: Any) -> Any:
    """Heatmap of the standard metrics (percent) per defence, each cell labelled; ``frame`` from ``matrix()``."""
    missing = [c for c in METRICS if c not in getattr(frame, "columns", [])]
    if missing:
        raise ValueError(
            f"plot_injection_matrix: the frame has no column {missing[0]!r}; pass agentlab.injection.matrix()"
        )
    plt = pyplot()
    values = frame[list(METRICS)].to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(8.5, 0.6 * len(frame) + 1.8))
    ax.imshow(values, cmap=HEATMAP, vmin=0, vmax=100, aspect="auto")  # higher is better: utility
    ax.imshow(  # the attack success column, reversed: lower is better
        values[:, 2:], cmap=HEATMAP + "_r", vmin=0, vmax=100, aspect="auto", extent=(1.5, 2.5, len(frame) - 0.5, -0.5)
    )
    for r in range(values.shape[0]):
        for c in range(values.shape[1]):
            shade = text_on(HEATMAP + ("_r" if c == 2 else ""), values[r, c] / 100)
            ax.text(c, r, f"{values[r, c]:.0f}%", ha="center", va="center", fontsize=10, color=shade)
    ax.set_xticks(range(len(METRICS)), ["benign utility", "utility under attack", "attack success rate"])
    ax.set_yticks(range(len(frame)), list(frame.index))
    ax.set_xlim(-0.5, 2.5)
    blocked = frame["benign calls blocked"].tolist() if "benign calls blocked" in frame else None
    if blocked is not None:
        for r, n in enumerate(blocked):
            ax.annotate(
                f"benign calls blocked: {n:.3g}",
                (2.55, r),
                xycoords="data",
                va="center",
                fontsize=8,
                annotation_clip=False,
            )
    ax.set_title(
        "Injection matrix: the harness's defences against a model that obeys every injection\n"
        f"(gullible simulated model, {len(USER_TASKS)} user tasks x {len(INJECTION_TASKS)} injection tasks; "
        "percent of cases)",
        fontsize=10,
    )
    fig.tight_layout()
    return localize(fig)


def plot_approval_sweep(frame: Any) -> Any:
    """Attack success and benign utility (percent) against the share of side effects a person approves."""
    plt = pyplot()
    rates = [100 * r for r in frame.index]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for col, color, label in (
        ("attack success %", "#D55E00", "attack success rate"),
        ("benign utility %", "#0072B2", "benign utility"),
    ):
        ys = frame[col].tolist()
        ax.plot(rates, ys, marker="o", color=color, label=label)
        for x, y in zip(rates, ys):
            ax.annotate(
                f"{y:.0f}%", (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8, color=color
            )
    ax.set_xlabel("side-effecting calls the person approves (%)")
    ax.set_ylabel("share of cases (%)")
    ax.set_ylim(-5, 112)
    ax.legend(loc="lower right")
    ax.set_title(
        "Confirmation before side effects: every refusal that stops an attack can stop a benign note\n"
        "(gullible simulated model; approver blind to content, averaged over seeds)",
        fontsize=10,
    )
    fig.tight_layout()
    return localize(fig)


OURS_BESIDE_AGENTDOJO = ("none", "least privilege", "data-flow guard")
"""Our matrix rows drawn beside AgentDojo's defences (ours has no prompt-side defences to match theirs)."""


def plot_published_beside_ours(frame: Any) -> Any:
    """Two panels, published numbers beside ours (from ``matrix()``), each bar labelled measured or cited.

    Left: benign utility with and without a data-flow defence, ours (gullible sim) beside CaMeL's.
    Right: attack success and utility by defence, AgentDojo's gpt-4o rows (cited, from a reprint of
    its results page) beside our matrix rows."""
    plt = pyplot()
    camel = {n["what"]: n["value"] for n in source("camel")["numbers"]}
    ours_none = float(frame.loc["none", "benign utility %"])
    ours_guard = float(frame.loc["data-flow guard", "benign utility %"])
    groups = [
        f"ours: data-flow guard\n(gullible sim, {len(USER_TASKS)} tasks)",
        "CaMeL on AgentDojo\n(cited, arXiv:2503.18813v2)",
    ]
    undefended = [ours_none, camel["AgentDojo tasks solved by the undefended system"]]
    defended = [ours_guard, camel["AgentDojo tasks solved with CaMeL (with provable security)"]]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 5.2), gridspec_kw={"width_ratios": [1, 1.35]})
    xs = range(len(groups))
    for off, vals, color, label in (
        (-0.2, undefended, "#a6a6a6", "no defence"),
        (0.2, defended, "#0072B2", "with the data-flow defence"),
    ):
        bars = ax.bar([x + off for x in xs], vals, width=0.38, color=color, label=label)
        for b, v in zip(bars, vals):
            ax.annotate(
                f"{v:.0f}%",
                (b.get_x() + b.get_width() / 2, v),
                ha="center",
                va="bottom",
                fontsize=9,
                xytext=(0, 2),
                textcoords="offset points",
            )
    ax.set_xticks(list(xs), groups)
    ax.set_ylabel("tasks done without attack (%)")
    ax.set_ylim(0, 115)
    ax.legend(loc="upper right")
    ax.set_title(
        "The utility cost of tracking data flow: ours measured, CaMeL's cited\n"
        "(different tasks and models: compare the drops, not the heights)",
        fontsize=10,
    )
    _agentdojo_panel(bx, frame)
    fig.tight_layout()
    return localize(fig)


def _agentdojo_panel(ax: Any, frame: Any) -> None:
    """Horizontal bars: targeted ASR and utility per defence, AgentDojo's gpt-4o rows then ours."""
    model = "gpt-4o-2024-05-13"
    cited = agentdojo_rows(model)
    labels = [f"{r['defence']}\n(AgentDojo, {model}, cited)" for r in cited]
    labels += [f"{name}\n(ours, gullible sim)" for name in OURS_BESIDE_AGENTDOJO]
    asr = [r["targeted ASR %"] for r in cited] + [
        float(frame.loc[n, "attack success %"]) for n in OURS_BESIDE_AGENTDOJO
    ]
    util = [r["utility %"] for r in cited] + [float(frame.loc[n, "benign utility %"]) for n in OURS_BESIDE_AGENTDOJO]
    ys = list(range(len(labels)))
    for off, vals, color, label in (
        (-0.2, asr, "#D55E00", "attack success rate"),
        (0.2, util, "#0072B2", "benign utility"),
    ):
        bars = ax.barh([y + off for y in ys], vals, height=0.38, color=color, label=label)
        for b, v in zip(bars, vals):
            ax.annotate(
                f"{v:.1f}%",
                (v, b.get_y() + b.get_height() / 2),
                va="center",
                fontsize=8,
                xytext=(2, 0),
                textcoords="offset points",
            )
    ax.axhline(len(cited) - 0.5, color="#808080", linewidth=0.8, linestyle="--")
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 118)
    ax.set_xlabel("share of cases (%)")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(
        "Attack success and utility by defence: AgentDojo cited, ours measured\n"
        "(AgentDojo: important_instructions attack, from a reprint of its results page)",
        fontsize=10,
    )
