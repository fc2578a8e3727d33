"""Every numeric claim in notebooks/10_context_engineering.ipynb's prose, checked by running the same code.

Each test names the sentence it checks (the zh-CN edition says the same in Chinese).
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

from agentlab.context import WINDOW_TOKENS, report_task, report_cities
from agentlab.trace import read_trace

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _cells(lang: str = "en", section: str | None = None) -> list:
    path = NOTEBOOKS / ("zh-CN" if lang == "zh" else "") / "10_context_engineering.ipynb"
    return [c for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "markdown" and c.metadata.get("agentlab_section") == section]


def _prose(lang: str = "en") -> str:
    return "\n".join(c.source for c in _cells(lang))


@pytest.fixture(scope="module")
def workdir(context_lab):
    return context_lab[0]


@pytest.fixture(scope="module")
def lab(context_lab):
    return context_lab[1]


def test_task_is_30_cities_with_a_planted_second_line_and_a_12000_token_window():
    task = report_task(report_cities(30))
    assert "30 cities" in task and task.splitlines()[1].startswith("Note:") and WINDOW_TOKENS == 12_000


def test_plain_last_call_sends_about_19000_tokens_past_the_window(lab):
    table, results = lab
    last = results["plain"].per_call[-1]
    assert 18_000 <= last <= 20_500 and last > WINDOW_TOKENS


def test_every_tactic_stays_under_the_window_and_every_answer_is_right(lab):
    table, _ = lab
    assert table["answer correct"].all()
    assert not table.drop(index="plain")["window exceeded"].any()


def test_compaction_falls_lowest_and_the_api_clearing_line_stays_flat(lab):
    _, r = lab
    assert min(r["compaction"].per_call[5:]) < min(r["clearing (harness)"].per_call[5:])
    api = r["clearing (API, simulated)"]
    after = api.per_call[api.events[0]["turn"] - 1:]
    assert max(after) - min(after) < 1_000 and max(after) < 4_000


def test_our_summariser_kept_2_of_5_planted_facts_the_task_line_and_paris_temperature(lab):
    kept = lab[1]["compaction"].extra["facts kept by the first summary"]
    assert sum(kept.values()) == 2 and len(kept) == 5
    assert kept["what the report must give"] and kept["Paris's temperature"]


def test_three_sessions_of_at_most_12_calls(lab):
    events = lab[1]["memory (sessions)"].events
    assert len(events) == 3 and all(e["calls"] <= 12 for e in events)


def test_sub_agents_take_8_cities_each_and_more_than_nine_tenths_of_the_tokens(lab):
    extra = lab[1]["sub-agents"].extra
    assert extra["sub-agents"] == 4  # 30 cities, 8 per sub-agent
    assert extra["sub-agent input tokens"] / (extra["sub-agent input tokens"] + extra["orchestrator input tokens"]) > 0.9


def test_just_in_time_is_cheapest_and_totals_differ_by_almost_three_times(lab):
    table, _ = lab
    tactics = table.drop(index="plain")["input tokens"]
    assert tactics.idxmin() == "just-in-time"
    assert 2.5 < tactics.max() / tactics.min() < 3.1
    assert tactics.min() < table.loc["plain", "input tokens"] / 5


def test_right_answers_and_cheap_just_in_time_are_said_to_hold_by_construction(lab, workdir):
    events = read_trace(workdir / "just-in-time.jsonl")
    assert {e["name"] for e in events if e.get("event") == "tool_call"} == {"get_weather"}, "the agent never calls load_details"
    results = [json.loads(e["content"]) for e in events if e.get("event") == "tool_result"]
    assert results and all("forecast" not in r and r["details"].startswith("forecast/") for r in results), \
        "a reading and a reference, never the 7-day forecast"
    assert "by construction of our scripted agent" in _prose() and "never calls `load_details`" in _prose()
    assert "我们脚本化智能体的构造决定的" in _prose("zh") and "从不调用 `load_details`" in _prose("zh")


def test_sub_agents_cost_about_a_third_of_plain_here_and_about_twice_the_agent_in_notebook_12(lab):
    from agentlab.experiments.multiplying import multiplying_table, ratios

    table, _ = lab
    sub, plain = table.loc["sub-agents", "input tokens"], table.loc["plain", "input tokens"]
    assert 0.28 < sub / plain < 0.4
    assert f"about {round(sub, -3):,} input tokens against {round(plain, -3):,}" in _prose()
    assert f"约 {round(sub, -3):,} 对 {round(plain, -3):,} 个输入令牌" in _prose("zh")
    r = ratios(multiplying_table((8,)), 8)
    assert 1.6 < r["multi-agent"] / r["agent"] < 2.4, r  # "about twice the agent's tokens"
    assert "about twice the agent's tokens" in _prose() and "约为智能体两倍的令牌" in _prose("zh")


def test_the_change_predict_run_exercises_can_be_done_with_the_imports_they_give(tmp_path):
    for lang in ("en", "zh"):
        cell = next(c.source for c in _cells(lang) if "run_tactic" in c.source)
        imports = re.findall(r"`(from agentlab[\w.]* import \w+)`", cell)
        assert len(imports) == 2, imports
        scope: dict = {}
        for line in imports:
            exec(line, scope)
        assert 'run_tactic("plain", n_cities=10)' in cell and "client=agentlab.connect(" in cell
    run_tactic = scope["run_tactic"]
    plain, compaction = run_tactic("plain", n_cities=10, workdir=tmp_path), run_tactic("compaction", n_cities=10, workdir=tmp_path)
    assert plain.row()["answer correct"] and compaction.row()["answer correct"]
    assert "Fahrenheit" not in _prose() and "华氏" not in _prose("zh"), "the old exercise the simulated agent cannot do"


def test_the_lost_in_the_middle_values_are_said_to_be_transcriptions_not_checked_against_the_pdf():
    from agentlab.experiments.published import published

    assert "Not re-checked against the PDF" in published("lost_in_the_middle")["how_read"]
    en = "\n".join(c.source for c in _cells("en", "position"))
    zh = "\n".join(c.source for c in _cells("zh", "position"))
    assert "stored transcriptions of the paper, not checked against its PDF" in en and "未对照其 PDF 核对" in zh


def test_the_chinese_prose_says_zhinengti_and_waikechengxu_not_agent_and_harness():
    """The words notebook 02's zh edition uses: 智能体 for agent, 外壳程序 for harness (glossed once)."""
    for cell in _cells("zh"):
        text = re.sub(r"`[^`]*`", "", cell.source).replace("外壳程序（harness）", "外壳程序")
        assert not re.search(r"(?i)\b(sub-?)?agents?\b|\bharness\b", text), cell.source
    assert "智能体" in _prose("zh") and "外壳程序" in _prose("zh") and "框架" not in _prose("zh")
