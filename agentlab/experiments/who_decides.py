"""Who decides "done" (course 3.3): each misbehaving simulated model against the guard meant for it.

``guard_demos`` runs each model with generous limits except the one guard meant for it, and
returns one row per run: the model, the guard that stopped it, what it saw, the limit, and calls.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from agentlab.client import connect
from agentlab.guards import Limits
from agentlab.loop import run_agent
from agentlab.sim.models.misbehaving import FakeClock, Looper, SlowModel, ToolOutsideList, Wanderer
from agentlab.trace import read_trace
from agentlab.views.i18n import localize
from agentlab.weather import city_task, task_tools

TASK = city_task(["Paris", "London"])
GENEROUS = 50
"""The turn limit of every demo run: far above the guard under test."""


def demos() -> list[tuple[str, object, dict]]:
    """(name, policy, limits) for each misbehaving model and the guard meant for it."""
    clock = FakeClock()
    return [
        ("looper", Looper(), {"max_repeats": 3}),
        ("wanderer", Wanderer(), {"max_repeats": 3, "max_idle_turns": 4}),
        ("slow model (3 s a call)", SlowModel(clock, 3.0, Looper()), {"max_wall_s": 10.0, "clock": clock}),
        ("tool outside its list", ToolOutsideList(), {"max_repeats": 2}),
        ("looper, token budget", Looper(), {"max_tokens": 3000}),
        ("looper, USD budget", Looper(), {"max_usd": 0.03}),
        ("looper, turn limit only", Looper(), {"max_turns": 6}),
    ]


def guard_demos(workdir: str | Path | None = None) -> list[dict]:
    """One row per misbehaving model: the stop event's guard, observed value and limit, and the model calls."""
    folder = Path(workdir or tempfile.mkdtemp(prefix="agentlab-guards-"))
    rows = []
    for i, (name, policy, limits) in enumerate(demos()):
        client = connect("sim", policy=policy, quiet=True)
        path = folder / f"run{i}.jsonl"
        run = run_agent(
            client, TASK, task_tools(folder / "notes"), limits=Limits(**{"max_turns": GENEROUS, **limits}), trace=path
        )
        stop = read_trace(path)[-1]
        rows.append(
            {
                "model": name,
                "stop": run.stop_reason.value,
                "guard": stop.get("guard"),
                "observed": stop.get("observed"),
                "limit": stop.get("limit"),
                "model calls": run.model_calls,
                "tokens": run.input_tokens + run.output_tokens,
            }
        )
    return rows


def plot_guards(rows: list[dict]):
    """Model calls before each guard stopped its model, labelled with the guard and observed/limit."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    names = [r["model"] for r in rows]
    ax.barh(names, [r["model calls"] for r in rows], color="#0072B2")
    for i, r in enumerate(rows):
        obs = f"{r['observed']:.3g}" if isinstance(r["observed"], float) else r["observed"]
        ax.annotate(
            f"{r['guard']}: {obs} / {r['limit']}",
            (r["model calls"], i),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.invert_yaxis()
    ax.set_xlabel("model calls before the guard stopped the run (count)")
    ax.set_xlim(0, max(r["model calls"] for r in rows) * 2.2)
    return localize(fig)
