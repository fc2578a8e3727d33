from agentlab.experiments.patterns import pattern_runs, pattern_table

CITIES = ["Madrid", "Oslo", "Cairo"]


def test_every_pattern_and_the_agent_solve_the_shared_task(sim, tmp_path):
    table = pattern_table(pattern_runs(sim, CITIES, tmp_path), CITIES)
    assert list(table.index) == ["agent", "chaining", "routing", "sectioning", "voting", "orchestrator", "evaluator"]
    assert table["solved"].all(), table
    assert table["input tokens"].idxmax() == "agent"
