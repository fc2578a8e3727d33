"""What the README says the demo prints is what `agentlab compare` prints today (a stale number fails here)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _demo_block() -> list[str]:
    text = README.read_text("utf-8")
    block = re.search(r"run both ways:\n\n```\n(.*?)```", text, re.S)
    assert block, "README: the demo block after 'run both ways:' is missing"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and ln.strip() != "..."]


def test_readme_demo_table_matches_agentlab_compare(compare_cli):
    """What `agentlab compare` prints in a fresh interpreter (run once for this and the lazy-import test)."""
    assert compare_cli["returncode"] == 0, compare_cli["stderr"]
    printed = compare_cli["stdout"].splitlines()
    stale = [ln for ln in _demo_block() if ln.rstrip() not in (p.rstrip() for p in printed)]
    assert not stale, f"README demo lines that `agentlab compare` no longer prints: {stale}"


def _key_check() -> str:
    found = re.search(r'`(grep -rnE "sk-ant-[^`]+)`', README.read_text("utf-8"))
    assert found, 'README.md: the key check command (grep -rnE "sk-ant-...") is missing'
    return found.group(1)


def test_the_readme_key_check_is_silent_on_a_clean_copy_and_finds_a_planted_key(tmp_path):
    command = _key_check()
    clean = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert clean.stdout == "" and clean.returncode == 1, clean.stdout  # grep's 1: nothing found
    for folder in ("notebooks", "exercises", "docs"):
        (tmp_path / folder).mkdir()
    shutil.copy(ROOT / "notebooks" / "00_setup_and_your_key.ipynb", tmp_path / "notebooks")  # its placeholders
    key = "sk-ant-api03-" + "Ab1_" * 20
    (tmp_path / "exercises" / "ex99_leak.py").write_text(f'KEY = "{key}"\n')
    planted = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert planted.stdout.count("\n") == 1 and "ex99_leak.py:1:" in planted.stdout, planted.stdout
