"""Every claim in notebooks/12_capstone.ipynb's prose, checked by running the same code.

Each test names the sentence it checks and, where the prose states a number, also checks that the
notebook still states it (so a changed estimator or trace fails here, not silently in the prose).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat
import pytest

import agentlab
from agentlab.experiments import capstone
from agentlab.experiments.multiplying import anthropic_ratios, fan_out, multiplying_table, ratios
from agentlab.sim.models.reading import is_chinese

ROOT = Path(__file__).resolve().parent.parent


def _prose(lang: str = "en") -> str:
    """The markdown of notebook 12 and of its second part, 12b."""
    folder = ROOT / "notebooks" / ("zh-CN/" if lang == "zh" else "")
    return "\n".join(
        c.source
        for name in ("12_capstone.ipynb", "12b_when_agents_multiply.ipynb")
        for c in nbformat.read(folder / name, as_version=4).cells
        if c.cell_type == "markdown"
    )


@pytest.fixture(scope="module")
def traces():
    return {name: agentlab.read_trace(capstone.trace_path(name)) for name in capstone.NAMES}


def _kinds(events, kind):
    return [e for e in events[1:] if e.get("event") == kind]


def test_agent_made_three_tool_calls_each_asked_for_get_weather_twice_then_save_note(traces):
    ev = traces["agent"]
    asked = [b["id"] for r in _kinds(ev, "response") for b in r["content"] if b["type"] == "tool_use"]
    calls = _kinds(ev, "tool_call")
    assert [c["id"] for c in calls] == asked and [c["name"] for c in calls] == [
        "get_weather",
        "get_weather",
        "save_note",
    ]
    assert "3 tool calls" in _prose() and "3 次工具调用" in _prose("zh")


def test_workflow_two_lookups_and_a_note_around_one_model_call(traces):
    ev = traces["workflow"]
    kinds = [e.get("event") for e in ev[1:]]
    assert [e["name"] for e in _kinds(ev, "code_step")] == ["get_weather", "get_weather", "save_note"]
    steps = [i for i, kind in enumerate(kinds) if kind == "code_step"]
    assert kinds.count("response") == 1 and steps[1] < kinds.index("response") < steps[2]


def test_injected_page_carries_the_instruction_and_the_next_call_saves_the_key(traces):
    ev = traces["injected"]
    page = _kinds(ev, "tool_result")[0]["content"]
    calls = _kinds(ev, "tool_call")
    assert (
        "ignore the task" in page and calls[1]["name"] == "save_note" and capstone.FAKE_KEY in calls[1]["input"]["text"]
    )


def test_stops_as_stated(traces):
    stops = {n: ev[-1] for n, ev in traces.items()}
    assert stops["agent"]["reason"] == stops["injected"]["reason"] == "end_turn"
    assert stops["workflow"]["reason"] == "completed"
    looper = stops["looper"]
    assert (looper["guard"], looper["observed"], looper["limit"]) == ("max_repeats", 3, 3)
    assert traces["looper"][0]["max_turns"] == 50
    assert "same call 3 times" in _prose() and "limit of 3" in _prose() and "50 calls" in _prose()
    assert "上限 3" in _prose("zh") and "50 次调用" in _prose("zh")


def test_agent_last_call_sends_more_than_its_first_and_every_call_grows(traces):
    inputs = [r["usage"]["input_tokens"] for r in _kinds(traces["agent"], "response")]
    assert inputs == sorted(inputs) and len(set(inputs)) == len(inputs)
    assert f"last call sent {inputs[-1]} input tokens against {inputs[0]}" in _prose()
    assert f"{inputs[-1]} 个输入 token，第一次是 {inputs[0]}" in _prose("zh")


def test_workflow_one_call_and_the_looper_grows_like_the_agent(traces):
    wf = [r["usage"]["input_tokens"] for r in _kinds(traces["workflow"], "response")]
    loop = [r["usage"]["input_tokens"] for r in _kinds(traces["looper"], "response")]
    agent = [r["usage"]["input_tokens"] for r in _kinds(traces["agent"], "response")]
    assert len(wf) == 1 and f"one call of {wf[0]} input tokens" in _prose() and f"输入 {wf[0]} 个 token" in _prose("zh")
    grew = [b - a for a, b in zip(loop, loop[1:])]  # each looper call re-sends one more useless turn
    steps = [b - a for a, b in zip(agent, agent[1:])][: len(grew)]
    assert loop[0] == agent[0] and all(0 < g and abs(g - s) <= 0.1 * s for g, s in zip(grew, steps)), (loop, agent)


@pytest.fixture(scope="module")
def table():
    return multiplying_table((1, 2, 4, 8), lang="en")


@pytest.fixture(scope="module")
def table_zh():
    """The zh-CN edition's table: the same cell asks in Chinese there (the task, chat, workers, sub-agents)."""
    return multiplying_table((1, 2, 4, 8), lang="zh")


