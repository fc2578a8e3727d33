"""How long does the full sweep take offline? (target, issue 11: 80 runs or more in under 10 s)

    python benchmarks/sweep_speed.py          # the full default sweep (agentlab.experiments.sweeps.sweep())
    python benchmarks/sweep_speed.py --quick  # smoke run: 2 city counts, one model

Prints the runs, model calls, wall and CPU time, and a baseline measured in the same run: the same
number of model calls made by a bare SDK loop on an instant canned transport (no simulator, no
agentlab), so the ratio says what the simulator and agentlab add per call on this machine now.
A measurement, not a test: it exits 0 whatever the numbers say.
"""

from __future__ import annotations

import argparse
import sys
import time

from _bench_common import CannedModel, make_client, plain_loop

from agentlab.experiments.sweeps import MODELS, sweep, sweep_grid

TARGET_S = 10.0
TARGET_RUNS = 80


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: cities 2 and 5, one model, short answers")
    args = ap.parse_args(argv)
    kw = dict(ns=[2, 5], models=MODELS[:1], long_output=(False,)) if args.quick else {}
    runs = len(sweep_grid(**kw))
    sweep(ns=[2], models=MODELS[:1], long_output=(False,), progress=False)  # warm up: imports, first-call caches
    w0, c0 = time.perf_counter(), time.process_time()
    df = sweep(progress=False, **kw)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    calls = int(df["turns"].sum())
    handler = CannedModel()
    client = make_client(handler)
    b0, bc0, done = time.perf_counter(), time.process_time(), 0
    while done < calls:  # the same number of calls, in runs of up to 20 turns
        k = min(20, calls - done)
        handler.reset(k)
        plain_loop(client, k + 1)
        done += k
    bare, bare_cpu = time.perf_counter() - b0, time.process_time() - bc0
    print(
        f"sweep: {len(df)} runs (grid {runs}), {calls} model calls, wall {wall:.2f} s, cpu {cpu:.2f} s, "
        f"{1000 * cpu / calls:.2f} ms cpu per call"
    )
    print(
        f"baseline: {calls} bare SDK calls on an instant canned transport, wall {bare:.2f} s, cpu {bare_cpu:.2f} s; "
        f"sweep / baseline = {cpu / bare_cpu:.1f}x (cpu), {wall / bare:.1f}x (wall)"
    )
    if wall > 1.5 * cpu:
        print(
            f"note: wall time is {wall / cpu:.1f}x the cpu time: other processes share the cores; "
            "the cpu time is what the sweep itself needs"
        )
    verdict = "within target" if wall < TARGET_S else f"over target: {wall:.1f} s >= {TARGET_S:.0f} s"
    enough = "" if len(df) >= TARGET_RUNS else f" (only {len(df)} runs: the target is for {TARGET_RUNS} or more)"
    print(f"full sweep time {wall:.2f} s for {len(df)} runs: {verdict}{enough}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
