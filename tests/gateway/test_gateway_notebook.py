"""A course notebook, unchanged, run live through the class gateway: only the student's two variables set."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from gateway_room import wait_settled

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the notebook store's kernel runner
from notebook_store import execute, kernel_env  # noqa: E402

from agentlab.live.costs import expected  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_the_loop.ipynb"


@pytest.mark.slow
def test_notebook_02_runs_unchanged_through_the_gateway_and_sends_what_the_live_cost_table_says(room):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env = {**kernel_env(), "ANTHROPIC_BASE_URL": room.running.url, "ANTHROPIC_API_KEY": room.tokens["ann"],
           "AGENTLAB_CONFIRM": "1"}  # fmt: skip
    execute(nb, cwd=NOTEBOOK.parent, env=env)
    shown = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "through the class gateway" in shown
    row = expected(NOTEBOOK.stem)
    wait_settled(room.store, row.calls + row.count_tokens)
    ledger = room.store._db.execute("SELECT endpoint, status, usd FROM ledger").fetchall()
    assert len(ledger) == row.calls + row.count_tokens, (len(ledger), row)
    assert sum(e.endswith("count_tokens") for e, _, _ in ledger) == row.count_tokens
    assert {status for _, status, _ in ledger} == {200} and all(usd >= 0 for _, _, usd in ledger)
    assert room.tokens["ann"] not in shown and "InstructorKey" not in shown
