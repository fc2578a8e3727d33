"""A student's two notebook mistakes, each answered in one line: cells out of order, an exercise edited unseen."""

from __future__ import annotations

import os
import sys

import pytest

from agentlab.live import notebook


@pytest.fixture
def shell(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from agentlab.live.errors import install_notebook_handler

    sh = InteractiveShell.instance()
    assert install_notebook_handler()
    capsys.readouterr()
    yield sh
    InteractiveShell.clear_instance()


def test_a_cell_run_before_the_cell_that_defines_its_name_gets_one_line_saying_run_the_cells_above(shell, capsys):
    shell.run_cell("x = 1\nprint(run.final_text)")
    out = capsys.readouterr().out.strip()
    assert out.startswith("NameError (line 2 of the cell): name 'run' is not defined.")
    assert "run the cells above first" in out and "Traceback" not in out and len(out.splitlines()) == 1


def test_other_errors_keep_their_traceback(shell, capsys):
    shell.run_cell("1 / 0")
    captured = capsys.readouterr()
    assert "ZeroDivisionError" in captured.out + captured.err and "cells above" not in captured.out


@pytest.fixture
def exercises_pkg(tmp_path, monkeypatch):
    """A throwaway ``exercises`` package first on sys.path (the real one's modules set aside meanwhile)."""
    pkg = tmp_path / "exercises"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ex99_demo.py").write_text("def answer():\n    return 1\n")
    saved = {k: v for k, v in sys.modules.items() if k == "exercises" or k.startswith("exercises.")}
    for k in saved:
        del sys.modules[k]
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(notebook, "_seen", {})
    monkeypatch.setattr(notebook, "_said", set())
    yield pkg / "ex99_demo.py"
    for k in [k for k in sys.modules if k == "exercises" or k.startswith("exercises.")]:
        del sys.modules[k]
    sys.modules.update(saved)


def test_an_exercise_edited_after_import_is_named_once_before_the_next_cell(shell, capsys, exercises_pkg):
    shell.run_cell("from exercises.ex99_demo import answer\nprint(answer())")
    assert capsys.readouterr().out.strip() == "1"
    exercises_pkg.write_text("def answer():\n    return 2\n")
    stamp = os.stat(exercises_pkg).st_mtime + 5
    os.utime(exercises_pkg, (stamp, stamp))  # a later save, whatever the filesystem's clock resolution
    shell.run_cell("print(answer())")
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("agentlab: exercises/ex99_demo.py changed after this kernel imported it")
    assert "restart the kernel" in out[0] and "%autoreload 2" in out[0] and out[1] == "1"  # the old code ran
    shell.run_cell("print(answer())")
    assert capsys.readouterr().out.strip() == "1", "said once per edit, not before every cell"


def test_no_line_when_nothing_changed_or_autoreload_is_on(shell, capsys, exercises_pkg):
    shell.run_cell("from exercises.ex99_demo import answer")
    shell.run_cell("print(answer())")
    assert capsys.readouterr().out.strip() == "1"
    exercises_pkg.write_text("def answer():\n    return 3\n")
    stamp = os.stat(exercises_pkg).st_mtime + 5
    os.utime(exercises_pkg, (stamp, stamp))
    assert notebook.stale_lines(autoreload=True) == [] and notebook.stale_lines() == []
