"""The eval's figure: how the chance that k trials all succeed (pass^k) falls, and that one of k does (pass@k)
rises, as k grows, per variant, each with its interval (``agentlab.evals.estimators``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from agentlab.evals.estimators import interval, over_tasks
from agentlab.views.figures import RUN_COLORS

COLORS = {"agent": RUN_COLORS[0], "workflow": RUN_COLORS[1]}


def reliability(rows: Iterable[dict], max_k: int | None = None) -> dict[str, list[dict]]:
    """Per variant, for k = 1 .. ``max_k`` (default: the fewest trials of a task): pass@k and pass^k with their
    intervals."""
    by: dict[str, dict[str, list[bool]]] = {}
    for r in rows:
        by.setdefault(r["variant"], {}).setdefault(r["task"], []).append(bool(r["success"]))
    out = {}
    for variant, tasks in by.items():
        outcomes = list(tasks.values())
        points = []
        for k in range(1, min(max_k or len(outcomes[0]), *(len(o) for o in outcomes)) + 1):
            point = {"k": k}
            for kind in ("pass@k", "pass^k"):
                point[kind] = over_tasks(outcomes, k, kind)
                point[f"{kind} interval"] = interval(outcomes, k, kind, draws=2000)
            points.append(point)
        out[variant] = points
    return out


def plot_reliability(rows: Iterable[dict]):
    """pass@k (dashed) and pass^k (solid) against k, in percent, one colour a variant, intervals shaded; k up to
    half the trials of a task (near k = n a task's estimate is only 0 or 1: whether it went n for n)."""
    import matplotlib.pyplot as plt

    from agentlab.views.i18n import localize

    rows = list(rows)
    trials = min(Counter((r["variant"], r["task"]) for r in rows).values())  # the fewest trials of a task
    fig, ax = plt.subplots(figsize=(7.5, 4), constrained_layout=True)
    for n, (variant, points) in enumerate(reliability(rows, max(1, trials // 2)).items()):
        ks = [p["k"] for p in points]
        color = COLORS.get(variant, RUN_COLORS[2])
        dashes = ("--", ":")[n % 2]
        for kind, line, label in (
            ("pass^k", "-", "all k succeed (pass^k)"),
            ("pass@k", dashes, "one of k succeeds (pass@k)"),
        ):
            ax.plot(ks, [100 * p[kind] for p in points], line, color=color, lw=1.6, label=f"{variant}: {label}")
            lo, hi = zip(*(p[f"{kind} interval"] for p in points))
            ax.fill_between(ks, [100 * v for v in lo], [100 * v for v in hi], color=color, alpha=0.12, lw=0)
    ax.set_xticks(range(1, max(1, trials // 2) + 1))
    ax.set_xlabel("trials of the same task, k (count)")
    ax.set_ylabel("chance over the task set (%)")
    ax.set_ylim(0, 102)
    ax.set_title("Simulated (scripted model): how reliable each variant is over k trials")
    ax.legend(fontsize=8, loc="lower left")
    return localize(fig)


def plot_frontier(rows: Iterable[dict], k: int = 5):
    """Cost against reliability, one point a variant: USD per success (log scale) against pass@1 (hollow) and pass^k
    (filled, with its interval). A variant another beats on both (cheaper and at least as reliable) is dominated:
    the frontier is the variants left."""
    import matplotlib.pyplot as plt

    from agentlab.evals.trials import summarize
    from agentlab.views.i18n import localize

    table = summarize(rows, k=k)
    fig, ax = plt.subplots(figsize=(7.5, 4), constrained_layout=True)
    for variant, r in table.iterrows():
        color = COLORS.get(variant, RUN_COLORS[2])
        x = r["USD/success"]
        lo, hi = (float(v) for v in r[f"pass^{k} interval"].split("-"))
        y = r[f"pass^{k}"]
        below, above = max(0.0, y - lo), max(0.0, hi - y)  # on few trials the estimate can sit outside its band
        ax.errorbar([x], [100 * y], yerr=[[100 * below], [100 * above]], fmt="o", color=color, capsize=4)
        ax.plot([x], [100 * r["pass@1"]], "o", mfc="none", color=color)
        ax.annotate(variant, (x, 100 * y), textcoords="offset points", xytext=(8, -4), fontsize=9, color=color)
    ax.set_xscale("log")
    xs = sorted(table["USD/success"])
    ax.set_xlim(xs[0] / 2, xs[-1] * 2)
    ax.set_xticks(xs, [f"${x:.5f}" for x in xs])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set_xlabel("USD per success (log scale)")
    ax.set_ylabel(f"filled: all {k} trials succeed; hollow: one trial (%)")
    ax.set_ylim(0, 102)
    ax.set_title("Simulated (scripted model): what a success costs against how reliable it is")
    return localize(fig)
