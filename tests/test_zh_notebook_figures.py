"""A zh-CN notebook, run headless from its own folder as Jupyter runs it, draws its figures in Chinese.

Nothing tells the kernel the language: it starts in notebooks/zh-CN/ (as a Jupyter kernel starts in
its notebook's folder) and ``agentlab.views.i18n.language()`` reads that. A cell put in front (in memory
only) records, for every figure an agentlab plot function localizes, the language used and the
texts still English; the test reads that record back after the last cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ZH_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "zh-CN"
NOTEBOOK = ZH_DIR / "02_the_loop.ipynb"
"""Steppers, stacked bars, curves and panels: most figure kinds, in a notebook that runs in well under a minute."""

RECORD = '''\
import agentlab.views.i18n as _i18n
_i18n_seen = []
_i18n_localize = _i18n.localize
def _recording_localize(fig, lang=None):
    out = _i18n_localize(fig, lang)
    _i18n_seen.append({"lang": lang or _i18n.language(), "left": _i18n.untranslated(fig, as_drawn=True)})
    return out
_i18n.localize = _recording_localize  # plot modules import it after this cell, so they get this one
'''
REPORT = "import json; print('I18N-RECORD ' + json.dumps(_i18n_seen, ensure_ascii=False))"


def _record(nb) -> list[dict]:
    for out in nb.cells[-1].get("outputs", []):
        for line in out.get("text", "").splitlines():
            if line.startswith("I18N-RECORD "):
                return json.loads(line[len("I18N-RECORD "):])
    raise AssertionError(f"the report cell printed no record: {nb.cells[-1].get('outputs')}")


def test_a_zh_cn_notebook_run_from_its_folder_draws_chinese_figures(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)  # the folder alone must pick Chinese
    monkeypatch.setenv("AGENTLAB_WIDGETS", "static")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells = [nbformat.v4.new_code_cell(RECORD), *nb.cells, nbformat.v4.new_code_cell(REPORT)]
    client = NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(ZH_DIR)}})
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"{NOTEBOOK.name} (zh-CN): a cell failed:\n{e}", pytrace=False)
    seen = _record(nb)
    assert len(seen) >= 4, f"only {len(seen)} figures were localized; did the plot functions stop calling localize?"
    assert {s["lang"] for s in seen} == {"zh-CN"}, f"the zh-CN kernel drew in {[s['lang'] for s in seen]}"
    data = ("tool_result: ", "save_note(", "get_weather(")  # arrow labels carrying the run's own data
    left = [t for s in seen for t in s["left"] if not t.startswith(data)]
    assert not left, (f"English text left in the zh-CN notebook's figures: {left}; add it to "
                      "agentlab/data/i18n/zh-CN/plots.json (or your area's file)")
