"""The class's spend as one figure: each student's term spend against their term budget."""

from __future__ import annotations


def plot_spend(rows: list[dict]):
    """A horizontal bar per student (``Store.spend`` rows): spent this term, and the budget as a mark, in USD."""
    import matplotlib.pyplot as plt

    from agentlab.views.style import PALETTE

    names = [r["student"] for r in rows] or ["(no students)"]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(names) + 1.5))
    spent = [r["term_usd"] for r in rows] or [0]
    ax.barh(names, spent, color=PALETTE["blue"], label="spent this term")
    ax.scatter([r["term_budget"] for r in rows], names[: len(rows)], marker="|", s=300, color=PALETTE["vermillion"],
               label="term budget")  # fmt: skip
    ax.invert_yaxis()
    ax.set_xlabel("USD")
    ax.set_title("Class gateway: spend per student")
    ax.legend(loc="lower right")
    return fig
