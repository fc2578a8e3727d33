"""Figures: the comparison labels its values and reads at laptop width; the per-turn figure stacks the parts."""

import matplotlib

matplotlib.use("Agg")

import pytest

import agentlab
from agentlab.views.figures import plot_comparison, plot_tokens_per_turn


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    client = agentlab.connect("sim", quiet=True)
    return agentlab.compare(client, ["Paris", "London"], tmp_path_factory.mktemp("notes"))


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_comparison_labels_every_value_including_the_workflows_small_input(runs):
    agent, workflow = runs
    fig = plot_comparison([agent, workflow])
    calls, inputs, outputs, costs = fig.axes
    assert {"3", "1"} <= set(_texts(calls))  # the agent asks for both cities in one reply
    assert {f"{agent.input_tokens:,}", f"{workflow.input_tokens:,}"} <= set(_texts(inputs))
    assert {str(agent.output_tokens), str(workflow.output_tokens)} <= set(_texts(outputs))
    width, height = fig.get_size_inches()
    assert 8 <= width <= 10 and height >= 5  # fits a notebook at laptop width without shrinking the text


def test_tokens_per_turn_stacks_the_parts_and_shows_the_cumulative_total(runs):
    agent, _ = runs
    fig = plot_tokens_per_turn(agent)
    bars, cumulative = fig.axes
    legend = [t.get_text() for t in bars.get_legend().get_texts()]
    assert legend[:2] == ["tool-use system prompt", "tool definitions"] and "history (earlier turns)" in legend
    heights = {}
    for patch in bars.patches:  # the stacked layers of each turn add up to its input
        x = round(patch.get_x() + patch.get_width() / 2)
        heights[x] = heights.get(x, 0) + patch.get_height()
    assert [round(heights[t.index]) for t in agent.turns] == [t.input_tokens for t in agent.turns]
    line = cumulative.get_lines()[0]
    assert list(line.get_ydata())[-1] == agent.input_tokens


def test_a_run_without_parts_falls_back_to_resent_and_new():
    from agentlab.run import Run, StopReason, Turn

    turns = [Turn(1, 100, 5, 0, "tool_use"), Turn(2, 130, 5, 105, "end_turn")]
    run = Run("agent", "claude-sonnet-5-5", "done", StopReason.END_TURN, turns, [], estimated=False)
    fig = plot_tokens_per_turn(run)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["re-prefill (sent before)", "new this turn"]
    assert run.summary()["  of which tools offered"] is None
