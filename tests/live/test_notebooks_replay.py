"""Every notebook of both editions (English, and zh-CN as ``zh-CN-NN_name``), run live against the stand-in
with RECORD set, writes a cassette; run again in replay mode from that cassette with the network blocked, it
shows what it showed live, cell by cell, and the live run sent what the live-cost table says it sends.

A notebook whose row in that table sends nothing (its experiments run on scripted models, ``connect("sim")``,
in every mode) records an empty cassette, so a replay would only run it a third time: its live run is
compared instead with its offline run, the notebook store's, from which its claims are read. That is the
check that matters for it: a student with a key sees what the prose says.

Each notebook runs once for all its tests here, and for every other test that reads it: its live and replay
passes follow its offline run in the same kernel (tests/notebook_store.py, tests/live/notebook_replay.py),
against a stand-in in the test process (the simulator over HTTP on 127.0.0.1, without its own headers, as
``agentlab serve`` behind a header-stripping proxy).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from notebook_replay import BEYOND_THE_TABLE, DIALS_BY_DESIGN, KEY, Passes, shown
from notebook_replay import sends as sends_live
from notebook_store import ADDED_IN_FRONT

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb")) + sorted(NOTEBOOK_DIR.glob("zh-CN/*.ipynb"))
"""Both editions: the zh-CN notebooks run the same code from their own folder (Chinese text and figures)."""
LEFT_OUT: dict[str, str] = {}
"""Notebooks not (yet) in this test by test id, each with the reason (none: every notebook of both editions replays)."""
DIFFER_BY_DESIGN = {
    "00_setup_and_your_key": {
        'print("mode:", client.agentlab_mode': "it prints the mode and the masked key: live has one, a replay needs none"
    },
}
"""Cells (found by a line of their source) whose output names the mode itself, with why."""
CLOCKED = {
    "02b_where_the_tokens_go": {
        "agent, workflow = agentlab.compare(client": "the agent/workflow table's wall-time row"
    },
    "03_agent_or_workflow": {
        'table = side_by_side(client, ["Paris", "London"]': "the comparison's wall-time row",
        "slow_table": "a wall-time table",
    },
    "04_five_patterns": {"sections = run_sections(": "parallel sections, listed in the order their threads finished"},
    "04b_patterns_that_plan": {
        "speed = speedup_table(": "the speed-up table (measured latencies)",
        "fig = plot_speedup(speed)": "its figure",
        "orch = run_orchestrator(": "orchestrator workers, listed in the order their threads finished",
        "fig = plot_swimlane(orch)": "a swimlane of measured start and end times",
        "table = pattern_table(pattern_runs(timed": "the pattern table's wall-time column",
        "fig = plot_patterns(table)": "its figure",
    },
    "07_parallel_vs_serial": {"rows = speedups(": "measured wall times", "fig = plot_speedup(rows)": "their figure"},
}
"""Cells (found by a line of their source) that show what the clock measured (a replay measures its own run,
and parallel threads finish in any order): compared with every decimal number masked and lines in any order,
a table's row numbers dropped; their figures not at all."""


def _cells(path: Path, table: dict[str, dict[str, str]]) -> dict[int, str]:
    """``table``'s entries for this notebook as code-cell index -> why; each source line names one cell."""
    import json

    code = [
        "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
    ]
    found = {}
    for snippet, why in table.get(path.stem, {}).items():
        hits = [i for i, source in enumerate(code) if snippet in source]
        assert len(hits) == 1, f"{path.name}: {snippet!r} should name one code cell, it names {len(hits)}"
        found[hits[0]] = why
    return found


@pytest.fixture
def replayed(notebook_store):
    """``replayed(path)``: ``(passes, cassette, calls the stand-in answered)`` of the notebook's live and replay
    passes, run in the kernel of its offline run (the notebook store's, once for every test that reads it)."""

    def get(path: Path) -> tuple[Passes, Path, int]:
        done = notebook_store.get(path)
        if done.error:
            pytest.fail(f"{path.name}: a cell failed offline, before the live pass:\n{done.error}", pytrace=False)
        if done.passes is None:
            pytest.skip("this notebook store ran without a stand-in (AGENTLAB_NOTEBOOK_STORE names another's)")
        if done.passes.error:
            pytest.fail(f"{path.name}: a cell failed:\n{done.passes.error}", pytrace=False)
        return done.passes, Path(done.passes.cassette), done.passes.answered

    return get


def _id(path: Path) -> str:
    """The test id: the notebook's name, ``zh-CN-`` first for the Chinese edition (``zh-CN-02_the_loop``)."""
    return f"{path.parent.name}-{path.stem}" if path.parent != NOTEBOOK_DIR else path.stem


def _params(sends: bool | None = None):
    """Every notebook (``sends=None``), or those that send something live (True) or nothing (False)."""
    return [
        pytest.param(p, id=_id(p))
        for p in NOTEBOOKS
        if _id(p) not in LEFT_OUT and (sends is None or sends_live(p) == sends)
    ]


