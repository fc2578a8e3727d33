import pytest

import agentlab
from agentlab.experiments.patterns import pattern_runs, pattern_table

CITIES = ["Madrid", "Oslo", "Cairo"]


def test_every_pattern_and_the_agent_solve_the_shared_task(sim, tmp_path):
    table = pattern_table(pattern_runs(sim, CITIES, tmp_path), CITIES)
    assert list(table.index) == ["agent", "chaining", "routing", "sectioning", "voting", "orchestrator", "evaluator"]
    assert table["solved"].all(), table
    assert table["input tokens"].idxmax() == "agent"


def test_the_shared_task_in_chinese_is_solved_by_every_run_in_chinese_with_the_same_calls(sim, tmp_path, monkeypatch):
    from agentlab.experiments.patterns import data_line, shared_task

    assert shared_task(CITIES, "zh") == "比较马德里、奥斯陆和开罗今天的气温，哪个最暖和？"
    assert data_line(["Madrid", "Cairo"], "zh") == "数据：马德里：24.5°C，晴；开罗：29°C，多云"
    assert data_line(["Madrid"]) == "Data: Madrid: 24.5°C, clear"
    en = pattern_table(pattern_runs(sim, CITIES, tmp_path / "en", lang="en"), CITIES)
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")  # None: the notebook's language picks the Chinese prompts
    runs = pattern_runs(sim, CITIES, tmp_path / "zh")
    zh = pattern_table(runs, CITIES)
    assert zh["solved"].all(), zh
    assert list(zh["model calls"]) == list(en["model calls"]) and list(zh["stop"]) == list(en["stop"])
    assert all(agentlab.hints.task_lang(r.final_text) == "zh" for r in runs.values())
    assert runs["voting"].final_text == "开罗" and runs["sectioning"].final_text.endswith("开罗最暖和。")


def test_pattern_runs_refuses_a_language_it_has_no_prompts_for(sim, tmp_path):
    with pytest.raises(ValueError, match="lang='fr'"):
        pattern_runs(sim, CITIES, tmp_path, lang="fr")
