"""Grading works when the virtual environment is reached through a symlink (``ln -s /elsewhere/.venv .venv``)."""

from __future__ import annotations

import csv
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from agentlab.grading import bwrap

REPO = Path(__file__).resolve().parents[2]

GRADE = """
import sys
from pathlib import Path
from agentlab.grading.gradebook import gradebook
klass, course, out = map(Path, sys.argv[1:4])
gradebook(klass, course, out, test_floor=8, jobs=1, progress=lambda s: None)
"""


def linked_python(tmp_path: Path) -> Path:
    """This interpreter, reached through a symlink to its environment's folder (as in a symlinked .venv)."""
    real = Path(os.path.realpath(sys.prefix))
    link = tmp_path / "checkout" / ".venv"
    link.parent.mkdir()
    link.symlink_to(real, target_is_directory=True)
    return link / Path(sys.executable).relative_to(sys.prefix)


def test_the_sandbox_runs_the_interpreter_through_its_resolved_folder(monkeypatch, tmp_path):
    python = linked_python(tmp_path)
    monkeypatch.setattr(sys, "executable", str(python))
    cmd, _env, _sandboxed = bwrap.sandbox_command(tmp_path / "lab", tmp_path / "s1", None, tmp_path / "s1-scratch")
    exe = cmd[cmd.index("agentlab.grading.student_server") - 2]
    assert exe == os.path.join(os.path.realpath(python.parent), python.name)  # no symlinked folder on the way
    assert str(tmp_path / "checkout") not in " ".join(cmd)


@pytest.mark.timeout(600)
@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_class_is_graded_with_a_symlinked_venv(course, tmp_path):
    python = linked_python(tmp_path)
    klass = tmp_path / "class"
    (klass / "alice").mkdir(parents=True)
    for name in ("ex01_basics.py", "ex02_loop.py"):
        (klass / "alice" / name).write_bytes((course / "exercises" / name).read_bytes())
    # with the venv lost inside the sandbox, its site-packages (the SDK, ...) were not on the path
    site_packages = [os.path.realpath(p) for p in site.getsitepackages() if p.startswith(sys.prefix)]
    check = (
        f"import sys\nif not {site_packages!r}[0] in sys.path:\n"
        "    raise ImportError(f'the venv is not on the path: {sys.path}')\n"
    )
    (klass / "alice" / "ex01_basics.py").write_text(check + (course / "exercises/ex01_basics.py").read_text())
    out = tmp_path / "out" / "gradebook.csv"
    out.parent.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [str(python), "-c", GRADE, str(klass), str(course), str(out)],
        cwd=tmp_path / "checkout",
        env=env,
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    assert (rows["alice"]["total"], rows["alice"]["notes"]) == ("8", ""), rows["alice"]
