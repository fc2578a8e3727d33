"""The adaptive agent (the city task with notebook 03's variant tools) calls independent tools in one turn."""

import agentlab
from agentlab.experiments.variants import variant_tools, variants

TWO_TYPOS = "Which is warmer today, Pariss or Londn? Compare their temperatures, then save a note with the answer."


def _lookups(run, name="get_weather"):
    """The ``name`` calls of each assistant turn that made any."""
    turns = [
        [b["input"]["city"] for b in m["content"] if b.get("type") == "tool_use" and b["name"] == name]
        for m in run.messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
    ]
    return [t for t in turns if t]


def test_a_task_with_both_city_names_misspelt_asks_both_corrected_lookups_in_one_turn(tmp_path):
    run = agentlab.run_agent(agentlab.connect("sim", quiet=True), TWO_TYPOS, variant_tools(tmp_path))
    assert _lookups(run) == [["Pariss", "Londn"], ["Paris", "London"]]
    assert run.model_calls == 4  # both typos, both corrections, the note, the answer
    assert run.final_text.startswith("Paris is warmer at 18.5°C")


def test_the_same_task_with_the_plain_tools_is_batched_the_same_way(tmp_path):
    run = agentlab.run_agent(agentlab.connect("sim", quiet=True), TWO_TYPOS, agentlab.task_tools(tmp_path))
    assert _lookups(run) == [["Pariss", "Londn"], ["Paris", "London"]] and run.model_calls == 4


def test_disable_parallel_tool_use_makes_the_adaptive_agent_ask_one_city_per_turn(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        TWO_TYPOS,
        variant_tools(tmp_path),
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert all(len(t) == 1 for t in _lookups(run)) and run.model_calls == 6


def test_the_itinerary_comes_first_alone_then_every_city_in_one_turn(tmp_path):
    task = {v.name: v for v in variants()}["itinerary"].task
    run = agentlab.run_agent(agentlab.connect("sim", quiet=True), task, variant_tools(tmp_path))
    assert [r["name"] for r in run.tool_results][:1] == ["get_itinerary"]
    assert _lookups(run) == [["Paris", "Rome", "Lisbon"]]


def test_a_one_per_turn_simulator_keeps_the_adaptive_agent_to_one_call_per_turn(tmp_path):
    run = agentlab.run_agent(agentlab.connect("sim", parallel=False, quiet=True), TWO_TYPOS, variant_tools(tmp_path))
    assert all(len(t) == 1 for t in _lookups(run)) and run.model_calls == 6
