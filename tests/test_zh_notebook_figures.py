"""A zh-CN notebook, run headless from its own folder as Jupyter runs it, draws its figures in Chinese.

Nothing tells the kernel the language: it starts in notebooks/zh-CN/ (as a Jupyter kernel starts in
its notebook's folder) and ``agentlab.views.i18n.language()`` reads that. The notebook store's run
(tests/notebook_store.py, the same run test_notebooks.py checks) puts a cell in front, in memory only,
that records for every figure an agentlab plot function localizes the language used and the texts
still English; the test reads that record back after the last cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_store import xdist_group

ZH_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "zh-CN"
NOTEBOOK = ZH_DIR / "02b_where_the_tokens_go.ipynb"
"""Stacked bars, curves and panels: most figure kinds, in a notebook that runs in well under a minute."""


@xdist_group(NOTEBOOK)
def test_a_zh_cn_notebook_run_from_its_folder_draws_chinese_figures(notebook_store):
    done = notebook_store.get(NOTEBOOK)  # the store's kernel has no AGENTLAB_LANG: the folder alone must pick Chinese
    if done.error:
        pytest.fail(f"{NOTEBOOK.name} (zh-CN): a cell failed:\n{done.error}", pytrace=False)
    seen = done.figures_localized()
    assert len(seen) >= 4, f"only {len(seen)} figures were localized; did the plot functions stop calling localize?"
    assert {s["lang"] for s in seen} == {"zh-CN"}, f"the zh-CN kernel drew in {[s['lang'] for s in seen]}"
    data = ("tool_result: ", "save_note(", "get_weather(")  # arrow labels carrying the run's own data
    left = [t for s in seen for t in s["left"] if not t.startswith(data)]
    assert not left, (
        f"English text left in the zh-CN notebook's figures: {left}; add it to "
        "agentlab/data/i18n/zh-CN/plots.json (or your area's file)"
    )


VARIANTS = ZH_DIR / "03b_what_the_fixed_path_cannot_do.ipynb"
SIDE_BY_SIDE = ZH_DIR / "03_agent_or_workflow.ipynb"


def _shown(notebook_store, path: Path, code: str) -> str:
    """The HTML a zh-CN notebook's code cell (found by a line of its source) showed."""
    done = notebook_store.get(path)
    if done.error:
        pytest.fail(f"{path.name} (zh-CN): a cell failed:\n{done.error}", pytrace=False)
    cell = next(c for c in done.nb.cells if c.cell_type == "code" and code in c.source)
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.get("outputs", []))


@xdist_group(VARIANTS)
def test_a_zh_cn_notebook_shows_its_tables_in_chinese(notebook_store):
    variants = _shown(notebook_store, VARIANTS, 'results[["variant"')
    assert "原因" in variants and "笔记里没有" in variants, "the variants table's headers and why column are Chinese"
    assert "the note does not give" not in variants and ">why<" not in variants, variants[:400]


@xdist_group(VARIANTS)
def test_the_zh_cn_variants_are_sent_in_chinese_and_judged_by_chinese_notes(notebook_store):
    done = notebook_store.get(VARIANTS)
    cell = next(c for c in done.nb.cells if c.cell_type == "code" and "for v in variants():" in c.source)
    printed = "".join(o.get("text", "") for o in cell.get("outputs", []))
    tasks = [line.split(maxsplit=1)[-1] for line in printed.splitlines()]
    assert len(tasks) == 5 and all("笔记" in t for t in tasks), printed  # every task asks for a note in Chinese
    assert "Which is warmer" not in printed, printed
    table = _shown(notebook_store, VARIANTS, 'results[["variant"')
    assert "笔记里没有 里斯本 的气温" in table and "笔记里没有 柏林 明天的预报" in table, table[:600]


@xdist_group(SIDE_BY_SIDE)
def test_the_zh_cn_side_by_side_table_names_its_rows_in_chinese(notebook_store):
    table = _shown(notebook_store, SIDE_BY_SIDE, 'table = side_by_side(client, ["Paris", "London"]')
    assert "输入 token" in table, "the side-by-side rows are Chinese"


POSITION = ZH_DIR / "08b_position_and_length.ipynb"


@xdist_group(POSITION)
def test_a_zh_cn_notebook_says_in_chinese_why_it_skips_its_live_check(notebook_store):
    done = notebook_store.get(POSITION)
    if done.error:
        pytest.fail(f"{POSITION.name} (zh-CN): a cell failed:\n{done.error}", pytrace=False)
    cell = next(c for c in done.nb.cells if c.cell_type == "code" and "live_position_check" in c.source)
    printed = "".join(o.get("text", "") for o in cell.get("outputs", []))
    assert printed.startswith("模拟模式：跳过真实检查"), printed
