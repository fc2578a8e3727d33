import agentlab
from agentlab.experiments.replacement import side_by_side, success_summary, variant_table
from agentlab.experiments.variants import check, get_forecast, get_itinerary, variant_tools, variants


def test_agent_finds_the_city_that_only_a_tool_result_names(sim, tmp_path):
    v = {x.name: x for x in variants()}["itinerary"]
    run = agentlab.run_agent(sim, v.task, variant_tools(tmp_path))
    assert [r["name"] for r in run.tool_results][:1] == ["get_itinerary"]
    assert {"city": "Lisbon"} in [r["input"] for r in run.tool_results]
    assert check(v, tmp_path) == (True, "the note has every required figure")


def test_agent_checks_tomorrow_only_for_the_rainy_city(sim, tmp_path):
    v = {x.name: x for x in variants()}["rain"]
    run = agentlab.run_agent(sim, v.task, variant_tools(tmp_path))
    assert [r["input"] for r in run.tool_results if r["name"] == "get_forecast"] == [{"city": "Berlin"}]
    assert check(v, tmp_path)[0]


def test_fixed_workflow_fails_each_unforeseen_variant_for_its_own_reason(sim, tmp_path):
    table = variant_table(sim, tmp_path).set_index(["variant", "side"])
    assert table.loc[("misspelt", "workflow"), "why"] == "no note was saved"
    assert "Lisbon" in table.loc[("itinerary", "workflow"), "why"]
    assert "tomorrow" in table.loc[("rain", "workflow"), "why"]
    assert table.xs("agent", level="side")["success"].all()


def test_success_summary_gives_rate_and_cost_per_side(sim, tmp_path):
    summary = success_summary(variant_table(sim, tmp_path))
    assert summary.loc["agent", "success rate"] > summary.loc["workflow", "success rate"]
    assert summary.loc["agent", "mean cost (USD)"] > summary.loc["workflow", "mean cost (USD)"]
    assert summary.loc["agent", "variants"] == len(variants())


def test_side_by_side_has_both_columns(sim, tmp_path):
    table = side_by_side(sim, ["Paris", "London"], tmp_path)
    assert list(table.columns) == ["agent", "workflow"]
    assert table.loc["input tokens", "agent"] > table.loc["input tokens", "workflow"]


def test_variant_tools_answer_from_bundled_data():
    assert get_itinerary()["destination"] == "Lisbon"
    assert get_forecast(city="Berlin")["day"] == "tomorrow"
    out = agentlab.run_tool({"get_forecast": get_forecast}, "get_forecast", {"city": "Reykjavik"})
    assert out.is_error and "No forecast for 'Reykjavik'" in out.content


def test_input_split_adds_up_and_the_workflow_prompt_is_all_its_input(sim, tmp_path):
    table = side_by_side(sim, ["Paris", "London"], tmp_path)
    parts = ["input: tool definitions", "input: task prompt", "input: earlier turns"]
    for side in ("agent", "workflow"):
        assert sum(table.loc[p, side] for p in parts) == table.loc["input tokens", side]
    assert table.loc["input: task prompt", "workflow"] == table.loc["input tokens", "workflow"]
    assert table.loc["input: tool definitions", "agent"] > table.loc["input: earlier turns", "agent"] > 0
