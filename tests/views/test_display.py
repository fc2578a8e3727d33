from agentlab.views.display import steps_table
from agentlab.workflows import run_chain
from tests.workflows.test_chaining import _links


def test_steps_table_has_one_row_per_step_whose_tokens_add_up_to_the_runs(sim):
    run = run_chain(sim, "Which is warmer, Paris or Rome?", _links())
    table = steps_table(run)
    assert list(table["step"]) == ["chain/extract", "chain/fetch", "chain/write"]
    assert table["input tokens"].sum() == run.input_tokens and table.loc[1, "input tokens"] == 0  # fetch is code


def test_steps_table_cuts_a_long_error_to_70_characters(sim):
    table = steps_table(run_chain(sim, "Which is warmer, Paris or Rome?", _links(gate=lambda v: "x" * 200)))
    assert list(table["step"]) == ["chain/extract", "chain/extract/gate"] and list(table["error"].map(len)) == [0, 70]
