"""The loop-overhead benchmark runs end to end (a smoke test: no timing is asserted, ever)."""

import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "loop_overhead.py"


def test_quick_run_exits_0_and_prints_a_ratio_line_per_n():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True,
                          encoding="utf-8", timeout=300, env=env, cwd=SCRIPT.parents[1])
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    for n in (5, 20):
        line = re.search(rf"^N={n}\s+ratio (\d+\.\d+)x \(agentlab\+trace vs plain\): "
                         r"(within target|over target: \d+\.\d+x > 1\.10x)", done.stdout, re.MULTILINE)
        assert line, f"no ratio line for N={n} in:\n{done.stdout}"
        assert float(line.group(1)) > 0
    assert "wire check: all variants sent identical request bodies" in done.stdout, done.stdout
