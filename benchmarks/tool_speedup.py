"""Wall-time speed-up of the parallel executor for N independent slow tool calls (N = 1..8).

Both executors run the same turn of N ``slow_lookup`` calls, each sleeping ``--seconds``; the ratio
serial/parallel is measured in this run (the serial executor is the baseline). Target: close to N.

    .venv/bin/python benchmarks/tool_speedup.py [--quick] [--seconds 0.1] [--png speedup.png]
"""

from __future__ import annotations

import argparse

from agentlab.experiments.tool_speedup import plot_speedup, speedups


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="N = 1, 2, 4 only, 0.05 s per call")
    p.add_argument("--seconds", type=float, default=0.1, help="sleep per tool call (default 0.1)")
    p.add_argument("--png", help="also save the figure here")
    a = p.parse_args()
    ns, seconds = ((1, 2, 4), 0.05) if a.quick else (range(1, 9), a.seconds)
    rows = speedups(ns, seconds)
    for r in rows:
        print(
            f"N={r['n']}  serial {r['serial_s']:.3f} s  parallel {r['parallel_s']:.3f} s  "
            f"speed-up {r['speedup']:.2f}x (ideal {r['n']}x, {r['speedup'] / r['n']:.0%} of ideal)"
        )
    if a.png:
        plot_speedup(rows).savefig(a.png, dpi=120)
        print(f"figure: {a.png}")


if __name__ == "__main__":
    main()
