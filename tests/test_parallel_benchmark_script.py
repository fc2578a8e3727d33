"""The parallel speed-up benchmark runs end to end (a smoke test: no timing is asserted)."""

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "tool_speedup.py"


def test_quick_run_prints_a_speedup_line_per_n():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300, cwd=SCRIPT.parents[1]
    )
    assert done.returncode == 0, done.stderr
    for n in (1, 2, 4):
        assert re.search(
            rf"^N={n}  serial \d+\.\d+ s  parallel \d+\.\d+ s  speed-up \d+\.\d+x \(ideal {n}x", done.stdout, re.M
        ), done.stdout
