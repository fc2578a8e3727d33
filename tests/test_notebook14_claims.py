"""Every claim in notebooks/14_many_trials.ipynb's prose (the optional notebook), read from its own run in the
notebook store: the run that says it saved a note, the trials' table, the reliability figure and the costs.
Each test names the sentence it checks; the zh-CN edition runs the same code and says the same."""

from pathlib import Path

import pytest
from claims import said
from notebook_store import xdist_group

from agentlab.evals.plot import reliability

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "14_many_trials.ipynb"
pytestmark = xdist_group(NOTEBOOK)


@pytest.fixture(scope="module")
def nb(notebook_store):
    """The notebook's variables after its run in the notebook store (the same run test_notebooks.py checks)."""
    return notebook_store.namespace(NOTEBOOK)


def test_the_run_ended_with_end_turn_saying_the_note_was_saved_and_the_check_found_none(nb):
    said = nb["said"]
    assert said.stop_reason.value == "end_turn" and "saved the note" in said.final_text
    assert "save_note" not in [r["name"] for r in said.tool_results]


def test_each_variant_ran_100_trials_the_agent_saved_89_right_notes_the_workflow_95_and_the_intervals_overlap_widely(
    nb,
):
    table = nb["table"]
    assert list(table["trials"]) == [100, 100]
    assert round(100 * table.loc["agent", "pass@1"]) == 89 and round(100 * table.loc["workflow", "pass@1"]) == 95
    (a_lo, a_hi), (w_lo, w_hi) = (map(float, table.loc[v, "pass@1 interval"].split("-")) for v in ("agent", "workflow"))
    assert a_lo < w_lo < a_hi < w_hi and a_hi - w_lo > (a_hi - a_lo) / 2, "the two intervals overlap widely"


def test_pass_at_5_is_about_1_for_both(nb):
    assert all(v > 0.99 for v in nb["table"]["pass@5"])


def test_the_agent_failed_two_ways_and_the_workflow_only_by_naming_the_wrong_city(nb):
    fails = {v: {r["why"] for r in nb["rows"] if r["variant"] == v and not r["success"]} for v in ("agent", "workflow")}
    assert fails["agent"] == {"names the wrong city as warmest", "no note saved"}
    assert fails["workflow"] == {"names the wrong city as warmest"}


def test_pass_hat_5_is_about_half_against_three_quarters_0_21_against_0_59_at_k_10_and_the_bands_overlap(nb):
    table = nb["table"]
    assert round(table.loc["agent", "pass^5"], 2) == 0.52 and round(table.loc["workflow", "pass^5"], 2) == 0.77
    curves = reliability(nb["rows"], 10)
    agent, workflow = curves["agent"][-1], curves["workflow"][-1]
    assert agent["k"] == workflow["k"] == 10
    assert round(agent["pass^k"], 2) == 0.21 and round(workflow["pass^k"], 2) == 0.59
    for a, w in zip(curves["agent"], curves["workflow"]):
        assert a["pass^k"] < w["pass^k"], "the gap at one attempt grows with k"
        assert a["pass^k interval"][1] > w["pass^k interval"][0], f"the bands overlap at k = {a['k']}"
    assert 0.5 < workflow["pass^k interval"][1] and workflow["pass^k interval"][0] < 0.5, "the answer key's 0.35-0.79"


def test_the_figure_stops_at_half_the_trials(nb):
    ticks = [int(t) for t in nb["fig"].axes[0].get_xticks()]
    assert ticks == list(range(1, 11))


def test_an_agent_trial_costs_about_thirteen_times_a_workflow_trial_and_a_success_about_fourteen(nb):
    assert 12.5 <= nb["per_trial"] < 13.5, said("14_many_trials", 18, "about thirteen times a workflow trial")
    assert 13.5 <= nb["per_success"] < 14.5, said("14_many_trials", 18, "an agent success about fourteen times")
    assert said("zh-CN/14_many_trials", 18, "试验的十三倍，一次 agent 成功约为十四倍")
    for where in (
        said("14_many_trials", 21, "each success about a fourteenth of the agent's cost"),
        said("14_many_trials", 22, "costs about fourteen times the workflow's"),
        said("zh-CN/14_many_trials", 21, "约为 agent 的十四分之一"),
        said("zh-CN/14_many_trials", 22, "workflow 的十四倍"),
    ):
        assert 13.5 <= nb["per_success"] < 14.5, where


def test_the_workflow_is_far_cheaper_per_success_and_higher_at_one_attempt_and_five_so_the_agent_is_off_the_frontier(
    nb,
):
    table = nb["table"]
    assert table.loc["workflow", "USD/success"] * 12.5 < table.loc["agent", "USD/success"]
    assert all(table.loc["workflow", f] > table.loc["agent", f] for f in ("pass@1", "pass^5"))
    labels = {t.get_text() for t in nb["frontier"].axes[0].texts}
    assert labels == {"agent", "workflow"}
