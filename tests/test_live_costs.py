"""The checked-in live cost table (agentlab/data/live_costs.json, docs/<lang>/live_cost.md) is what the notebooks measure now.

Each notebook's row is priced again from the tally its run in the notebook store left (the same run
test_notebooks.py checks: no extra execution), so a notebook that sends more or fewer calls, or a price
change (a new genai-prices in ``uv.lock``), fails here until ``make regen`` is run again.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from notebook_store import xdist_group

from agentlab.live.costs import read_table
from agentlab.meter.prices import price_source
from agentlab.meter.usage import Usage

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("live_costs", ROOT / "scripts" / "live_costs.py")
live_costs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(live_costs)


def test_the_table_has_one_row_per_notebook_and_todays_price_source():
    table = read_table()
    assert [r["notebook"] for r in table["notebooks"]] == [p.stem for p in NOTEBOOKS]
    assert table["price_source"] == price_source(), (
        f"the cost table was priced with {table['price_source']!r}, the locked genai-prices gives {price_source()!r}: "
        "run `make regen`"
    )


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=xdist_group(p)) for p in NOTEBOOKS], ids=[p.stem for p in NOTEBOOKS]
)
def test_a_notebooks_row_is_what_its_offline_run_would_send_live(path, notebook_store):
    done = notebook_store.get(path)
    assert done.error is None, done.error
    row = next(r for r in read_table()["notebooks"] if r["notebook"] == path.stem)
    fresh = live_costs.notebook_cost(path.stem, done.live_tally(), read_table()["default_model"])
    assert vars(fresh) == row, "run `make regen` to measure the notebooks again"


KEY_ONLY_CELL = re.compile(r"""agentlab_mode\s*(!=\s*["']sim["']|==\s*["'](live|replay)["'])""")
"""A cell that branches on the mode so that it runs only with a key (or a recording of one)."""


def test_every_cell_that_runs_only_with_a_key_is_measured_into_its_notebooks_row():
    found = {}
    for path in NOTEBOOKS:
        cells = ["".join(c["source"]) for c in json.loads(path.read_text("utf-8"))["cells"] if c["cell_type"] == "code"]
        found.update({path.stem: source for source in cells if KEY_ONLY_CELL.search(source)})
    assert set(found) == set(live_costs.KEY_ONLY), (
        "add the notebook's key-only cell to KEY_ONLY in scripts/live_costs.py"
    )
    for notebook, source in found.items():
        assert live_costs.KEY_ONLY[notebook].split(":")[1] + "(" in source, (
            f"{notebook}'s key-only cell calls another function"
        )


def test_notebook_08bs_key_only_check_is_in_its_row_as_its_five_questions():
    rows = live_costs.key_only_tally("08b_position_and_length")
    assert sum(r["calls"] for r in rows) == 5, "one paid call per gold position (1, 5, 10, 15, 20)"
    row = next(r for r in read_table()["notebooks"] if r["notebook"] == "08b_position_and_length")
    assert row["calls"] >= 5 and row["input_tokens"] >= sum(Usage.from_api(r["usage"]).prompt_total for r in rows)


def test_the_table_counts_count_tokens_calls_and_the_page_totals_them():
    table = read_table()
    assert any(r["count_tokens"] for r in table["notebooks"]), "notebook 02 splits its input with count_tokens live"
    total = sum(r["count_tokens"] for r in table["notebooks"])
    for lang in ("en", "zh-CN"):
        last = live_costs.page(table, lang).splitlines()[-1].split("|")
        assert last[3].strip() == f"{total:,}", last


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_cost_page_is_the_table_and_readme_and_syllabus_link_it(lang):
    assert (ROOT / "docs" / lang / "live_cost.md").read_text("utf-8") == live_costs.page(read_table(), lang), (
        "run `make regen`"
    )
    assert "live_cost.md" in (ROOT / "docs" / lang / "syllabus.md").read_text("utf-8")
    assert f"docs/{lang}/live_cost.md" in (ROOT / "README.md").read_text("utf-8") or lang != "en"
