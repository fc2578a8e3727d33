"""How much wall time do the parallel patterns save? Measured, with a simulated response time.

The simulator answers instantly, so each request first waits ``latency`` seconds (``sim.models.slow``),
like a network round trip. Each pattern runs twice on the same inputs: with ``max_workers=1`` (the
calls one after another: the baseline, measured in the same run) and with one worker per call.

    speedup_table(latency=0.05, sizes=(2, 4, 8), reps=3) -> DataFrame

``ideal`` is what perfect overlap would give: all calls / the calls that must wait for each other
(the orchestrator's plan and synthesis always run alone).

Every pattern runs once, untimed, before the timing starts: a pattern's first call in a fresh process
pays one-off costs (imports, compiling the JSON output schema: seconds for the orchestrator) that
would otherwise land in the first timed serial run and inflate its speed-up far above the ideal.
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any, Callable

from agentlab.client import connect
from agentlab.experiments.patterns import data_line
from agentlab.sim.models.slow import Latency
from agentlab.views.i18n import localize
from agentlab.weather import city_names
from agentlab.workflows import run_orchestrator, run_sections, run_vote

if TYPE_CHECKING:  # imported where a table is built, not at import: pandas takes about 0.25 s to load
    import pandas as pd

WORKER = "Write one sentence on the city's weather."


def _runs(client: Any, cities: list[str]) -> dict[str, tuple[Callable[[int], Any], float]]:
    """pattern -> (run it with this many workers, ideal speed-up)."""
    n = len(cities)
    task = "Which is warmer, " + ", ".join(cities) + "?"
    return {
        "sectioning": (
            lambda w: run_sections(client, {c: data_line([c]) for c in cities}, system=WORKER, max_workers=w),
            float(n),
        ),
        "voting": (
            lambda w: run_vote(
                client,
                task + " " + data_line(cities),
                cities,
                max_workers=w,
                voters=[f"You are reviewer {i}." for i in range(n)],
            ),
            float(n),
        ),
        "orchestrator": (
            lambda w: run_orchestrator(
                client,
                task,
                worker_system=WORKER,
                synth_system=WORKER,
                context=lambda s: data_line([s["title"]]),
                max_workers=w,
            ),
            (n + 2) / 3,
        ),
    }


def speedup_table(latency: float = 0.05, sizes: tuple[int, ...] = (2, 4, 8), reps: int = 3) -> pd.DataFrame:
    """Median wall seconds serial (1 worker) and parallel (n workers), their ratio, and the ideal ratio."""
    import pandas as pd

    client = connect("sim", policy=Latency(seconds=latency), quiet=True)
    for run, _ in _runs(client, city_names()[: min(sizes)]).values():
        run(1)  # warm-up, untimed (see the module docstring)
    rows = []
    for n in sizes:
        cities = city_names()[:n]
        for name, (run, ideal) in _runs(client, cities).items():
            times: dict[int, list[float]] = {1: [], n: []}
            for _ in range(reps):
                for workers in (1, n):  # interleaved, so a busy moment hits both sides alike
                    t0 = time.perf_counter()
                    result = run(workers)
                    times[workers].append(time.perf_counter() - t0)
                    if result.stop_reason.value != "completed":
                        raise RuntimeError(f"{name} with {workers} workers did not complete: {result.detail}")
            serial, parallel = statistics.median(times[1]), statistics.median(times[n])
            rows.append(
                {
                    "pattern": name,
                    "calls in parallel": n,
                    "serial (s)": round(serial, 3),
                    "parallel (s)": round(parallel, 3),
                    "speed-up": round(serial / parallel, 2),
                    "ideal": round(ideal, 2),
                }
            )
    return pd.DataFrame(rows)


def plot_speedup(table: pd.DataFrame) -> Any:
    """Measured speed-up of each parallel pattern against its ideal, by number of parallel calls."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6), constrained_layout=True)
    for name, g in table.groupby("pattern", sort=False):
        (line,) = ax.plot(g["calls in parallel"], g["speed-up"], marker="o", label=f"{name} (measured)")
        ax.plot(g["calls in parallel"], g["ideal"], linestyle=":", color=line.get_color(), label=f"{name} (ideal)")
        for x, y in zip(g["calls in parallel"], g["speed-up"]):
            ax.annotate(f"{y:.1f}x", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel("calls that can run at once (count)")
    ax.set_ylabel("speed-up over 1 worker (x)")
    ax.legend(fontsize=7)
    ax.set_title("Wall-time speed-up with a simulated response time per call", fontsize=10)
    return localize(fig)
