"""A tiny fake course repo for the grading tests: two exercise modules, their graded tests, a notebook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from system_packages import apt_install

REPO = Path(__file__).resolve().parents[2]

EX01 = '''"""Warm-up exercises."""


def add(a, b):
    """Exercise 1.1: return the sum of a and b."""
    ### BEGIN SOLUTION
    secret_total = a + b
    return secret_total
    ### END SOLUTION


def count_words(text):
    """Exercise 1.2: count the words in text, splitting on any whitespace.

    More words here that are not part of the stub.
    """
    ### BEGIN SOLUTION
    secret_words = text.split()  # secret: split() with no argument
    return len(secret_words)
    ### END SOLUTION
'''

EX02 = '''"""The loop exercise."""


def run_until_done(steps):
    """Exercise 2.1: call each step until one returns "done"; return how many steps ran."""
    count = 0
    for step in steps:
        ### BEGIN SOLUTION
        count += 1
        if step() == "done":  # secret stop condition
            break
        ### END SOLUTION
    return count
'''

TEST_EX01 = """import pytest

from agentlab.grading import lazy_import

ex01 = lazy_import("exercises.ex01_basics")


@pytest.mark.exercise("1.1")
@pytest.mark.points(2)
@pytest.mark.timeout(2)
def test_add():
    got = ex01.add(2, 3)
    assert got == 5, f"add(2, 3) should return 5, got {got!r}"


@pytest.mark.exercise("1.2")
@pytest.mark.points(1)
@pytest.mark.timeout(2)
def test_count_words_simple():
    got = ex01.count_words("hello agent world")
    assert got == 3, f"count_words('hello agent world') should return 3, got {got!r}"


@pytest.mark.exercise("1.2")
@pytest.mark.points(2)
@pytest.mark.timeout(2)
def test_count_words_extra_spaces():
    got = ex01.count_words("  two   words ")
    assert got == 2, f"count_words('  two   words ') should return 2, got {got!r}"


def test_not_graded():
    assert True
"""

TEST_EX02 = """import pytest

from agentlab.grading import lazy_import

ex02 = lazy_import("exercises.ex02_loop")


@pytest.mark.exercise("2.1")
@pytest.mark.points(3)
@pytest.mark.timeout(2)
def test_stops_at_done():
    called = []

    def step(name, result):
        return lambda: called.append(name) or result

    got = ex02.run_until_done([step("a", "more"), step("b", "done"), step("c", "more")])
    assert called == ["a", "b"], f"should call the steps until one returns 'done', but called {called}"
    assert got == 2, f"should return 2 (steps run), got {got!r}"
"""

NOTEBOOK_CELLS = [
    ("markdown", "# Intro\n"),
    (
        "code",
        '%matplotlib inline\ndef greet(name):\n    """Exercise 0.1: return a greeting for name."""\n'
        '    ### BEGIN SOLUTION\n    secret_greeting = f"Hello, {name}!"\n    return secret_greeting\n'
        "    ### END SOLUTION\n",
    ),
    ("code", 'greet("Ada")\n'),
    ("markdown", "**Why stop at end_turn?**\n### BEGIN SOLUTION\nBecause of secret reasons.\n### END SOLUTION\n"),
]


def write_notebook(path: Path) -> None:
    cells = []
    for kind, source in NOTEBOOK_CELLS:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            output = {"output_type": "stream", "name": "stdout", "text": ["secret output\n"]}
            cell.update(execution_count=1, outputs=[output])
        cells.append(cell)
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def build_course(root: Path) -> Path:
    files = {
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\n',
        "exercises/conftest.py": (REPO / "exercises" / "conftest.py").read_text(),
        "exercises/ex01_basics.py": EX01,
        "exercises/ex02_loop.py": EX02,
        "exercises/tests/test_ex01_basics.py": TEST_EX01,
        "exercises/tests/test_ex02_loop.py": TEST_EX02,
        "tools/markers_doc.py": 'DOC = """\n### BEGIN SOLUTION\n(not a marker: inside a string)\n"""\n',
        # never released:
        ".git/config": "secret",
        ".venv/pyvenv.cfg": "secret",
        "runs/run1.json": "secret",
        "notes/todo.md": "secret",
        "agentlab.egg-info/PKG-INFO": "secret",
        ".pytest_cache/x": "secret",
        "exercises/__pycache__/ex01_basics.cpython-311.pyc": "secret",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "notebooks").mkdir()
    write_notebook(root / "notebooks" / "01_intro.ipynb")
    # only the grading package, under the real agentlab/__init__.py (it imports nothing until a name is
    # used; it also turns on the guards in a process a submission starts during a forbids test)
    shutil.copytree(
        REPO / "agentlab" / "grading", root / "agentlab" / "grading", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(REPO / "agentlab" / "__init__.py", root / "agentlab" / "__init__.py")
    return root


@pytest.fixture(scope="session")
def course_template(tmp_path_factory) -> Path:
    return build_course(tmp_path_factory.mktemp("template") / "course")


@pytest.fixture
def course(course_template, tmp_path) -> Path:
    """A fresh copy of the instructor edition of the fake course."""
    return Path(shutil.copytree(course_template, tmp_path / "course", symlinks=True))


@pytest.fixture
def run_pytest():
    """Run ``python -m pytest ARGS`` in a folder, as a student would with ``make grade``."""

    def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run


@pytest.fixture(scope="session", autouse=True)
def bubblewrap():
    """Debian's bubblewrap, installed with apt-get where it is missing; without it the grader falls back
    (one-line notice) and the attack tests still run, on the weaker isolation."""
    if shutil.which("bwrap") is None:
        why = apt_install("bwrap", "bubblewrap")
        if why:
            print(f"\nbubblewrap missing and not installed ({why}); grading tests use the fallback isolation")
    return shutil.which("bwrap")
