"""Figures of the published long-context results (cited, never simulated) for the position section."""

from __future__ import annotations

from typing import Any

from .i18n import localize, tr
from .published import citation, longmemeval_accuracy, published

SHOWN = ("GPT-3.5-Turbo", "Claude-1.3", "LongChat-13B (16K)", "MPT-30B-Instruct")
"""The models drawn by default (their 16K / 100K twins give nearly the same curves)."""
COLORS = {"GPT-3.5-Turbo": "#c0504d", "Claude-1.3": "#8064a2", "LongChat-13B (16K)": "#4f81bd",
          "MPT-30B-Instruct": "#9bbb59"}


def _plt():
    import matplotlib.pyplot as plt

    from .fonts import use_cjk_font
    use_cjk_font()
    return plt


def plot_lost_in_the_middle(models: tuple[str, ...] = SHOWN) -> Any:
    """Published accuracy against the gold document's position at 20 documents (Liu et al., Table 6),
    with GPT-3.5-Turbo's closed-book accuracy dashed; the first, lowest and last value of each line labelled."""
    data = published("lost_in_the_middle")
    acc = data["position_accuracy_20_documents"]
    pos = acc["positions"]
    unknown = [m for m in models if m not in acc["models"]]
    if unknown:
        raise ValueError(f"plot_lost_in_the_middle(models=...): {unknown} not in the paper's table; "
                         f"choose from {list(acc['models'])}")
    fig, ax = _plt().subplots(figsize=(8.5, 4.6), constrained_layout=True)
    for m in models:
        ys = acc["models"][m]
        color = COLORS.get(m, "#555555")
        ax.plot(pos, ys, marker="o", color=color, label=m)
        low = min(range(len(ys)), key=ys.__getitem__)
        for i in sorted({0, low, len(ys) - 1}):
            last = i == len(ys) - 1
            ax.annotate(f"{ys[i]:.1f}", (pos[i], ys[i]), xytext=(7, -3) if last else (0, 6 if i != low else -12),
                        textcoords="offset points", ha="left" if last else "center", fontsize=8, color=color)
    closed = data["closed_book_and_oracle"]["models"]["GPT-3.5-Turbo"]["closed_book"]
    ax.axhline(closed, color=COLORS["GPT-3.5-Turbo"], linestyle="--", linewidth=1,
               label=f"GPT-3.5-Turbo closed-book (no documents): {closed:.1f}")
    ax.set_xticks(pos)
    ax.set_xlim(0, pos[-1] + 2.5)
    ax.set_xlabel("position of the document with the answer (1 = first of 20)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(45, 80)
    ax.set_title("Published, not simulated: accuracy by answer position, 20 documents\n"
                 "Liu et al., TACL 2024 (arXiv 2307.03172v3), Table 6; 2023 models", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", ncol=2)
    return localize(fig)


def plot_context_rot() -> Any:
    """Chroma's shipped GPT-4.1 LongMemEval results: percent correct with only the relevant history
    (focused) and with the whole history (full), each bar labelled with its value and input size."""
    d = published("context_rot")["longmemeval_gpt_4_1"]
    acc = longmemeval_accuracy()
    fig, ax = _plt().subplots(figsize=(6.5, 4.0), constrained_layout=True)
    names = ["focused input", "full input"]
    values = [acc["focused"], acc["full"]]
    bars = ax.bar([0, 1], values, color=["#4f81bd", "#c0504d"], width=0.55)
    ax.set_xticks([0, 1], [tr(name) for name in names])  # tick texts are redrawn: translate them now
    for bar, key, v in zip(bars, ("focused", "full"), values):
        ax.annotate(f"{v:.1f}%", (bar.get_x() + bar.get_width() / 2, v), xytext=(0, 3),
                    textcoords="offset points", ha="center", fontsize=9)
        ax.annotate(f"about {d[key]['mean_input_tokens']:,} tokens", (bar.get_x() + bar.get_width() / 2, 4),
                    ha="center", fontsize=8, color="white")
    ax.set_ylim(0, 100)
    ax.set_ylabel("questions answered correctly (%)")
    ax.set_title("Published, not simulated: GPT-4.1 on LongMemEval, 306 questions\n"
                 "Chroma, Context Rot (2025, not peer reviewed), shipped results", fontsize=10)
    return localize(fig)
