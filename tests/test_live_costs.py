"""The checked-in live cost table (agentlab/data/live_costs.json, docs/<lang>/live_cost.md) is what the notebooks measure now.

Each notebook's row is priced again from the tally its run in the notebook store left (the same run
test_notebooks.py checks: no extra execution), so a notebook that sends more or fewer calls, or a price
change, fails here until ``python scripts/live_costs.py`` is run again.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agentlab.live.costs import measure, read_table
from agentlab.meter.prices import price_source
from notebook_store import xdist_group

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("live_costs", ROOT / "scripts" / "live_costs.py")
live_costs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(live_costs)


def test_the_table_has_one_row_per_notebook_and_todays_price_source():
    table = read_table()
    assert [r["notebook"] for r in table["notebooks"]] == [p.stem for p in NOTEBOOKS]
    assert table["price_source"] == price_source()


@pytest.mark.parametrize("path", [pytest.param(p, marks=xdist_group(p)) for p in NOTEBOOKS], ids=[p.stem for p in NOTEBOOKS])
def test_a_notebooks_row_is_what_its_offline_run_would_send_live(path, notebook_store):
    done = notebook_store.get(path)
    assert done.error is None, done.error
    row = next(r for r in read_table()["notebooks"] if r["notebook"] == path.stem)
    fresh = measure(path.stem, done.live_tally(), read_table()["default_model"])
    assert vars(fresh) == row, "run python scripts/live_costs.py to measure the notebooks again"


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_cost_page_is_the_table_and_readme_and_syllabus_link_it(lang):
    assert (ROOT / "docs" / lang / "live_cost.md").read_text("utf-8") == live_costs.page(read_table(), lang)
    assert "live_cost.md" in (ROOT / "docs" / lang / "syllabus.md").read_text("utf-8")
    assert f"docs/{lang}/live_cost.md" in (ROOT / "README.md").read_text("utf-8") or lang != "en"
