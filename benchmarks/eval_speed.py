"""How long `agentlab eval` takes offline: 2 variants x 50 trials of each of the task set's tasks.

    .venv/bin/python benchmarks/eval_speed.py [--trials 50]

Target (issue 45): at most 20 s on this 2-core machine for both variants at 50 trials per task, the whole
`agentlab eval --trials 50` command included (interpreter, imports, summary). The baseline, measured in the
same run, is one `agentlab eval --trials 1`: the fixed start-up, so the per-trial cost shows apart from it.
Prints wall and CPU time of each and says "within target" or "over target"; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 20.0
ROOT = Path(__file__).resolve().parents[1]


def timed(trials: int) -> tuple[float, float]:
    """Wall and CPU seconds of one `agentlab eval --trials N` in a fresh interpreter, into a fresh file."""
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "agentlab", "eval", "--trials", str(trials), "-k", "1", "--out", f"{tmp}/e.csv"],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=50)
    args = p.parse_args()
    base_wall, base_cpu = timed(1)
    wall, cpu = timed(args.trials)
    runs = 2 * 5 * args.trials
    print(f"agentlab eval --trials 1 (start-up, the baseline): {base_wall:.1f} s wall, {base_cpu:.1f} s CPU")
    print(f"agentlab eval --trials {args.trials} ({runs} runs): {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"per run beyond the baseline: {(wall - base_wall) / (runs - 10) * 1000:.0f} ms wall")
    verdict = "within target" if wall <= TARGET_S else "over target"
    print(f"{verdict}: {wall:.1f} s against {TARGET_S:.0f} s (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
