"""How much wall time do the parallel patterns save? Measured, with a simulated response time.

The simulator answers instantly, so each request first waits ``latency`` seconds (``sim.slow``),
like a network round trip. Each pattern runs twice on the same inputs: with ``max_workers=1`` (the
calls one after another: the baseline, measured in the same run) and with one worker per call.

    speedup_table(latency=0.05, sizes=(2, 4, 8), reps=3) -> DataFrame

``ideal`` is what perfect overlap would give: all calls / the calls that must wait for each other
(the orchestrator's plan and synthesis always run alone).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import pandas as pd

from ..client import connect
from ..sim.slow import Latency
from ..weather import city_names
from ..workflows import run_orchestrator, run_sections, run_vote
from .patterns import data_line

WORKER = "Write one sentence on the city's weather."


def _runs(client: Any, cities: list[str]) -> dict[str, tuple[Callable[[int], Any], float]]:
    """pattern -> (run it with this many workers, ideal speed-up)."""
    n = len(cities)
    task = "Which is warmer, " + ", ".join(cities) + "?"
    return {
        "sectioning": (lambda w: run_sections(client, {c: data_line([c]) for c in cities}, system=WORKER,
                                              max_workers=w), float(n)),
        "voting": (lambda w: run_vote(client, task + " " + data_line(cities), cities, max_workers=w,
                                      voters=[f"You are reviewer {i}." for i in range(n)]), float(n)),
        "orchestrator": (lambda w: run_orchestrator(client, task, worker_system=WORKER, synth_system=WORKER,
                                                    context=lambda s: data_line([s["title"]]), max_workers=w),
                         (n + 2) / 3),
    }


def speedup_table(latency: float = 0.05, sizes: tuple[int, ...] = (2, 4, 8), reps: int = 3) -> pd.DataFrame:
    """Median wall seconds serial (1 worker) and parallel (n workers), their ratio, and the ideal ratio."""
    client = connect("sim", policy=Latency(seconds=latency), quiet=True)
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
            rows.append({"pattern": name, "calls in parallel": n, "serial (s)": round(serial, 3),
                         "parallel (s)": round(parallel, 3), "speed-up": round(serial / parallel, 2),
                         "ideal": round(ideal, 2)})
    return pd.DataFrame(rows)
