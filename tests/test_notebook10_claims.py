"""Every numeric claim in notebooks/10_context_engineering.ipynb's prose, checked by running the same code.

Each test names the sentence it checks (the zh-CN edition says the same in Chinese).
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

from agentlab.context import WINDOW_TOKENS, report_cities, report_task
from agentlab.trace import read_trace

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _cells(lang: str = "en", section: str | None = None) -> list:
    """Markdown cells of notebook 10 and of its second part, 10b."""
    folder = NOTEBOOKS / ("zh-CN" if lang == "zh" else "")
    return [
        c
        for name in ("10_context_engineering.ipynb", "10b_context_other_tactics.ipynb")
        for c in nbformat.read(folder / name, as_version=4).cells
        if c.cell_type == "markdown" and c.metadata.get("agentlab_section") == section
    ]


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
    after = api.per_call[api.events[0]["turn"] - 1 :]
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
    assert (
        extra["sub-agent input tokens"] / (extra["sub-agent input tokens"] + extra["orchestrator input tokens"]) > 0.9
    )


def test_just_in_time_is_cheapest_and_totals_differ_by_almost_three_times(lab):
    table, _ = lab
    tactics = table.drop(index="plain")["input tokens"]
    assert tactics.idxmin() == "just-in-time"
    assert 2.5 < tactics.max() / tactics.min() < 3.1
    assert tactics.min() < table.loc["plain", "input tokens"] / 5


def test_the_takeaway_ranks_the_tactics_that_keep_results_out_of_the_window_as_their_costs_do(lab):
    """10b's takeaway: "just-in-time retrieval, then sub-agents and the API's clearing" (both editions)."""
    table, _ = lab
    cheapest = list(table["cost (USD)"].sort_values().index[:3])
    assert cheapest == ["just-in-time", "sub-agents", "clearing (API, simulated)"], cheapest
    en, zh = (
        "\n".join(c.source for c in nbformat.read(folder / "10b_context_other_tactics.ipynb", as_version=4).cells)
        for folder in (NOTEBOOKS, NOTEBOOKS / "zh-CN")
    )
    assert "just-in-time retrieval, then sub-agents and\n  the API's clearing" in en
    assert "首先是 just-in-time retrieval，其次是 sub-agent 和 API 的清除" in zh


def test_right_answers_and_cheap_just_in_time_are_said_to_hold_by_construction(lab, workdir):
    events = read_trace(workdir / "just-in-time.jsonl")
    assert {e["name"] for e in events if e.get("event") == "tool_call"} == {"get_weather"}, (
        "the agent never calls load_details"
    )
    results = [json.loads(e["content"]) for e in events if e.get("event") == "tool_result"]
    assert results and all("forecast" not in r and r["details"].startswith("forecast/") for r in results), (
        "a reading and a reference, never the 7-day forecast"
    )
    assert "by construction of our scripted agent" in _prose() and "never calls `load_details`" in _prose()
    assert "我们脚本化 agent 的构造决定的" in _prose("zh") and "从不调用 `load_details`" in _prose("zh")


def test_sub_agents_cost_about_a_third_of_plain_here_and_several_times_the_agent_in_notebook_12(lab):
    from agentlab.experiments.multiplying import multiplying_table

    table, _ = lab
    sub, plain = table.loc["sub-agents", "input tokens"], table.loc["plain", "input tokens"]
    assert 0.28 < sub / plain < 0.4
    assert f"about {round(sub, -3):,} input tokens against {round(plain, -3):,}" in _prose()
    for lang, sentence in (("en", "about {} times the agent's tokens"), ("zh", "约为 agent {} 倍的 token")):
        at8 = multiplying_table((8,), lang=lang).set_index("kind")["tokens"]  # zh asks in Chinese: its own multiple
        multiple = round(at8["multi-agent"] / at8["agent"], 1)  # as notebook 12b's claim test computes it
        assert 3 < multiple < 5 and sentence.format(multiple) in _prose(lang), (lang, multiple)


def test_the_change_predict_run_exercises_can_be_done_with_the_imports_they_give(tmp_path):
    for lang in ("en", "zh"):
        cells = [c.source for c in _cells(lang) if "run_tactic(" in c.source and "### " in c.source]  # 10 and 10b
        assert len(cells) == 2, [c[:80] for c in cells]
        scope: dict = {}
        for cell in cells:
            for line in re.findall(r"`(from agentlab[\w.]* import \w+)`", cell):
                exec(line, scope)
        assert 'run_tactic("plain", n_cities=10)' in cells[0] and "client=agentlab.connect(" in cells[1]
        assert {"run_tactic", "ContextAgent"} <= set(scope)
    run_tactic = scope["run_tactic"]
    plain, compaction = (
        run_tactic("plain", n_cities=10, workdir=tmp_path),
        run_tactic("compaction", n_cities=10, workdir=tmp_path),
    )
    assert plain.row()["answer correct"] and compaction.row()["answer correct"]
    assert "Fahrenheit" not in _prose() and "华氏" not in _prose("zh"), "the old exercise the simulated agent cannot do"


