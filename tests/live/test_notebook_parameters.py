"""Every notebook, in both editions, picks sim, replay or live in one small parameter cell, before any connect."""

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("**/*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(p.parents[1])) for p in NOTEBOOKS])
def test_the_first_code_cell_is_the_parameter_cell(path):
    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0], f"{path.name}: one cell tagged parameters, the first code cell"
    lines = [line for line in code[0].source.splitlines() if not line.startswith("#")]
    assert lines == [
        'MODE, CASSETTE, RECORD, MAX_USD = "auto", None, None, 0.50',
        "from agentlab.client import use; use(MODE, cassette=CASSETTE, record=RECORD, max_usd=MAX_USD)",
    ]
