"""What the README says the demo prints is what `agentlab compare` prints today (a stale number fails here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _demo_block() -> list[str]:
    text = README.read_text("utf-8")
    block = re.search(r"run both ways:\n\n```\n(.*?)```", text, re.S)
    assert block, "README: the demo block after 'run both ways:' is missing"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and ln.strip() != "..."]


def test_readme_demo_table_matches_agentlab_compare(tmp_path):
    out = subprocess.run([sys.executable, "-m", "agentlab", "compare", "--png", str(tmp_path / "c.png")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, encoding="utf-8")
    assert out.returncode == 0, out.stderr
    printed = out.stdout.splitlines()
    stale = [ln for ln in _demo_block() if ln.rstrip() not in (p.rstrip() for p in printed)]
    assert not stale, f"README demo lines that `agentlab compare` no longer prints: {stale}"
