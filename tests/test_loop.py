import json

import anthropic
import pytest

import agentlab
from agentlab import FunctionModel, ScriptedModel, StopReason, run_agent, tool


def _weather_call(city="Paris"):
    return [{"type": "tool_use", "name": "get_weather", "input": {"city": city}}]


def test_city_task_runs_every_get_weather_in_one_turn_then_save_note_then_end_turn(sim, tools, tmp_path):
    run = run_agent(sim, agentlab.city_task(["Paris", "London"]), tools)
    assert [t.tool_calls for t in run.turns] == [["get_weather", "get_weather"], ["save_note"], []]
    assert run.stop_reason is StopReason.END_TURN
    assert "Paris" in run.final_text and "18.5" in run.final_text and "15" in run.final_text
    assert (tmp_path / "notes" / "notes.md").read_text().startswith("Paris is warmer")


def test_every_tool_use_id_is_answered_once_in_the_next_user_message(tools):
    client = agentlab.connect("sim", parallel=True, quiet=True)
    run = run_agent(client, agentlab.city_task(["Paris", "London", "Madrid"]), tools)
    for ask, answer in zip(run.messages[1::2], run.messages[2::2]):
        ids = [b["id"] for b in ask["content"] if b["type"] == "tool_use"]
        assert [b["tool_use_id"] for b in answer["content"]] == ids
    assert run.turns[0].tool_calls == ["get_weather"] * 3


def test_max_turns_stops_before_next_call(tools):
    client = agentlab.connect("sim", policy=FunctionModel(lambda m, i: _weather_call()), quiet=True)
    run = run_agent(client, "loop forever", tools, max_turns=3)
    assert run.stop_reason is StopReason.MAX_TURNS
    assert run.model_calls == 3
    assert run.messages[-1]["role"] == "user"  # the last request was answered, then the harness stopped


def test_max_turns_must_be_positive(sim, tools):
    with pytest.raises(ValueError, match="max_turns must be a whole number >= 1, got 0"):
        run_agent(sim, "x", tools, max_turns=0)


def test_a_tool_that_raises_gives_is_error_and_the_run_continues():
    @tool
    def flaky(x: int) -> str:
        """Fails."""
        raise RuntimeError("disk on fire")

    script = ScriptedModel([[{"type": "tool_use", "name": "flaky", "input": {"x": 1}}], "Sorry, it failed."])
    run = run_agent(agentlab.connect("sim", policy=script, quiet=True), "go", [flaky])
    result = run.messages[2]["content"][0]
    assert result["is_error"] is True and result["content"] == "flaky failed: RuntimeError: disk on fire"
    assert run.stop_reason is StopReason.END_TURN and run.final_text == "Sorry, it failed."


def test_bad_city_is_retried_with_the_suggested_name(sim, tools):
    run = run_agent(sim, "Which is warmer, Pariss or London? Save a note.", tools)
    asked = [r["input"].get("city") for r in run.tool_results if r["name"] == "get_weather"]
    assert asked == ["Pariss", "London", "Paris"]  # both asked at once; the fixed name in the next turn
    assert "18.5" in run.final_text


def test_trace_is_written_as_the_run_goes_and_ends_with_stop(sim, tools, tmp_path):
    path = tmp_path / "t.jsonl"
    run = run_agent(sim, agentlab.city_task(["Paris", "London"]), tools, trace=path)
    events = agentlab.read_trace(path)
    assert events[0]["format"] == "agentlab-trace" and events[-1]["event"] == "stop"
    assert events[-1]["reason"] == "end_turn" and run.trace_path == str(path)
    kinds = [e.get("event") for e in events[1:]]
    assert kinds[:4] == ["request", "response", "tool_call", "tool_result"]


def test_two_runs_give_byte_identical_traces(tools, tmp_path):
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for p in paths:
        run_agent(agentlab.connect("sim", quiet=True), agentlab.city_task(["上海", "北京"], "zh"), tools, trace=p)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_a_crash_keeps_the_trace_and_records_the_error(tools, tmp_path):
    def broken(messages, info):
        if len(messages) > 1:
            raise_here = messages[99]  # noqa: F841 - a bug in the policy: IndexError
        return _weather_call()

    client = agentlab.connect("sim", policy=FunctionModel(broken), quiet=True)
    path = tmp_path / "crash.jsonl"
    with pytest.raises(
        anthropic.InternalServerError, match=r"policy raised IndexError: list index out of range \(at .*test_loop.py"
    ):
        run_agent(client, "x", tools, trace=path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e.get("event") for e in lines[1:4]] == ["request", "response", "tool_call"]
    assert lines[-1]["event"] == "stop" and lines[-1]["reason"] == "error"


def test_run_reports_per_turn_usage_cost_and_reprefill(sim, tools):
    run = run_agent(sim, agentlab.city_task(["Paris", "London"]), tools)
    assert run.estimated is True
    assert all(t.input_tokens > 0 and t.output_tokens > 0 for t in run.turns)
    assert run.turns[0].reprefill_tokens == 0
    for prev, cur in zip(run.turns, run.turns[1:]):
        assert cur.input_tokens > prev.input_tokens
        assert cur.reprefill_tokens == prev.input_tokens + prev.output_tokens
    assert run.cost_usd == pytest.approx(sum(t.cost_usd for t in run.turns))
    assert run.cost_usd > 0


def test_system_prompt_is_sent_when_given(tools):
    seen = {}

    def spy(messages, info):
        seen.update(info)
        return "ok"

    run_agent(agentlab.connect("sim", policy=FunctionModel(spy), quiet=True), "hi", tools, system="Be brief.")
    assert seen["system"] == "Be brief." and [t["name"] for t in seen["tools"]] == ["get_weather", "save_note"]


def test_max_tokens_stop_is_reported(tools):
    long = "word " * 50
    run = run_agent(
        agentlab.connect("sim", policy=FunctionModel(lambda m, i: long), quiet=True), "x", tools, max_tokens=5
    )
    assert run.stop_reason is StopReason.MAX_TOKENS and len(run.final_text.split()) <= 5


def test_a_tool_returning_something_json_cannot_encode_is_an_error_and_the_run_goes_on():
    @tool
    def tags(x: int) -> dict:
        """Returns a set by mistake."""
        return {"tags": {"a", "b"}}

    script = ScriptedModel([[{"type": "tool_use", "name": "tags", "input": {"x": 1}}], "Noted."])
    run = run_agent(agentlab.connect("sim", policy=script, quiet=True), "go", [tags])
    result = run.messages[2]["content"][0]
    assert result["is_error"] is True and "JSON cannot encode" in result["content"] and "set" in result["content"]
    assert run.stop_reason is StopReason.END_TURN and run.final_text == "Noted."


def test_a_tool_use_with_null_input_is_an_error_and_the_run_goes_on(tools):
    script = ScriptedModel([[{"type": "tool_use", "name": "get_weather", "input": None}], "Sorry."])
    run = run_agent(agentlab.connect("sim", policy=script, quiet=True), "go", tools)
    result = run.messages[2]["content"][0]
    assert result["is_error"] is True and "input must be of type object, got null" in result["content"]
    assert run.stop_reason is StopReason.END_TURN


def test_tool_use_ids_are_unique_across_a_conversation_with_many_calls_per_turn(tools):
    cities = agentlab.city_names()[:12]
    client = agentlab.connect("sim", parallel=True, quiet=True)
    run = run_agent(client, agentlab.city_task(cities), tools)
    ids = [b["id"] for m in run.messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    assert len(ids) == 13 and len(set(ids)) == len(ids)
    assert [r["input"].get("city") for r in run.tool_results][:12] == cities
