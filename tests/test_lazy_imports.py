"""Nothing heavy is imported before a function needs it (issue 23): a first command answers at once.

matplotlib, pandas, genai-prices, jsonschema and ipywidgets each cost a good part of a second or more
to import; ``import agentlab``, a notebook's first cell and ``agentlab compare``'s text table must not
pay for the ones they do not use. Each check runs in a fresh interpreter (this one has them all loaded).
benchmarks/startup.py measures what that saves, in CPU time against ``import anthropic``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("matplotlib", "pandas", "genai_prices", "jsonschema", "ipywidgets")
"""Top-level packages that are slow to import and needed only by some functions."""
_spec = importlib.util.spec_from_file_location("startup", ROOT / "benchmarks" / "startup.py")
startup = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(startup)  # the benchmark's own reading of a first cell: the test checks what it times

PROBE = "\nimport sys; print('LOADED ' + ' '.join(m for m in {heavy!r} if m in sys.modules))"


def _loaded(code: str, cwd: Path, *argv: str) -> set[str]:
    """The HEAVY packages a fresh interpreter has imported after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", code + PROBE.format(heavy=HEAVY), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("LOADED"))
    return set(line.split()[1:])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _imported_by_name(code: str) -> set[str]:
    """Top-level packages the code itself imports (``import pandas as pd``: pandas)."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_import_agentlab_imports_none_of_the_heavy_packages(tmp_path):
    assert _loaded("import agentlab", tmp_path) == set()


def test_connecting_and_running_the_agent_imports_none_of_the_heavy_packages(tmp_path):
    code = (
        "import agentlab; c = agentlab.connect('sim', quiet=True); "
        "run = agentlab.run_agent(c, agentlab.city_task(['Paris', 'London']), agentlab.task_tools('notes')); "
        "assert run.model_calls == 3"
    )
    assert _loaded(code, tmp_path) == set()


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FORKED = """
import json, os, sys, tempfile
import agentlab, agentlab.client  # every first cell imports these; each cell then runs in a fork of this process
heavy, cells = {heavy!r}, json.loads(sys.stdin.read())
out = {{"base": [m for m in heavy if m in sys.modules], "cells": {{}}}}
for name, code in cells.items():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.chdir(tempfile.mkdtemp(dir=os.getcwd()))  # under the fixture's folder, which pytest cleans
        try:
            exec(compile(code, name, "exec"), {{"__name__": "__main__"}})
            said = {{"loaded": [m for m in heavy if m in sys.modules]}}
        except BaseException as e:
            said = {{"error": type(e).__name__ + ": " + str(e)}}
        os.write(w, json.dumps(said).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    out["cells"][name] = json.loads(data)
print("FORKED " + json.dumps(out))
"""
"""Runs every notebook's first cell, each in a fork of one interpreter that has imported only ``agentlab`` and
``agentlab.client`` (every first cell's own first imports, and none of HEAVY, which the fixture checks): one
interpreter start and one ``import anthropic`` for all notebooks instead of one each (about 2 s apiece)."""


@pytest.fixture(scope="module")
def first_cells(tmp_path_factory) -> dict:
    if not hasattr(os, "fork"):
        pytest.skip("the first-cell checks fork one interpreter per cell (os.fork)")
    cells = {p.name: startup.first_cell(p) for p in NOTEBOOKS}
    out = subprocess.run(
        [sys.executable, "-c", FORKED.format(heavy=HEAVY)],
        input=json.dumps(cells),
        cwd=tmp_path_factory.mktemp("first-cells"),
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(next(ln for ln in out.stdout.splitlines() if ln.startswith("FORKED "))[len("FORKED ") :])
    assert result["base"] == [], f"importing agentlab.client loaded {result['base']}: the forks would hide it"
    return result["cells"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_notebooks_first_cell_imports_only_the_heavy_packages_it_names(path, first_cells):
    """The zh-CN twin has the same code (test_zh_notebooks.py), so this covers both editions."""
    code, ran = startup.first_cell(path), first_cells[path.name]
    assert "error" not in ran, f"{path.name}'s first cell failed: {ran.get('error')}"
    extra = set(ran["loaded"]) - _imported_by_name(code)
    assert not extra, f"{path.name}'s first cell imports {sorted(extra)} without using them; import them where needed"


def test_agentlab_compare_prints_its_table_without_matplotlib_pandas_or_jsonschema(compare_cli):
    """The CLI's compare imports every workflow pattern and runs both designs: none of them needs jsonschema."""
    assert compare_cli["returncode"] == 0, compare_cli["stderr"][-2000:]
    loaded = compare_cli["packages"] & set(HEAVY)
    assert loaded <= {"genai_prices"}, f"`agentlab compare` imported {sorted(loaded)}"  # prices are in its table
    assert compare_cli["png"] == [], f"without --png, compare draws no figure; it drew {compare_cli['png']}"


def test_building_the_cli_parser_imports_no_command_implementation(tmp_path):
    """``agentlab serve`` builds the whole parser first: grading and calibrate register without importing their code."""
    code = (
        "import sys, agentlab.cli as c; c.build_parser(); "
        "mods = ('agentlab.grading.release', 'agentlab.grading.credentials', 'agentlab.sim.calibrate', "
        "'agentlab.sim.calibrate_report'); "
        "loaded = [m for m in mods if m in sys.modules]; assert not loaded, loaded"
    )
    assert _loaded(code, tmp_path) == set()
