"""Tie a claim test to the sentence it checks: ``where = said(notebook, cell, sentence)``, then ``assert ..., where``.

``said`` first checks that the sentence is still in that cell of the notebook, so editing the prose without
the test (or the test without the prose) fails here, and every failure names the notebook, the cell and the
sentence. Cells are numbered as in the file, from 0.
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def said(notebook: str, cell: int, sentence: str) -> str:
    """``"<notebook> cell <n>: '<sentence>'"`` once ``sentence`` is found in that cell (``notebook``: a path under
    notebooks/, e.g. ``"09_what_a_turn_costs"`` or ``"zh-CN/09_what_a_turn_costs"``)."""
    path = NOTEBOOKS / f"{notebook}.ipynb"
    cells = json.loads(path.read_text("utf-8"))["cells"]
    text = "".join(cells[cell]["source"]) if cell < len(cells) else ""
    assert sentence in text, (
        f"{notebook} cell {cell} no longer says {sentence!r}: update the prose and its test together"
    )
    return f"{notebook} cell {cell}: {sentence!r}"