def test_the_chinese_prose_says_agent_and_harness_as_the_course_text_does():
    """The words notebook 10's zh edition uses: the course text's own, agent and harness in English."""
    prose = _prose("zh")
    assert "agent" in prose and "harness" in prose
    assert not re.search("智能体|外壳程序|框架", prose), "the course text writes agent and harness in English"


# The definition of context engineering (section "budget"): the plain run's window as a budget, call by call.


def _budget(lab):
    from agentlab.experiments.window_budget import budget_summary

    return budget_summary(lab[1]["plain"].turns, WINDOW_TOKENS)


def _budget_prose(lang: str) -> str:
    return "\n".join(c.source for c in _cells(lang, "budget"))


def test_the_fixed_parts_take_561_tokens_and_4_7_percent_of_the_window_on_every_call(lab):
    s, turns = _budget(lab), lab[1]["plain"].turns
    assert s["fixed tokens"] == 561 and s["fixed share of window (%)"] == 4.7
    assert len({t.breakdown.fixed for t in turns}) == 1 and turns[0].breakdown.system == 0, (
        "same fixed parts, no system prompt"
    )
    assert "561 tokens, 4.7% of the window" in _budget_prose("en")


def test_each_call_adds_about_620_tokens_and_call_20_is_the_first_over_the_window(lab):
    s = _budget(lab)
    assert 600 <= s["growth per call (tokens, median)"] <= 640 and s["first call over the window"] == 20
    assert "about 620 tokens" in _budget_prose("en") and "call 20 is the first over the window" in _budget_prose("en")


def test_one_city_per_call_is_said_to_be_the_scripted_agents_choice(lab):
    turns = lab[1]["plain"].turns
    assert all(len(t.tool_calls) <= 1 for t in turns), "the scripted agent asks for one city per call"
    for lang, marker, words in (
        ("en", "**[scripted model]**", "one city per call"),
        ("zh", "**[脚本模型]**", "每次调用只查一个城市"),
    ):
        cell = next(c.source for c in _cells(lang, "budget") if words in c.source)
        assert marker in cell, f"{lang}: the cell that says {words!r} must carry {marker}"


def test_the_last_call_is_94_percent_history_and_the_wording_1_1_percent_of_the_window(lab):
    s = _budget(lab)
    assert s["calls"] == 31 and s["last call (tokens)"] == 19_164
    assert s["history share of last call (%)"] == 94.0
    assert s["wording tokens"] == 133 and s["wording share of window (%)"] == 1.1
    en = _budget_prose("en")
    assert "last call (31) the history is 94% of the 19,164 tokens sent" in en and "133 tokens, 1.1% of the" in en


def test_only_the_history_grows_and_it_reaches_160_percent_of_the_budget(lab):
    from agentlab.experiments.window_budget import window_shares

    shares = window_shares(lab[1]["plain"].turns, WINDOW_TOKENS)
    steady = [
        c
        for c in shares.columns
        if c
        not in (
            "history (earlier turns)",
            "new this turn",
            "window used (%)",
            "tokens left",
            "wording share of the call (%)",
        )
    ]
    assert all(shares[c].nunique() == 1 for c in steady), "the fixed parts keep their share"
    assert shares["history (earlier turns)"].is_monotonic_increasing
    assert (
        round(shares["window used (%)"].iloc[-1]) == 160
        and shares["tokens left"].iloc[19] < 0 < shares["tokens left"].iloc[18]
    )
    assert "reaches 160% at call 31" in _budget_prose("en")


def test_context_and_prompt_engineering_are_defined_in_both_editions():
    en, zh = _budget_prose("en"), _budget_prose("zh")
    assert "**Context engineering** is deciding what goes into that budget" in en and "**Prompt engineering**" in en
    assert "**上下文工程**就是" in zh and "**提示工程**" in zh
    url = "https://www.anthropic.com/engineering/effective-context-engineering-for-ai-agents"
    assert url in en and url in zh


# The zh-CN edition asks the task in Chinese and the simulated agent answers in Chinese (the same code
# cells: report_task and compare_tactics follow the notebook's language), so its prose states the numbers
# of the Chinese run; the decisions are the English run's (same calls, same facts kept, same sessions).


