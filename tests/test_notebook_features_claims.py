"""The claims of the sections on current API features (issue 21, item 3), checked on the notebooks' own code.

Message threads (13) and strict tool use (08): each test runs the
section's code cells (the en edition's, which the zh-CN edition repeats) in a fresh namespace holding
what they use from earlier cells (``workdir``, ``pd``), and checks the sentence it names.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from test_notebook_claims_corrected import EN, MARKER, ZH, _cells, _src


def section(name: str, heading: str, lang: str = "en") -> list[dict]:
    """The cells of ``name``'s section whose heading starts with ``heading``, up to the next ``## ``."""
    cells = _cells((EN if lang == "en" else ZH) / name)
    at = next(i for i, c in enumerate(cells) if _src(c).startswith(heading))
    end = next((i for i in range(at + 1, len(cells)) if _src(cells[i]).startswith("## ")), len(cells))
    return cells[at:end]


def run_section(name: str, heading: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    ns = {"workdir": Path(tempfile.mkdtemp(prefix="agentlab-features-")), "pd": pd}
    for cell in section(name, heading):
        if cell["cell_type"] == "code":
            exec(compile(_src(cell), f"{name}:{heading}", "exec"), ns)
    plt.close("all")
    return ns


def _same_code(name: str, heading: str, zh_heading: str) -> None:
    code = [_src(c) for c in section(name, heading) if c["cell_type"] == "code"]
    assert code and code == [_src(c) for c in section(name, zh_heading, "zh") if c["cell_type"] == "code"]


# 13: message threads

NB13, THREADS, THREADS_ZH = "13_api_features_2026.ipynb", "## Message threads", "## 消息线程"


@pytest.fixture(scope="module")
def threads():
    return run_section(NB13, THREADS)


def test_13_threads_section_runs_the_same_code_in_both_editions():
    _same_code(NB13, THREADS, THREADS_ZH)


def test_13_with_a_thread_the_input_tokens_billed_are_the_same_in_every_turn(threads):
    table = threads["wire_table"](threads["threads"])
    assert len(table) >= 3
    assert (table["input tokens: thread"] == table["input tokens: full history"]).all()


def test_13_without_a_thread_the_body_grows_every_turn_with_one_it_holds_only_the_newest_message(threads):
    full, thread = threads["threads"]["full history"], threads["threads"]["thread"]
    sizes = [w.bytes_sent for w in full]
    assert all(b > a for a, b in zip(sizes, sizes[1:]))
    assert thread[0].bytes_sent > full[0].bytes_sent  # turn 1: the same body plus the thread field
    assert all(w.messages_sent == 1 for w in thread[1:])  # only the newest user message (the tool results)
    forecasts, note = thread[1].bytes_sent, thread[-1].bytes_sent  # turn 2: the three forecasts asked for at once
    assert len(thread) == 3 and 1000 <= forecasts / 3 <= 1600, forecasts  # "about 1.4 kB each"
    assert 100 <= note < 1000  # "a few hundred bytes for the note's confirmation"
    assert all(t.bytes_sent < f.bytes_sent for t, f in zip(thread[1:], full[1:]))


def test_13_a_continued_thread_may_not_repeat_system_or_tools_and_expires_after_five_minutes():
    from agentlab.sim import threads as sim_threads

    assert sim_threads.CREATE_ONLY == ("system", "tools") and sim_threads.TTL_SECONDS == 300.0


# 08: strict tool use

NB08, STRICT, STRICT_ZH = "08_react_vs_native.ipynb", "## Strict tool use", "## 严格工具使用"


@pytest.fixture(scope="module")
def strict():
    return {(r["case"], r["strict"]): r for r in run_section(NB08, STRICT)["strict"]}


def test_08_strict_section_runs_the_same_code_in_both_editions():
    _same_code(NB08, STRICT, STRICT_ZH)


def test_08_without_strict_the_malformed_input_is_refused_and_costs_one_more_call(strict):
    for case in ("missing_field", "wrong_type"):
        plain, strict_ = strict[(case, False)], strict[(case, True)]
        assert plain["first get_weather input"] != {"city": "Paris"} and plain["refused inputs"] == 1
        assert strict_["first get_weather input"] == {"city": "Paris"} and strict_["refused inputs"] == 0
        assert plain["model calls"] == strict_["model calls"] + 1


def test_08_which_valid_input_strict_yields_is_marked_as_the_scripted_models_in_both_editions():
    for lang, heading in (("en", STRICT), ("zh", STRICT_ZH)):
        cells = [c for c in section(NB08, heading, lang) if c["cell_type"] == "markdown"]
        assert MARKER[lang] in _src(cells[1])
