"""Every notebook of both editions runs top to bottom, headless and offline, and is stored without outputs.

The run itself is the shared one from the notebook store (tests/notebook_store.py): executed once per
edition, then read here, by the claim tests and by the figure tests alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from i18n_cases import FIGURE_CELL
from notebook_replay import DIALS_BY_DESIGN
from notebook_store import ADDED_IN_FRONT, xdist_group

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
BOTH_EDITIONS = NOTEBOOKS + sorted((NOTEBOOK_DIR / "zh-CN").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=xdist_group(p), id=str(p.relative_to(NOTEBOOK_DIR))) for p in BOTH_EDITIONS]
)
def test_notebook_runs_offline(path: Path, notebook_store) -> None:
    """Execute every cell on the simulator (no API key, so connect() picks sim); a failing cell fails the test,
    and so do a traceback printed on stderr, a glyph drawn as a box (a font without it), a cell that draws a
    figure but shows no image (what the browser test checks on the page, here for every notebook of both
    editions), and a connection to anywhere (the run has the network blocked, as a replay has)."""
    done = notebook_store.get(path)
    if done.error:
        pytest.fail(f"{path.relative_to(NOTEBOOK_DIR)}: a cell failed:\n{done.error}", pytrace=False)
    ran = [c for c in done.nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in ran), f"{path.name}: some code cells never ran"
    own = [c for c in done.nb.cells[ADDED_IN_FRONT:-1] if c.cell_type == "code"]
    tracebacks = [
        (i, o["text"][:1500])
        for i, c in enumerate(own)
        for o in c.get("outputs", [])
        if o.get("name") == "stderr" and "Traceback" in o["text"]
    ]
    assert not tracebacks, f"{path.name}: tracebacks on stderr (code cell, text): {tracebacks}"
    boxes = [i for i, c in enumerate(own) for o in c.get("outputs", []) if "missing from font" in o.get("text", "")]
    assert not boxes, f"{path.name}: code cells {boxes} drew glyphs as boxes (said once a kernel: this, its first pass)"
    assert all(dial in DIALS_BY_DESIGN for dial in done.dialed()), (
        f"{path.name}: the offline run reached for the network: {done.dialed()}"
    )
    imageless = [
        i
        for i, c in enumerate(own)
        if FIGURE_CELL.search(c.source) and not any("image/png" in o.get("data", {}) for o in c.get("outputs", []))
    ]
    assert not imageless, f"{path.name}: code cells {imageless} draw a figure but show no image"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_stripped(path: Path) -> None:
    """Notebooks are committed without outputs or execution counts, on the ``python3`` kernel."""
    nb = nbformat.read(path, as_version=4)
    dirty = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert not dirty, (
        f"{path.name}: code cells {dirty} have outputs or execution counts; clear them "
        "(e.g. jupyter nbconvert --clear-output --inplace) before committing"
    )
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec must be python3"
    for edition in (path, path.parent / "zh-CN" / path.name):  # nbformat.read fills in a missing id, with a warning
        cells = json.loads(edition.read_text(encoding="utf-8"))["cells"]
        unnamed = [i for i, c in enumerate(cells) if not c.get("id")]
        assert not unnamed, (
            f"{edition.relative_to(NOTEBOOK_DIR)}: cells {unnamed} have no id (nbformat 4.5 needs "
            "one, and a later nbformat refuses the file); give each a short unique id"
        )


@pytest.mark.parametrize("path", BOTH_EDITIONS, ids=lambda p: str(p.relative_to(NOTEBOOK_DIR)))
def test_a_notebook_with_graded_exercises_says_an_edit_needs_a_restart_or_autoreload(path: Path) -> None:
    """A kernel keeps the exercise module it imported first: an edit is seen only after a restart (or autoreload)."""
    cells = json.loads(path.read_text("utf-8"))["cells"]
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    if "exercises/ex" in prose:
        assert "%autoreload 2" in prose and ("restart the kernel" in prose or "重启内核" in prose), (
            f"{path.name}: say that an edited exercises/exNN_*.py needs a kernel restart or %autoreload"
        )


@pytest.mark.parametrize("path", BOTH_EDITIONS, ids=lambda p: str(p.relative_to(NOTEBOOK_DIR)))
def test_every_notebook_opens_with_its_question_and_two_to_four_learning_goals(path: Path) -> None:
    first = "".join(json.loads(path.read_text("utf-8"))["cells"][0]["source"])
    zh = "zh-CN" in path.parts
    head = "**学习目标。** 学完这本笔记本，你能够：" if zh else "**Learning goals.** After this notebook you can:"
    assert ("**问题：" if zh else "**Question:") in first and head in first, (
        f"{path.name}: no question or learning goals"
    )
    goals = first.split(head, 1)[1].split("\n\n", 1)[0].strip().splitlines()
    assert 2 <= len(goals) <= 4 and all(g.startswith("- ") for g in goals), f"{path.name}: {goals}"


PREDICTING = [p for p in BOTH_EDITIONS if not p.name.startswith("00_")]
"""Every notebook but the setup one asks for a prediction before its main experiment."""


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=xdist_group(p), id=str(p.relative_to(NOTEBOOK_DIR))) for p in PREDICTING]
)
def test_a_prediction_written_before_the_main_experiment_is_answered_by_that_run(path: Path, notebook_store) -> None:
    """A code cell sets ``my_guess``, the experiment runs, and a later cell's ``reveal`` prints what the run showed;
    run headless with no guess, it says so, in the notebook's language."""
    cells = nbformat.read(path, as_version=4).cells
    asks = [i for i, c in enumerate(cells) if c.cell_type == "code" and "\nmy_guess =" in "\n" + c.source]
    answers = [i for i, c in enumerate(cells) if c.cell_type == "code" and "reveal(my_guess" in c.source]
    assert len(asks) == len(answers) == 1 and asks[0] + 1 < answers[0], f"{path.name}: {asks} then {answers}"
    assert cells[asks[0] - 1].cell_type == "markdown", f"{path.name}: a sentence before the prediction says what to do"
    done = notebook_store.get(path)
    assert not done.error, done.error
    printed = "".join(o.get("text", "") for o in done.nb.cells[answers[0] + 1].get("outputs", []))
    say = "上面没有写下猜测；这次运行得到 " if "zh-CN" in path.parts else "no guess written above; this run shows "
    assert say in printed, f"{path.name}: the answer cell printed {printed!r}"
