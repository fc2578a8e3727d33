"""The capstone's figure: each recorded run's model calls, input and output tokens per call, read from its trace."""

from __future__ import annotations

from typing import Any

from .i18n import localize


def plot_call_tokens(traces: dict[str, list[dict]]) -> Any:
    """One panel per trace: input tokens of each model call (the ``usage`` of its ``response`` events),
    each bar labelled; the panels share the y axis so the runs compare at a glance."""
    import matplotlib.pyplot as plt

    from .fonts import use_cjk_font
    use_cjk_font()
    if not traces:
        raise ValueError("plot_call_tokens(traces={}): give at least one trace, e.g. {'agent': read_trace(path)}")
    fig, axes = plt.subplots(1, len(traces), figsize=(2.6 * len(traces) + 1, 3.8), sharey=True,
                             constrained_layout=True, squeeze=False)
    for ax, (name, events) in zip(axes[0], traces.items()):
        usage = [e.get("usage") or {} for e in events[1:] if e.get("event") == "response"]
        calls = list(range(1, len(usage) + 1))
        values = [u.get("input_tokens", 0) for u in usage]
        bars = ax.bar(calls, values, color="#4f81bd")
        for bar, v in zip(bars, values):
            ax.annotate(f"{v:,}", (bar.get_x() + bar.get_width() / 2, v), xytext=(0, 2), textcoords="offset points",
                        ha="center", fontsize=8)
        ax.set_xticks(calls)
        ax.set_title(f"{name}: {len(usage)} model call{'' if len(usage) == 1 else 's'}", fontsize=9)
        ax.set_xlabel("model call")
    axes[0][0].set_ylabel("input tokens of the call (estimate)")
    axes[0][0].margins(y=0.15)
    return localize(fig)
