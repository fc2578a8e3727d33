"""The loop-overhead benchmarks run end to end (smoke tests: no timing is asserted, ever)."""

import os
import re
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPT = BENCHMARKS / "loop_overhead.py"
PROFILE = BENCHMARKS / "loop_overhead_profile.py"


def _quick(script: Path) -> str:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=env,
        cwd=BENCHMARKS.parent,
    )
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def test_quick_run_exits_0_and_prints_a_ratio_line_per_n():
    out = _quick(SCRIPT)
    for n in (5, 20):
        line = re.search(
            rf"^N={n}\s+ratio (\d+\.\d+)x \(agentlab\+trace vs plain\): "
            r"(within target|over target: \d+\.\d+x > 1\.10x)",
            out,
            re.MULTILINE,
        )
        assert line, f"no ratio line for N={n} in:\n{out}"
        assert float(line.group(1)) > 0
    assert "wire check: all variants sent identical request bodies" in out, out
    for n in (5, 20):
        assert re.search(
            rf"^N={n}\s+cache on: per turn \d+\.\d us, ledger \(Meter\) \d+\.\d us = \d+\.\d% of the turn: "
            r"(within target|over target)",
            out,
            re.MULTILINE,
        ), out


def test_quick_profile_run_exits_0_and_prints_each_diagnostic():
    out = _quick(PROFILE)
    assert re.search(r"^  N=5: plain \d+, extra [+-]\d+, N=20: plain \d+, extra [+-]\d+$", out, re.MULTILINE), out
    assert re.search(r"^  profiled time per turn: plain \d+\.\d+ us, agentlab\+trace \d+\.\d+ us", out, re.MULTILINE), (
        out
    )
    for step in (
        "agentlab+trace as is",
        " - trace file (trace=None)",
        " - Meter's own work",
        " - the tool's worker thread",
        "reference: plain loop + a do-nothing SDK middleware",
        "reference: plain loop + a transport reading the JSON",
    ):
        assert re.search(rf"^  {re.escape(step)}.*?( +\d+\.\d+x \( *[+-]\d+\.\d\)){{2}}$", out, re.MULTILINE), (
            f"no what-if row {step!r} with a cell per N in:\n{out}"
        )
    for part in (
        "Harness.before_call",
        "Harness.after_call",
        "Executor",
        "the hand-over to a kept worker",
        "Meter.handle",
    ):
        # The middle column is "n/a" when the profiled difference is not positive (one noisy quick run can
        # put agentlab below plain); the row and its own-share column are still printed.
        assert re.search(
            rf"^ +(of which )?{re.escape(part)}.* +-?\d+\.\d +(-?\d+\.\d%|n/a) +-?\d+\.\d%$", out, re.MULTILINE
        ), f"no profile row for {part!r} in:\n{out}"


def test_parallel_speedup_quick_run_prints_a_line_per_pattern_and_size():
    out = _quick(BENCHMARKS / "parallel_speedup.py")
    for pattern in ("sectioning", "voting", "orchestrator"):
        for n in (2, 4):
            assert re.search(
                rf"^{pattern} +n={n}: serial \d+\.\d+ s, parallel \d+\.\d+ s, speed-up \d+\.\d+x "
                r"\(ideal \d+\.\d+x\)$",
                out,
                re.MULTILINE,
            ), f"no line for {pattern} n={n} in:\n{out}"


def test_quick_sweep_speed_run_prints_its_time_and_baseline():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "sweep_speed.py"), "--quick"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=env,
        cwd=BENCHMARKS.parent,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"^sweep: 6 runs \(grid 6\), \d+ model calls, wall \d+\.\d+ s, cpu \d+\.\d+ s", done.stdout, re.MULTILINE
    )
    assert re.search(r"^full sweep time \d+\.\d+ s for 6 runs: (within|over) target", done.stdout, re.MULTILINE)