@pytest.fixture(scope="module")
def zh_lab(context_lab_zh):
    return context_lab_zh[1]


def test_zh_the_task_and_every_answer_are_chinese_and_every_answer_is_right(zh_lab, lab):
    from agentlab.sim.models.reading import is_chinese

    task = report_task(report_cities(30), "zh")
    assert (
        task.startswith("任务：为这 30 个城市写一份报告：巴黎、")
        and task.splitlines()[1] == "备注：这份报告是给陈女士的，她周五读。"
    )
    table, results = zh_lab
    assert table["answer correct"].all() and not table.drop(index="plain")["window exceeded"].any()
    assert all(r.final_text.startswith("最暖和：") for r in results.values()), {
        k: r.final_text[:20] for k, r in results.items()
    }
    assert is_chinese(results["compaction"].events[0]["summary"].splitlines()[1])
    assert list(table["calls"]) == list(lab[0]["calls"]), "the same calls as the English run"


def test_zh_plain_last_call_sends_about_19500_tokens_and_totals_differ_about_2_6_times(zh_lab):
    table, results = zh_lab
    last = results["plain"].per_call[-1]
    assert 19_250 <= last < 19_750 and last > WINDOW_TOKENS and "最后一次调用要发送约 19,500 个 token" in _prose("zh")
    tactics = table.drop(index="plain")["input tokens"]
    assert tactics.idxmin() == "just-in-time" and round(tactics.max() / tactics.min(), 1) == 2.6
    assert tactics.min() < table.loc["plain", "input tokens"] / 5
    assert "相差约 2.6 倍" in _prose("zh") and "不到不做处理时的五分之一" in _prose("zh")


def test_zh_budget_numbers_are_the_chinese_runs(zh_lab):
    from agentlab.experiments.window_budget import budget_summary, window_shares

    turns = zh_lab[1]["plain"].turns
    s, shares = budget_summary(turns, WINDOW_TOKENS), window_shares(turns, WINDOW_TOKENS)
    zh = _budget_prose("zh")
    assert (
        f"{s['fixed tokens']} 个 token，即窗口的 {s['fixed share of window (%)']}%" in zh and s["fixed tokens"] == 647
    )
    assert 620 <= s["growth per call (tokens, median)"] <= 640 and "约 630 个 token" in zh
    assert s["first call over the window"] == 20 and "第 20 次调用第一次超出窗口" in zh
    assert s["calls"] == 31 and "第 31 次" in zh
    assert f"{s['last call (tokens)']:,} 个 token 中的 {s['history share of last call (%)']}%" in zh
    assert f"{s['wording tokens']} 个 token，占窗口的 {s['wording share of window (%)']}%" in zh
    assert f"到第 31 次调用时达到 {shares['window used (%)'].iloc[-1]}%" in zh


def test_zh_sub_agents_cost_about_a_third_and_take_more_than_nine_tenths(zh_lab):
    table, results = zh_lab
    sub, plain = table.loc["sub-agents", "input tokens"], table.loc["plain", "input tokens"]
    assert 0.28 < sub / plain < 0.4 and f"约 {round(sub, -3):,} 对 {round(plain, -3):,} 个输入 token" in _prose("zh")
    extra = results["sub-agents"].extra
    assert (
        extra["sub-agent input tokens"] / (extra["sub-agent input tokens"] + extra["orchestrator input tokens"]) > 0.9
    )
    assert "九成以上的 token 都花在 sub-agent 身上" in _prose("zh")


def test_zh_summary_keeps_2_of_5_facts_and_memory_runs_three_sessions(zh_lab):
    kept = zh_lab[1]["compaction"].extra["facts kept by the first summary"]
    assert sum(kept.values()) == 2 and kept["what the report must give"] and kept["Paris's temperature"]
    events = zh_lab[1]["memory (sessions)"].events
    assert len(events) == 3 and all(e["calls"] <= 12 for e in events)
    assert "5 条埋下事实中的 2 条" in _prose("zh") and "三个最多 12 次调用的会话" in _prose("zh")


def test_zh_compaction_falls_lowest_and_the_api_clearing_line_stays_flat(zh_lab):
    r = zh_lab[1]
    assert min(r["compaction"].per_call[5:]) < min(r["clearing (harness)"].per_call[5:])
    api = r["clearing (API, simulated)"]
    after = api.per_call[api.events[0]["turn"] - 1 :]
    harness = r["clearing (harness)"].per_call[r["clearing (harness)"].events[0]["turn"] - 1 :]
    assert max(after) - min(after) < (max(harness) - min(harness)) / 3, "flat beside the harness's sawtooth"
