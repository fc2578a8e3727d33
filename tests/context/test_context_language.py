"""The report task in the notebook's language: asked in Chinese, the simulated agent notes, summarises,
remembers, delegates and reports in Chinese, and the checks read either language; English is unchanged."""

from __future__ import annotations

import pytest

import agentlab
from agentlab.context import check_report, report_cities, report_task, run_tactic, surviving_facts
from agentlab.context.compare import MODEL
from agentlab.sim.models.context_agent import ContextAgent, report_text, summary_text
from agentlab.sim.models.reading import is_chinese
from agentlab.weather import make_get_weather


def _client():
    return agentlab.connect("sim", model=MODEL, policy=ContextAgent(), quiet=True)


def test_the_task_follows_the_notebooks_language_unless_asked(monkeypatch):
    cities = report_cities(3)
    assert report_task(cities, "en") == (
        "Task: Report on these 3 cities: Paris, London, Berlin. Give the warmest, "
        "the coldest and the mean temperature.\nNote: the report is for Ms. Chen, "
        "who reads it on Friday."
    )
    assert report_task(cities, "zh").startswith("任务：为这 3 个城市写一份报告：巴黎、伦敦、柏林。")
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert report_task(cities) == report_task(cities, "zh")
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert report_task(cities) == report_task(cities, "en")
    with pytest.raises(ValueError, match="'fr'"):
        report_task(cities, "fr")


def test_a_chinese_task_gets_chinese_notes_and_a_chinese_report_the_check_reads():
    cities = report_cities(4)
    run = agentlab.run_agent(_client(), report_task(cities, "zh"), [make_get_weather(7)], max_turns=10)
    notes = [b["text"] for m in run.messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "text"]
    assert notes[1].startswith("巴黎：18.5°C。下一个：") and all(is_chinese(t) for t in notes)
    assert run.final_text.startswith("最暖和：") and check_report(run.final_text, cities)["correct"]
    english = agentlab.run_agent(_client(), report_task(cities, "en"), [make_get_weather(7)], max_turns=10)
    assert english.model_calls == run.model_calls and check_report(english.final_text, cities)["correct"]


def test_the_check_reads_either_language_and_either_name():
    cities = report_cities(3)
    temps = {"巴黎": 18.5, "伦敦": 15.0, "柏林": 16.0}
    assert check_report(report_text(temps, zh=True), cities)["correct"]
    assert check_report(report_text({"Paris": 18.5, "London": 15.0, "Berlin": 16.0}), cities)["correct"]
    wrong = check_report(report_text({**temps, "柏林": 40.0}, zh=True), cities)
    assert not wrong["correct"] and wrong["got"]["warmest"] == "柏林"


def test_the_chinese_summary_keeps_the_task_line_and_names_cities_in_chinese():
    transcript = (
        report_task(report_cities(2), "zh")
        + '\n{"city": "Paris", "temp_c": 18.5, "condition": "sunny"}'
        + "\n伦敦：15°C。"
    )
    summary = summary_text(transcript)
    assert summary.splitlines()[0].startswith("任务：") and "巴黎：18.5°C" in summary and "伦敦：15°C" in summary
    facts = surviving_facts([{"role": "user", "content": summary}])
    assert facts["what the report must give"] and facts["Paris's temperature"] and not facts["who reads the report"]


@pytest.mark.parametrize("tactic", ["memory (sessions)", "sub-agents"])
def test_memory_and_sub_agents_work_in_chinese(tactic, tmp_path):
    (tmp_path / "zh").mkdir(), (tmp_path / "en").mkdir()
    result = run_tactic(tactic, n_cities=10, workdir=tmp_path / "zh", lang="zh")
    assert result.correct and result.final_text.startswith("最暖和：")
    english = run_tactic(tactic, n_cities=10, workdir=tmp_path / "en", lang="en")
    assert len(english.turns) == len(result.turns), "the same decisions in both languages"