@pytest.mark.parametrize("path", _params())
def test_a_live_run_writes_a_cassette_that_replays_whole_with_the_network_blocked(path, replayed):
    """A notebook the live-cost table says sends nothing records an empty cassette and is not replayed (its
    offline pass, run with the network blocked like a replay, is checked for dials in tests/test_notebooks.py)."""
    from agentlab.live.cassette import load

    passes, cassette, answered = replayed(path)
    live = passes.checks[0]
    recorded = live["recorded"].get(str(cassette.resolve()), 0)
    assert cassette.is_file() and len(load(cassette).data) == recorded == answered, (
        f"the cassette holds every call the stand-in answered ({recorded} recorded, {answered} answered)"
    )
    if not sends_live(path):
        assert recorded == 0, f"a notebook the live-cost table says sends nothing recorded {recorded} calls"
        return
    assert len(passes.checks) == 2, "the replay pass printed its check"
    replay = passes.checks[1]
    played = replay["played"].get(str(cassette.resolve()))
    if played is not None:  # a notebook that never connects in auto mode never opens its (empty) cassette
        assert played == [recorded, recorded, []], "the replay played every recorded call, refused none"
    else:
        assert recorded == 0
    assert all(dial in DIALS_BY_DESIGN for dial in replay["dialed"]), (
        f"the replay reached for the network: {replay['dialed']}"
    )
    assert KEY not in cassette.read_text() and KEY[-8:] not in cassette.read_text()


@pytest.mark.parametrize("path", _params())
def test_the_live_run_sent_what_the_live_cost_table_says_its_notebook_sends(path, replayed):
    """The table (docs/en/live_cost.md, measured offline) is what a student's key sends: paid calls and
    count_tokens calls, key-only cells included, as the stand-in answered them live (both editions)."""
    from agentlab.live.costs import expected

    _, _, answered = replayed(path)
    row = expected(path.stem)
    beyond = BEYOND_THE_TABLE.get(path.stem, (0, ""))[0]
    assert answered == row.calls + row.count_tokens + beyond, (
        f"live: {answered} requests; the table: {row.calls} paid calls + {row.count_tokens} count_tokens calls"
        + (f" (+ {beyond} known: {BEYOND_THE_TABLE[path.stem][1]})" if beyond else "")
    )


@pytest.mark.parametrize("path", _params(sends=True))
def test_the_replay_shows_what_the_live_run_showed(path, replayed):
    passes, _, _ = replayed(path)
    assert len(passes.replay) == len(passes.record), "every cell ran in both passes"
    _same(path, passes.record, passes.replay, "replay", says="replay")


@pytest.mark.parametrize("path", _params(sends=False))
def test_a_notebook_that_sends_nothing_live_shows_live_what_it_shows_offline(path, replayed, notebook_store):
    """Its live run (key set, RECORD set) against its offline run, the one its claims are read from."""
    passes, _, _ = replayed(path)
    done = notebook_store.get(path)
    if done.error:
        pytest.fail(f"{path.name}: a cell failed offline:\n{done.error}", pytrace=False)
    offline = [done.outputs(i) for i, c in enumerate(done.nb.cells[ADDED_IN_FRONT:-1]) if c.cell_type == "code"]
    assert len(offline) == len(passes.record), "the two runs have the same code cells"
    _same(path, passes.record, offline, "offline", says="sim")


def _same(path: Path, live: list[list], other: list[list], mode: str, says: str) -> None:
    """Every code cell showed in ``other`` (the ``mode`` run) what it showed in the live run: cells that name
    the mode (:data:`DIFFER_BY_DESIGN`) only name it (``says``, and live), clocked ones (:data:`CLOCKED`) are
    compared masked."""
    boxes = [i for i, outputs in enumerate(live) if "missing from font" in shown(outputs)["text"]]
    assert not boxes, f"code cells {boxes} drew glyphs as boxes (said once a kernel: here, text drawn only live)"
    exempt, clocked = _cells(path, DIFFER_BY_DESIGN), _cells(path, CLOCKED)
    differ = []
    for i, (first, second) in enumerate(zip(live, other)):
        a, b = (_seen(o, clocked=i in clocked) for o in (first, second))
        if i in exempt:
            assert says in repr(b) and "live" in repr(a), f"code cell {i} no longer names the mode ({exempt[i]})"
        elif a != b:
            differ.append(f"code cell {i}:\n  live:   {a!r:.600}\n  {mode + ':':8}{b!r:.600}")
    assert not differ, f"{path.name}: the {mode} run showed otherwise than the live run\n" + "\n".join(differ)


def _seen(outputs: list, clocked: bool) -> object:
    """What a cell showed; for a clocked cell, its text with decimals masked, as a multiset of lines."""
    seen = shown(outputs)
    if not clocked:
        return seen
    text = "\n".join([seen["text"], *(r for r in seen["rich"] if not r.startswith("png "))])
    return sorted(re.sub(r"^\d+ ", "", " ".join(re.sub(r"\d+\.\d+", "#", line).split())) for line in text.splitlines())
