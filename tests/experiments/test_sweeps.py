"""The sweep: one row per run, components that add up, the one-city case, figures that render."""

import matplotlib
import pytest

import agentlab
from agentlab.experiments.sweeps import plot_cost_by_model, plot_sweep, run_row, sweep, sweep_grid
from agentlab.experiments.turn_costs import cost_curve, plot_cost_per_turn, plot_latency_per_turn

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def small():
    return sweep(ns=[1, 2, 5], models=["claude-opus-5"], long_output=(False, True), progress=False)


def test_one_row_per_grid_point_and_components_add_up(small):
    assert len(small) == len(sweep_grid([1, 2, 5], ["claude-opus-5"], (False, True))) == 18
    assert (small["tool tokens"] + small["re-sent history"] + small["new tokens"] == small["input tokens (all)"]).all()
    assert (
        small["input tokens (uncached)"] + small["cache read tokens"] + small["cache write tokens"]
        == small["input tokens (all)"]
    ).all()
    assert set(small["stop"]) == {"end_turn", "completed"}


def test_one_city_runs_as_a_lookup_in_three_turns(small):
    one = small[(small["cities"] == 1) & (small["kind"] == "agent")]
    assert set(one["turns"]) == {3}  # get_weather, save_note, answer


def test_agent_turns_grow_with_cities_and_the_workflow_stays_at_one_call(small):
    agent = small[(small["kind"] == "agent") & ~small["cache"] & ~small["long output"]].sort_values("cities")
    assert list(agent["turns"]) == [n + 2 for n in agent["cities"]]
    assert set(small[small["kind"] == "workflow"]["turns"]) == {1}


def test_long_output_writes_more_and_takes_longer(small):
    key = ["kind", "cache", "cities"]
    short = small[~small["long output"]].set_index(key)
    long = small[small["long output"]].set_index(key)
    assert (long["output tokens"] > short["output tokens"]).all()
    assert (long["latency (s)"] > short["latency (s)"]).all()


def test_caching_a_workflow_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="re-sends nothing"):
        run_row("claude-opus-5", 2, "workflow", True, False, tmp_path)


def test_sweep_figures_render(small):
    assert len(plot_sweep(small).axes) == 4
    assert len(plot_cost_by_model(small).axes) == 1


def test_cost_curve_sums_to_the_runs_cost_and_figures_render(tmp_path):
    client = agentlab.connect("sim", model="claude-opus-5", quiet=True)
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London", "Oslo"]), agentlab.task_tools(tmp_path), cache=True
    )
    per, cum = cost_curve(run)
    assert cum[-1] == pytest.approx(run.cost_usd) == pytest.approx(sum(per))
    assert plot_cost_per_turn({"cached": run}).axes and plot_latency_per_turn({"cached": run}).axes


def test_a_batch_sweep_has_the_same_runs_turns_and_tokens_at_half_the_cost(small):
    batched = sweep(ns=[1, 2, 5], models=["claude-opus-5"], long_output=(False, True), progress=False, batch=True)
    assert set(batched["kind"]) == {"agent"} and batched["batch"].all()
    key = ["cities", "cache", "long output"]
    direct = small[small["kind"] == "agent"].set_index(key).sort_index()
    batched = batched.set_index(key).sort_index()
    assert list(batched.index) == list(direct.index)
    assert (batched["turns"] == direct["turns"]).all() and (batched["stop"] == direct["stop"]).all()
    plain = batched.xs(False, level="cache"), direct.xs(False, level="cache")
    for column in ("input tokens (all)", "output tokens"):
        assert (plain[0][column] == plain[1][column]).all()
    assert (plain[0]["cost (USD)"] * 2 - plain[1]["cost (USD)"]).abs().max() < 1e-12
    assert (batched["latency (s)"] > direct["latency (s)"]).all()  # each turn waits for its batch round
