"""Sub-agents: clean windows, tokens added to the total, a failing or looping sub-agent ends with a typed reason."""

from __future__ import annotations

import agentlab
from agentlab.context import Delegation, SubAgentFailed, report_cities, report_task, research_tool
from agentlab.context.compare import MODEL
from agentlab.run import turns_of
from agentlab.sim.models.context_agent import ContextAgent
from agentlab.weather import make_get_weather


def _looping_subs(request):
    """The orchestrator decides as usual; every sub-agent asks for Paris again and again."""
    if any(t.get("name") == "research_cities" for t in request.get("tools") or []):
        return ContextAgent()(request)
    return agentlab.sim.policy.Reply([{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}])


def test_sub_agents_each_get_a_clean_window_and_their_tokens_are_added(tmp_path):
    client = agentlab.connect("sim", model=MODEL, policy=ContextAgent(), quiet=True)
    deleg = Delegation()
    tool = research_tool(client, make_get_weather(7), deleg, batch=4, trace_dir=tmp_path)
    deleg.orchestrator = agentlab.run_agent(client, report_task(report_cities(8)), [tool], max_turns=10)
    assert len(deleg.subs) == 2 and all(r.stop_reason.value == "end_turn" for r in deleg.subs)
    own = sum(t.prompt_tokens for t in deleg.orchestrator.turns)
    assert deleg.total_input_tokens() == own + sum(t.prompt_tokens for r in deleg.subs for t in r.turns)
    assert max(t.prompt_tokens for t in deleg.orchestrator.turns) < min(
        max(t.prompt_tokens for t in r.turns) for r in deleg.subs
    )
    assert "Warmest:" in deleg.orchestrator.final_text


def test_a_looping_sub_agent_is_stopped_and_the_orchestrator_reads_a_typed_reason(tmp_path):
    client = agentlab.connect(
        "sim", model=MODEL, policy=agentlab.FunctionModel(lambda m, r: _looping_subs(r)), quiet=True
    )
    deleg = Delegation()
    tool = research_tool(client, make_get_weather(0), deleg, batch=4, trace_dir=tmp_path)
    run = agentlab.run_agent(client, report_task(report_cities(8)), [tool], max_turns=10, trace=tmp_path / "o.jsonl")
    assert deleg.subs[0].stop_reason.value == "repeated_call"
    error = next(r for r in run.tool_results if r["is_error"])
    assert "stopped without a report: repeated_call (observed 3, limit 3)" in error["content"]
    assert "A sub-agent failed" in run.final_text and run.stop_reason.value == "end_turn"


def test_a_sub_agent_whose_model_call_fails_becomes_a_readable_error():
    def policy(messages, request):
        if any(t.get("name") == "research_cities" for t in request.get("tools") or []):
            return ContextAgent()(request)
        raise RuntimeError("the model crashed")

    client = agentlab.connect("sim", model=MODEL, policy=agentlab.FunctionModel(policy), quiet=True)
    tool = research_tool(client, make_get_weather(0), Delegation(), batch=4)
    out = agentlab.tools.run_tool({"research_cities": tool}, "research_cities", {"cities": ["Paris", "Oslo"]})
    assert out.is_error and "sub-agent for Paris, Oslo stopped without a report: error" in out.content


def test_sub_agent_failure_is_a_tool_error_subclass():
    assert issubclass(SubAgentFailed, agentlab.ToolError)


def test_a_sub_agent_that_raises_still_counts_its_calls_in_the_total():
    state = {"sub_calls": 0}

    def policy(messages, request):
        if any(t.get("name") == "research_cities" for t in request.get("tools") or []):
            return ContextAgent()(request)
        state["sub_calls"] += 1
        if state["sub_calls"] > 2:  # two answered calls, then the model crashes
            raise RuntimeError("the model crashed")
        return agentlab.sim.policy.Reply(
            [{"type": "tool_use", "name": "get_weather", "input": {"city": f"C{state['sub_calls']}"}}]
        )

    client = agentlab.connect("sim", model=MODEL, policy=agentlab.FunctionModel(policy), quiet=True)
    meter = agentlab.meter_of(client)
    deleg = Delegation()
    tool = research_tool(client, make_get_weather(0), deleg, batch=4)
    mark = meter.mark()
    out = agentlab.tools.run_tool({"research_cities": tool}, "research_cities", {"cities": ["Paris", "Oslo"]})
    assert out.is_error and deleg.subs == []
    paid = turns_of(meter, mark)
    assert len(paid) == 2 and len(deleg.failed) == 1 and deleg.calls() == 2
    assert deleg.total_input_tokens() == sum(t.prompt_tokens for t in paid) > 0


def test_a_looping_sub_agent_without_traces_still_names_its_limit():
    client = agentlab.connect(
        "sim", model=MODEL, policy=agentlab.FunctionModel(lambda m, r: _looping_subs(r)), quiet=True
    )
    tool = research_tool(client, make_get_weather(0), Delegation(), batch=4)  # no trace_dir
    out = agentlab.tools.run_tool({"research_cities": tool}, "research_cities", {"cities": ["Paris", "Oslo"]})
    assert out.is_error and "repeated_call (after 3 calls, limit max_repeats=3)" in out.content