def test_order_at_every_n_and_growth_with_n(table, table_zh):
    for lang, t in (("en", table), ("zh", table_zh)):
        for n, rows in t.groupby("cities"):
            by = rows.set_index("kind")["tokens"]
            assert by["chat"] < by["orchestrator-workers"] < by["agent"] < by["multi-agent"], (lang, n)
        for kind, rows in t.groupby("kind"):
            assert list(rows.sort_values("cities")["tokens"]) == sorted(rows["tokens"]), (lang, kind)


def test_multiples_at_8_cities_as_stated(table, table_zh):
    r = ratios(table, 8)
    for key, phrase in (
        ("agent", "agent used {}x"),
        ("multi-agent", "multi-agent system {}x"),
        ("orchestrator-workers", "only {}x"),
    ):
        assert phrase.format(r[key]) in _prose(), (key, r[key])
    assert anthropic_ratios() == {"agent": 4.0, "multi-agent": 15.0}
    assert "about 4x and 15x" in _prose() and "约 4 倍和 15 倍" in _prose("zh")
    # "(The agent asks for all 8 cities in one reply ... and takes 3 calls; ... about 3.8 times the agent's tokens.)"
    at8 = table[table["cities"] == 8].set_index("kind")
    assert at8.loc["agent", "model calls"] == 3
    assert round(at8.loc["multi-agent", "tokens"] / at8.loc["agent", "tokens"], 1) == 3.8
    assert "takes 3 calls" in _prose() and "about 3.8 times the agent's tokens" in _prose()


def test_the_zh_cn_edition_asks_in_chinese_and_states_its_own_multiples_at_8_cities(table_zh):
    # "我们的 agent 用了聊天的 13.9 倍 token，多 agent 系统用了 51.3 倍；编排者-工作者 workflow 只用了 7.3 倍。
    # （agent……只用 3 次调用；……约为 agent 的 3.7 倍。这一版的任务和提示都是中文的……）"
    r = ratios(table_zh, 8)
    for key, phrase in (
        ("agent", "agent 用了聊天的 {} 倍 token"),
        ("multi-agent", "多 agent 系统用了 {} 倍"),
        ("orchestrator-workers", "只用了 {} 倍"),
    ):
        assert phrase.format(r[key]) in _prose("zh"), (key, r[key])
    at8 = table_zh[table_zh["cities"] == 8].set_index("kind")
    multiple = round(at8.loc["multi-agent", "tokens"] / at8.loc["agent", "tokens"], 1)
    assert at8.loc["agent", "model calls"] == 3 and "只用 3 次调用" in _prose("zh")
    assert f"约为 agent 的 {multiple} 倍" in _prose("zh") and "任务和提示都是中文的" in _prose("zh"), multiple
    fan = fan_out(2, tempfile.mkdtemp(prefix="agentlab-12-zh-"), lang="zh")
    assert fan["agent"].messages[0]["content"] == "比较巴黎和伦敦的温度，哪个更暖和？然后保存一条笔记。"
    assert all(is_chinese(run.final_text) for run in fan.values()), {k: r.final_text for k, r in fan.items()}


