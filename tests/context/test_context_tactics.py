"""Each tactic changes the window and the token total in the way it claims; measured on the report task."""

from __future__ import annotations

import pytest

import agentlab
from agentlab.context import (
    ClearToolResults,
    Compaction,
    ServerClearing,
    check_report,
    clear_tool_results,
    report_cities,
    report_task,
    should_compact,
)
from agentlab.context.compare import MODEL
from agentlab.sim.models.context_agent import ContextAgent
from agentlab.trace import read_trace
from agentlab.weather import make_get_weather


@pytest.fixture(scope="module")
def workdir(context_lab):
    return context_lab[0]


@pytest.fixture(scope="module")
def lab(context_lab):
    return context_lab[1]


def _client():
    return agentlab.connect("sim", model=MODEL, policy=ContextAgent(), quiet=True)


def test_plain_agent_passes_the_window_and_every_tactic_stays_under_it_with_a_correct_answer(lab):
    table, _ = lab
    assert table.loc["plain", "window exceeded"]
    for tactic, row in table.iterrows():
        assert row["answer correct"], tactic
        if tactic != "plain":
            assert not row["window exceeded"], tactic
            assert row["input tokens"] < table.loc["plain", "input tokens"], tactic


def test_compaction_makes_a_sawtooth_and_replaces_the_history_with_a_summary(lab, tmp_path):
    _, results = lab
    per_call = results["compaction"].per_call
    drops = [i for i in range(1, len(per_call)) if per_call[i] < per_call[i - 1] / 2]
    assert len(drops) >= 2, per_call  # the summary call, then the first call after it, each time
    strategy = Compaction(threshold_tokens=4_000)
    run = agentlab.run_agent(
        _client(),
        report_task(report_cities(12)),
        [make_get_weather(7)],
        max_turns=30,
        context=strategy,
        trace=tmp_path / "c.jsonl",
    )
    assert strategy.events and check_report(run.final_text, report_cities(12))["correct"]
    events = read_trace(tmp_path / "c.jsonl")
    assert sum(e.get("event") == "compaction" for e in events) == len(strategy.events) and events[-1]["event"] == "stop"
    requests = sum(e.get("event") == "request" for e in events)
    assert run.model_calls == requests + len(strategy.events)  # the summary calls are in the run's turns and cost


def test_compaction_keeps_the_task_and_temperatures_but_drops_other_planted_facts(lab):
    kept = lab[1]["compaction"].extra["facts kept by the first summary"]
    assert kept == {
        "what the report must give": True,
        "who reads the report": False,
        "Paris's temperature": True,
        "Paris's condition": False,
        "Paris's Monday forecast": False,
    }


def test_harness_clearing_leaves_placeholders_and_keeps_every_pair_valid():
    def tool_use(i):
        return {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"t{i}", "name": "get_weather", "input": {}}],
        }

    def result(i):
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * 50}]}

    messages = [{"role": "user", "content": "task"}] + [m for i in range(5) for m in (tool_use(i), result(i))]
    edited, n = clear_tool_results(messages, keep=2)
    assert n == 3 and messages[2]["content"][0]["content"] == "x" * 50  # the input is not changed
    contents = [m["content"][0]["content"] for m in edited[2::2]]
    assert contents[:3] == [contents[0]] * 3 and contents[0].startswith("[cleared") and contents[3:] == ["x" * 50] * 2
    assert [m["content"][0]["tool_use_id"] for m in edited[2::2]] == [f"t{i}" for i in range(5)]


def test_harness_clearing_cuts_the_total_and_records_each_clearing(tmp_path):
    strategy = ClearToolResults(trigger_tokens=3_000, keep=2)
    run = agentlab.run_agent(
        _client(),
        report_task(report_cities(10)),
        [make_get_weather(7)],
        max_turns=20,
        context=strategy,
        trace=tmp_path / "t.jsonl",
    )
    plain = agentlab.run_agent(_client(), report_task(report_cities(10)), [make_get_weather(7)], max_turns=20)
    assert strategy.events and run.input_tokens < plain.input_tokens
    assert check_report(run.final_text, report_cities(10))["correct"]
    assert sum(e.get("event") == "context_cleared" for e in read_trace(tmp_path / "t.jsonl")) == len(strategy.events)


