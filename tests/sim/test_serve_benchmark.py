"""benchmarks/serve_load.py runs end to end on loopback (a smoke test: no timing is asserted)."""

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "serve_load.py"


def test_quick_run_prints_both_servers_and_the_ratio():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=600, cwd=SCRIPT.parents[1]
    )
    assert done.returncode == 0, done.stderr
    for kind in ("baseline", "current"):
        assert re.search(
            rf"^{kind}\s+sequential\s+\d+\.\d req/s .* concurrent \d+/50 answered \(\d+ req/s\)   server CPU per request (\d+\.\d+ ms|n/a)$",
            done.stdout,
            re.M,
        ), done.stdout
    assert re.search(
        r"^ratio current/baseline \(median of 1\): sequential \d+\.\d\dx, 50 concurrent \d+\.\d\dx$", done.stdout, re.M
    ), done.stdout