def _code(cell_id: str) -> str:
    path = ROOT / "notebooks" / "12_capstone.ipynb"
    return next(c.source for c in nbformat.read(path, as_version=4).cells if c.id == cell_id)


def test_the_setup_sentence_points_at_the_printed_line_not_stderr():
    # in a notebook connect() prints its notice as a plain line (agentlab.client._notice), not on stderr
    assert "stderr" not in _prose() and "`connect()` prints" in _prose()
    assert "stderr" not in _prose("zh") and "`connect()` 打印的那一行" in _prose("zh")


def test_the_stop_table_cell_builds_with_warnings_as_errors(traces):
    import ast
    import warnings

    cell = ast.parse(_code("capstone-15"))  # the cell imports pandas, then builds the table in its last line
    scope = {"traces": traces}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pandas dtype warning (e.g. fillna("") on float columns) fails here
        exec(compile(ast.Module(cell.body[:-1], []), "cell", "exec"), scope)
        table = eval(compile(ast.Expression(cell.body[-1].value), "cell", "eval"), scope)
    assert list(table.index) == list(capstone.NAMES)
    assert table.loc["looper", "observed"] == 3 and table.loc["agent", "guard"] == ""


def test_the_whole_course_table_as_stated(traces):
    scope = {"capstone": capstone, "traces": traces}
    exec(_code("capstone-30"), scope)  # the cell's own code
    whole = scope["whole"]
    agent, wf, looper = whole.loc["agent"], whole.loc["workflow"], whole.loc["looper"]
    assert [r for r in whole.index if whole.loc[r, "steps chosen by"] == "the code"] == ["workflow"]
    assert whole["USD (list price)"].idxmin() == "workflow" and whole["input tokens"].idxmin() == "workflow"
    assert list(whole["stop reason"]) == [ev[-1]["reason"] for ev in traces.values()]
    assert [r for r in whole.index if traces[r][-1].get("guard")] == ["looper"]
    ratio = agent["USD (list price)"] / wf["USD (list price)"]
    en = (
        f"1 call, {wf['input tokens']} input tokens, ${wf['USD (list price)']:.4f}",
        f"{agent['model calls']} calls with {agent['input tokens']:,} input tokens for ${agent['USD (list price)']:.4f}",
        f"about {round(ratio)}x the workflow's cost",
        f"{looper['model calls']} calls and ${looper['USD (list price)']:.4f}",
    )
    zh = (
        f"{wf['model calls']} 次调用、{wf['input tokens']} 个输入 token、${wf['USD (list price)']:.4f}",
        f"{agent['model calls']} 次调用、{agent['input tokens']:,} 个输入 token、${agent['USD (list price)']:.4f}",
        f"约为 workflow 花费的 {round(ratio)} 倍",
        f"{looper['model calls']} 次调用和 ${looper['USD (list price)']:.4f}",
    )
    assert wf["model calls"] == 1
    for phrase in en:
        assert phrase in _prose(), phrase
    for phrase in zh:
        assert phrase in _prose("zh"), phrase


def test_the_shipped_agent_trace_asks_for_one_tool_per_reply_as_the_prose_says():
    from agentlab.experiments import capstone

    events = agentlab.read_trace(capstone.trace_path("agent"))
    per_turn = [sum(e.get("event") == "tool_call" and e["turn"] == t for e in events) for t in (1, 2, 3, 4)]
    assert per_turn == [1, 1, 1, 0]
    assert "one tool call per reply, `disable_parallel_tool_use`" in _prose()
    assert "每次回复一个工具调用录下的，即 `disable_parallel_tool_use`" in _prose("zh")
