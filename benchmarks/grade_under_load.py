"""Grade the instructor edition 10 times while four CPU-bound processes run; print each score.

    .venv/bin/python benchmarks/grade_under_load.py [--runs 10] [--hogs 4]

Each run is `python -m pytest exercises` (what `make grade` runs) in this repo. A correct solution
must get full marks every time, however busy the machine: only test bodies are timed, after a
warm-up, against generous limits. Prints the score of every run and how many were full marks.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _burn() -> None:
    while True:
        sum(i * i for i in range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=4)
    args = parser.parse_args()
    hogs = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    full = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(1, args.runs + 1):
                report = Path(tmp) / f"grade{run}.json"
                t0 = time.monotonic()
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pytest",
                        "-q",
                        "-p",
                        "no:cacheprovider",
                        "exercises",
                        f"--grade-json={report}",
                    ],
                    cwd=ROOT,
                    capture_output=True,
                    timeout=1800,
                )
                data = json.loads(report.read_text())
                earned, possible = data["total"]["earned"], data["total"]["possible"]
                full += earned == possible
                lost = [f"{t['name']}: {t['reason']}" for t in data["tests"] if t["outcome"] != "passed"]
                print(
                    f"run {run:2d}: {earned:g}/{possible:g} in {time.monotonic() - t0:.1f} s "
                    f"with {args.hogs} CPU-bound processes alongside" + (f"; lost: {lost}" if lost else ""),
                    flush=True,
                )
    finally:
        for h in hogs:
            h.terminate()
    print(f"\nfull marks in {full} of {args.runs} runs")


if __name__ == "__main__":
    main()
