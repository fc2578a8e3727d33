import agentlab
from agentlab import StopReason, run_workflow


def test_workflow_makes_one_model_call_and_saves_the_note(sim, tmp_path):
    run = run_workflow(sim, ["Paris", "London"], tmp_path)
    assert run.kind == "workflow" and run.model_calls == 1 and run.stop_reason is StopReason.COMPLETED
    assert [r["name"] for r in run.tool_results] == ["get_weather", "get_weather", "save_note"]
    assert (tmp_path / "notes.md").read_text().strip() == run.final_text
    assert "Paris" in run.final_text and run.reprefill_tokens == 0


def test_workflow_and_agent_reach_the_same_answer_at_different_cost(sim, tmp_path):
    agent, workflow = agentlab.compare(sim, ["Madrid", "Oslo", "Cairo"], tmp_path)
    assert agent.final_text.startswith(workflow.final_text)
    assert agent.model_calls == 3 and workflow.model_calls == 1  # every city in one reply, the note, the answer
    assert agent.input_tokens > 10 * workflow.input_tokens


def test_workflow_stops_with_a_reason_on_an_unknown_city(sim, tmp_path):
    run = run_workflow(sim, ["Paris", "Atlantis"], tmp_path, trace=tmp_path / "w.jsonl")
    assert run.stop_reason is StopReason.ERROR and "Unknown city 'Atlantis'" in run.final_text
    assert run.model_calls == 0
    assert agentlab.read_trace(tmp_path / "w.jsonl")[-1]["reason"] == "error"


def test_comparison_table_has_every_row(sim, tmp_path):
    table = agentlab.comparison_table(list(agentlab.compare(sim, ["Paris", "London"], tmp_path)))
    for row in [
        "model calls",
        "turns",
        "input tokens",
        "re-prefill tokens",
        "output tokens",
        "cost (USD)",
        "wall time (s)",
    ]:
        assert row in table
    assert "estimated (simulator)" in table


def test_chinese_workflow_answers_in_chinese_with_the_names_as_asked(sim, tmp_path):
    agent, workflow = agentlab.compare(sim, ["上海", "北京", "广州"], tmp_path, lang="zh")
    assert workflow.final_text == "广州最暖和：27°C，上海 20°C，北京 14°C。"
    assert agent.final_text.startswith(workflow.final_text)


def test_unknown_workflow_language_is_refused(sim, tmp_path):
    import pytest

    with pytest.raises(ValueError, match=r"run_workflow\(lang='fr'\): the task is written in 'en' or 'zh'"):
        run_workflow(sim, ["Paris", "London"], tmp_path, lang="fr")


def test_in_the_zh_cn_edition_both_sides_ask_in_chinese_by_default(sim, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")  # as a kernel started in notebooks/zh-CN/ would pick it
    agent, workflow = agentlab.compare(sim, ["Paris", "London"], tmp_path)
    asked = [m["content"] for m in workflow.messages if m["role"] == "user"][0]
    assert asked.startswith("用一句话写一条笔记") and "巴黎: 18.5°C; 伦敦: 15°C" in asked, asked
    assert agent.final_text.startswith(workflow.final_text) and workflow.final_text.startswith("巴黎更暖和")
