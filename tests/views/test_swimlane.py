import matplotlib
import pytest

import agentlab
from agentlab.views.swimlane import LANES, collapse_steps, plot_swimlane, swimlane_steps

matplotlib.use("Agg")


@pytest.fixture
def agent_events(sim, tools, tmp_path):
    agentlab.run_agent(sim, agentlab.city_task(["Paris", "London"]), tools, trace=tmp_path / "a.jsonl")
    return agentlab.read_trace(tmp_path / "a.jsonl")


def test_agent_steps_follow_the_loop_and_the_model_never_touches_a_tool(agent_events):
    steps = swimlane_steps(agent_events)
    assert steps[0].src == "host application" and steps[0].dst == "model"
    assert all(s.src in LANES and s.dst in LANES for s in steps)
    assert not [s for s in steps if "model" in (s.src, s.dst) and "tools" in (s.src, s.dst)]
    into_tools = [s for s in steps if s.dst == "tools"]
    assert into_tools and all(s.src == "your code" for s in into_tools)
    calls = [e for e in agent_events if e.get("event") == "tool_call"]
    requests = [e for e in agent_events if e.get("event") == "request"]
    assert len(steps) == 2 * len(requests) + 3 * len(calls) + 1  # request+reply, 3 arrows per tool, stop
    assert steps[-1].label == "stop: end_turn"


def test_workflow_steps_never_pass_through_the_host_loop(sim, tmp_path):
    agentlab.run_workflow(sim, ["Paris", "London"], tmp_path, trace=tmp_path / "w.jsonl")
    steps = swimlane_steps(agentlab.read_trace(tmp_path / "w.jsonl"))
    assert all("host application" not in (s.src, s.dst) for s in steps)
    assert [s.dst for s in steps if s.src == "your code"].count("model") == 1


def test_a_failed_tool_call_is_marked_as_an_error(sim, tools, tmp_path):
    agentlab.run_agent(sim, agentlab.city_task(["Pariss", "London"]), tools, trace=tmp_path / "e.jsonl")
    steps = swimlane_steps(agentlab.read_trace(tmp_path / "e.jsonl"))
    assert [s for s in steps if s.error and s.label.startswith("error: ")]


def test_long_runs_are_collapsed_to_the_first_and_last_steps():
    steps = list(range(78))
    shown, hidden = collapse_steps(steps, 24)
    assert len(shown) == 24 and shown.count(None) == 1
    assert hidden == 78 - 23 and shown[0] == 0 and shown[-1] == 77
    assert collapse_steps(steps[:10], 24) == (steps[:10], 0)


def test_plot_says_how_many_steps_it_did_not_draw(sim, tools, tmp_path):
    run = agentlab.run_agent(
        sim, agentlab.city_task(agentlab.city_names()[:12]), tools, max_turns=30, trace=tmp_path / "long.jsonl"
    )
    total = len(swimlane_steps(agentlab.read_trace(run.trace_path)))
    fig = plot_swimlane(run, max_steps=20)
    assert f"({total} steps, {total - 19} collapsed)" in fig.axes[0].get_title()


def test_bad_input_is_refused_with_the_fix(sim, tools):
    run = agentlab.run_agent(sim, agentlab.city_task(["Paris", "London"]), tools)
    with pytest.raises(ValueError, match="trace='run.jsonl'"):
        plot_swimlane(run)
    with pytest.raises(ValueError, match="max_steps=2"):
        plot_swimlane([{"format": "agentlab-trace"}], max_steps=2)
    with pytest.raises(ValueError, match="header first"):
        swimlane_steps([{"event": "stop"}])


def test_a_workflow_pattern_is_drawn_step_by_step_with_its_step_paths(sim, tmp_path):
    from agentlab.experiments.patterns import data_line
    from agentlab.workflows import run_orchestrator

    run_orchestrator(
        sim,
        "Which is warmer today, Paris, Madrid or Oslo?",
        worker_system="One sentence.",
        synth_system="Combine.",
        context=lambda s: data_line([s["title"]]),
        trace=tmp_path / "o.jsonl",
    )
    steps = swimlane_steps(agentlab.read_trace(tmp_path / "o.jsonl"))
    asks = [s for s in steps if s.dst == "model"]
    assert [s.src for s in asks] == ["your code"] * len(asks) and len(asks) == 5  # plan, 3 workers, synthesis
    turns = [s.turn for s in asks]  # the three workers run at once: their calls land in the trace in any order
    assert (
        asks[0].label.startswith("orchestrator/plan")
        and turns[0] == 1
        and turns[-1] == 5
        and sorted(turns) == [1, 2, 3, 4, 5]
    )
