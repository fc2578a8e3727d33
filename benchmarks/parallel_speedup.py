"""Wall-time speed-up of the parallel patterns (sectioning, voting, orchestrator-workers).

    python benchmarks/parallel_speedup.py            # latency 50 ms per call, 2/4/8 calls, median of 3
    python benchmarks/parallel_speedup.py --quick    # smoke run: 20 ms, 2 and 4 calls, one rep

Every simulated call waits ``--latency`` seconds (a stand-in for the network round trip; the
simulator itself answers instantly). Each pattern runs with one worker (the baseline, in the same
run, interleaved) and with one worker per call; the ratio is the speed-up, next to the ideal one.
A measurement, not a test: it prints the numbers and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentlab.experiments.speedup import speedup_table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 20 ms latency, 2 and 4 calls, one rep")
    ap.add_argument("--latency", type=float, default=None, help="seconds per simulated call (default 0.05)")
    args = ap.parse_args()
    latency = args.latency if args.latency is not None else (0.02 if args.quick else 0.05)
    sizes, reps = ((2, 4), 1) if args.quick else ((2, 4, 8), 3)
    table = speedup_table(latency=latency, sizes=sizes, reps=reps)
    print(f"simulated latency {latency * 1000:g} ms per call; baseline = the same pattern with max_workers=1")
    for r in table.to_dict("records"):
        print(
            f"{r['pattern']:<12} n={r['calls in parallel']}: serial {r['serial (s)']:.3f} s, parallel "
            f"{r['parallel (s)']:.3f} s, speed-up {r['speed-up']:.2f}x (ideal {r['ideal']:.2f}x)"
        )


if __name__ == "__main__":
    main()
