"""The README's picture is made by a script from a real (simulated) run, and the README shows it."""

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_script_draws_the_readme_picture(tmp_path):
    script = runpy.run_path(str(ROOT / "scripts" / "make_readme_figure.py"))
    out = script["main"](tmp_path / "figure.png")
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_readme_shows_the_committed_picture():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "](docs/agent_vs_workflow.png)" in readme
    assert (ROOT / "docs" / "agent_vs_workflow.png").read_bytes().startswith(b"\x89PNG")
