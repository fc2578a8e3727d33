"""Every figure the notebooks draw reads Chinese in the zh-CN edition (and stays English in the English one:
tests/views/test_figure_style.py checks that on its English drawing of the same cases, drawn once for both).

The figure functions are found by scanning the notebooks' code (tests/i18n_cases.py), so a notebook
that starts drawing a new figure fails here until the figure has a case and its text a translation.
"""

from __future__ import annotations

import re

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from i18n_cases import FIGURE_CASES, notebook_figure_calls  # noqa: E402

from agentlab.run import StopReason  # noqa: E402
from agentlab.views import i18n  # noqa: E402

TABLE = "agentlab/data/i18n/zh-CN/plots.json"
"""Where the Chinese for these figures lives (other areas: their own file in the same folder)."""
CJK = re.compile(r"[\u4e00-\u9fff]")
RUN_DATA = re.compile(r"^(tool_result: |\w+\()")
"""Arrow labels that carry a run's own data (a tool call with its arguments, a tool's result): shown as is."""
STOP_VALUES = re.compile(
    r"\b(" + "|".join([s.value for s in StopReason] + [re.escape(w) for w in i18n.COURSE_ENGLISH]) + r")\b"
)
"""Stop-reason values and the words the course text keeps in English: shown as they are."""


def _english_left(fig) -> list[str]:
    """Texts the figure shows that are still English prose (run data and stop-reason values excepted)."""
    return [
        t
        for t in i18n.untranslated(fig, as_drawn=True)
        if not RUN_DATA.match(t) and re.search(r"[A-Za-z]{3,}", STOP_VALUES.sub("", t))
    ]


def _texts(fig) -> list[str]:
    from matplotlib.text import Text

    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def test_every_figure_function_the_notebooks_call_has_a_case():
    calls = notebook_figure_calls()
    assert calls, "no figure calls found in the notebooks: has the scan (tests/i18n_cases.py) broken?"
    missing = {name: where for name, where in calls.items() if name not in FIGURE_CASES}
    assert not missing, (
        f"the notebooks call figure functions with no translation check: {missing}; add a builder "
        f"for each to FIGURE_CASES in tests/i18n_cases.py, then put the Chinese of its text in {TABLE} "
        "(or your area's file in agentlab/data/i18n/zh-CN/)"
    )


@pytest.mark.parametrize("name", sorted(FIGURE_CASES))
def test_zh_cn_figures_show_chinese_text(name, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    figures = FIGURE_CASES[name](tmp_path)
    assert figures, f"{name}: the case drew no figure"
    try:
        for fig in figures:
            left = _english_left(fig)
            assert not left, (
                f"{name}: these figure texts are still English in the zh-CN edition: {left}; add each to "
                f"{TABLE} ('exact' for fixed text, 'patterns' [regex, replacement] for text with "
                "numbers or names in it), and make sure the plot function ends with `return localize(fig)`"
            )
            assert any(CJK.search(t) for t in _texts(fig)), f"{name}: no Chinese text at all in the zh-CN figure"
    finally:
        plt.close("all")  # a case's builder may draw figures it does not return (more than 20 open warn)


def test_a_new_english_title_without_a_translation_is_reported(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    fig, ax = plt.subplots()
    ax.set_xlabel("turn (model call number)")
    ax.set_title("A brand new finding nobody translated")
    i18n.localize(fig)
    assert _english_left(fig) == ["A brand new finding nobody translated"]
    assert ax.get_xlabel() == "轮次（模型调用序号）"
    plt.close(fig)


def test_category_tick_labels_are_translated_where_they_are_drawn(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    fig, (bars, lanes) = plt.subplots(1, 2)
    bars.bar(["agent", "workflow"], [3, 1])
    lanes.set_yticks([0, 1], ["model", "your code"])
    i18n.localize(fig)
    fig.canvas.draw()
    assert [t.get_text() for t in bars.get_xticklabels()] == ["agent", "workflow"]
    assert [t.get_text() for t in lanes.get_yticklabels()] == ["模型", "你的代码"]
    plt.close(fig)


def test_captured_parts_of_a_pattern_are_translated_too():
    assert i18n.tr("agent: who does what (18 steps)", "zh-CN") == "agent：谁做什么（18 步）"
    assert (
        i18n.tr("2 cities, agent and workflow: claude-opus-5 (tokens estimated by the simulator)", "zh-CN")
        == "2 个城市，agent 和 workflow：claude-opus-5（token 数由模拟器估算）"
    )


def test_the_trace_stepper_writes_in_the_notebooks_language(tmp_path, monkeypatch):
    import agentlab
    from agentlab.views.stepper import messages_html, tokens_html, turn_frames
    from agentlab.views.widgets import STATIC_NOTE, trace_stepper

    monkeypatch.setenv("AGENTLAB_WIDGETS", "static")
    client = agentlab.connect("sim", quiet=True)
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), trace=tmp_path / "t.jsonl"
    )
    frame = turn_frames(run)[1]
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    english = tokens_html(frame, True)
    assert "<b>turn 2</b>" in english and "input tokens so far" in english and "NEW" in messages_html(frame)
    assert STATIC_NOTE in trace_stepper(run)._repr_mimebundle_()["text/html"]
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    chinese = tokens_html(frame, True)
    assert "<b>第 2 轮</b>" in chinese and "累计输入 token" in chinese and "token（由模拟器估算）" in chinese
    assert "input tokens" not in chinese and " 新</b>" in messages_html(frame)
    assert "静态视图" in trace_stepper(run)._repr_mimebundle_()["text/html"]


def test_the_cost_preview_line_follows_the_notebooks_language(monkeypatch):
    from agentlab.experiments.preview import preview

    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    priced, unpriced = (preview(["Paris", "London"], m).line() for m in ("claude-opus-5", "claude-mythos-5"))
    assert priced.startswith("约 ") and "个输入 token" in priced and "agent" in priced and "about" not in priced
    assert "价格未知" in unpriced and "$0" not in unpriced
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert preview(["Paris", "London"], "claude-mythos-5").line().startswith("about ")