def test_server_clearing_is_reported_in_applied_edits_and_the_client_keeps_its_full_history():
    strategy = ServerClearing(trigger_tokens=3_000, keep=2)
    run = agentlab.run_agent(
        _client(), report_task(report_cities(10)), [make_get_weather(7)], max_turns=20, context=strategy
    )
    edit = strategy.applied[0]["applied_edits"][0]
    assert (
        edit["type"] == "clear_tool_uses_20250919"
        and edit["cleared_tool_uses"] >= 1
        and edit["cleared_input_tokens"] > 0
    )
    assert not any(
        "cleared" in str(b.get("content"))
        for m in run.messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    )
    assert max(t.input_tokens for t in run.turns) < 3_000 + 1_000


def test_should_compact_reads_the_previous_call():
    assert should_compact(7_900, 200, 8_000) and not should_compact(7_000, 200, 8_000)


def test_an_over_budget_summary_stops_the_run_with_a_typed_reason_its_tokens_and_limit(tmp_path):
    run = agentlab.run_agent(
        _client(),
        report_task(report_cities(12)),
        [make_get_weather(7)],
        max_turns=30,
        context=Compaction(threshold_tokens=3_000, summary_max_tokens=20),
        trace=tmp_path / "o.jsonl",
    )
    assert run.stop_reason == agentlab.StopReason.COMPACTION_FAILED
    events = read_trace(tmp_path / "o.jsonl")
    stop = events[-1]
    assert stop["event"] == "stop" and stop["reason"] == "compaction_failed"
    assert stop["guard"] == "summary_max_tokens" and stop["limit"] == 20 and 0 < stop["observed"] <= 20
    assert f"hit its output budget (stop_reason max_tokens): {stop['observed']} tokens written, limit 20" in run.detail
    assert "over its budget" not in run.detail and "summary_max_tokens=20" in run.detail
    assert any(e.get("event") == "compaction" and e.get("refused") for e in events)
    assert run.model_calls == sum(e.get("event") == "response" for e in events) + 1, (
        "the summary call is a turn of the run"
    )


def test_a_fresh_summary_past_the_threshold_stops_instead_of_thrashing(tmp_path):
    strategy = Compaction(threshold_tokens=600)
    run = agentlab.run_agent(
        _client(),
        report_task(report_cities(30)),
        [make_get_weather(7)],
        max_turns=60,
        context=strategy,
        trace=tmp_path / "o.jsonl",
    )
    assert run.stop_reason == agentlab.StopReason.COMPACTION_FAILED and len(strategy.events) == 1
    stop = read_trace(tmp_path / "o.jsonl")[-1]
    assert stop["guard"] == "threshold_tokens" and stop["limit"] == 600 and stop["observed"] > 600
    assert f"sent and wrote {stop['observed']} tokens, limit 600" in run.detail
    assert run.model_calls < 10, "one compaction, then a stop: not a compaction on every call"


def test_a_threshold_the_summary_fits_under_compacts_and_finishes():
    strategy = Compaction(threshold_tokens=3_000)
    run = agentlab.run_agent(
        _client(), report_task(report_cities(30)), [make_get_weather(7)], max_turns=60, context=strategy
    )
    assert run.stop_reason.value == "end_turn" and len(strategy.events) >= 2


def test_bad_strategy_settings_are_refused_naming_the_field():
    with pytest.raises(ValueError, match="threshold_tokens"):
        Compaction(threshold_tokens=0)
    with pytest.raises(ValueError, match="keep"):
        clear_tool_results([], keep=-1)


def test_just_in_time_results_are_small_and_sub_agent_tokens_are_added_to_the_total(lab):
    table, results = lab
    assert table.loc["just-in-time", "peak context (tokens)"] < table.loc["plain", "peak context (tokens)"] / 4
    sub = results["sub-agents"]
    assert sub.extra["sub-agents"] == 4
    assert (
        sub.extra["orchestrator input tokens"] + sub.extra["sub-agent input tokens"]
        == table.loc["sub-agents", "input tokens"]
    )
    assert sub.extra["sub-agent input tokens"] > sub.extra["orchestrator input tokens"]


def test_every_tactic_writes_standard_traces_header_first_stop_last(lab, workdir):
    traces = sorted(workdir.rglob("*.jsonl"))
    names = {p.name for p in traces}
    assert {
        "plain.jsonl",
        "compaction.jsonl",
        "clearing.jsonl",
        "clearing-api.jsonl",
        "sub-agents.jsonl",
        "just-in-time.jsonl",
        "session-1.jsonl",
        "sub-1.jsonl",
    } <= names
    for path in traces:
        events = read_trace(path)
        assert events[0].get("format") == "agentlab-trace" and events[-1]["event"] == "stop", path
    assert any(e.get("event") == "context_edited" for e in read_trace(workdir / "clearing-api.jsonl"))
