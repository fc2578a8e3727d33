"""Every claim in the prose of notebooks 03, 04 and 04b, checked by running the same code the cells run.

Token counts shift when the estimator changes, so the claims (and these tests) are orderings and
counts of runs, not token figures. Wall-time claims in the prose are qualitative and untested here.
"""

import json

import pytest

import agentlab
from agentlab.experiments.patterns import CITIES_SCHEMA, data_line, pattern_runs, pattern_table
from agentlab.experiments.replacement import side_by_side, success_summary, variant_table
from agentlab.experiments.variants import variant_data
from agentlab.workflows import Link, run_chain, run_evaluator, run_orchestrator, run_router, run_vote

WORKER = dict(
    worker_system="Write one sentence on the city's weather.", synth_system="Combine the parts into one short note."
)


# --- notebook 03 -------------------------------------------------------------------------------


def test_03_agent_makes_more_calls_and_tool_definitions_are_its_largest_input_part(sim, tmp_path):
    t = side_by_side(sim, ["Paris", "London"], tmp_path)
    assert t.loc["model calls", "agent"] > t.loc["model calls", "workflow"]
    parts = t.loc[["input: tool definitions", "input: task prompt", "input: earlier turns"], "agent"]
    assert list(parts.sort_values(ascending=False).index[:2]) == ["input: tool definitions", "input: earlier turns"]
    assert t.loc["input tokens", "workflow"] == t.loc["input: task prompt", "workflow"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_03_agent_solves_all_5_variants_and_the_workflow_2_of_5_the_plain_ones(sim, tmp_path, lang):
    results = variant_table(sim, tmp_path, lang)
    summary = success_summary(results)
    assert (summary.loc["agent", "variants"], summary.loc["agent", "succeeded"]) == (5, 5)
    assert (summary.loc["workflow", "variants"], summary.loc["workflow", "succeeded"]) == (5, 2)
    solved = set(results[(results.side == "workflow") & results.success]["variant"])
    assert solved == {"plain", "three cities"}
    assert summary.loc["agent", "mean cost (USD)"] > 5 * summary.loc["workflow", "mean cost (USD)"]  # "many times"


def test_03_workflow_failures_are_the_ones_the_prose_describes(sim, tmp_path):
    r = variant_table(sim, tmp_path).set_index(["variant", "side"])
    assert (
        r.loc[("misspelt", "workflow"), "model calls"] == 0
        and r.loc[("misspelt", "workflow"), "why"] == "no note was saved"
    )
    assert "Lisbon" in r.loc[("itinerary", "workflow"), "why"] and "tomorrow" in r.loc[("rain", "workflow"), "why"]


# --- notebooks 04 and 04b -------------------------------------------------------------------------


def test_04_chain_two_of_three_steps_call_the_model_and_the_gate_stops_after_one(sim):
    two = lambda v: None if len(v["cities"]) >= 2 else "need two"  # noqa: E731
    links = [
        Link("extract", prompt="{input}", system="Extract the city names.", schema=CITIES_SCHEMA, gate=two),
        Link("fetch", code=lambda v: data_line(v["cities"])),
        Link("write", prompt="Compare the temperatures. {input}", system="Write a short note."),
    ]
    chain = run_chain(sim, "Which is warmer today, Paris or Rome?", links)
    assert [bool(s.turns) for s in chain.steps] == [True, False, True]
    gated = run_chain(sim, "How warm is Paris today?", links)
    assert gated.stop_reason.value == "gate_failed" and gated.model_calls == 1


def test_04_every_unambiguous_ticket_reaches_its_team_and_other_goes_to_the_fallback(sim):
    routes = {k: f"You are the {k} team. Write a short reply." for k in ("billing", "technical", "account", "shipping")}
    for t in variant_data()["tickets"]:
        if t.get("ambiguous"):
            continue
        run = run_router(sim, t["text"], routes, fallback="You are the general help desk. Write a short reply.")
        taken = run.steps[-1].path.split("/")[1]
        assert taken == ("fallback" if t["label"] == "other" else f"branch[{t['label']}]"), t
        assert (run.stop_reason.value == "fallback") == (t["label"] == "other")


def test_04_voters_split_between_two_teams_on_the_ambiguous_ticket(sim):
    t = [t for t in variant_data()["tickets"] if t.get("ambiguous")][0]
    vote = run_vote(
        sim,
        t["text"],
        ["billing", "technical", "account", "shipping", "other"],
        voters=[f"You are reviewer {i} of 5." for i in range(1, 6)],
    )
    votes = [s.output["vote"] for s in vote.steps]
    assert len(set(votes)) == 2
    # "The majority (billing) is not the team the ticket is filed under (technical)"
    assert max(set(votes), key=votes.count) == "billing" and t["label"] == "technical"


def test_04_orchestrator_one_plan_a_worker_per_city_one_synthesis_and_a_failed_worker_leaves_two(sim):
    orch = run_orchestrator(
        sim, "Which is warmer today, Paris, Madrid or Oslo?", context=lambda s: data_line([s["title"]]), **WORKER
    )
    kinds = [s.path.split("/")[1].split("[")[0] for s in orch.steps]
    assert (kinds.count("plan"), kinds.count("worker"), kinds.count("synthesise")) == (1, 3, 1)
    broken = run_orchestrator(
        sim, "Which is warmer today, Paris, Atlantis or Oslo?", context=lambda s: data_line([s["title"]]), **WORKER
    )
    assert "synthesised from the other 2" in broken.detail


def test_04_evaluator_first_draft_too_long_accepted_in_round_2_and_the_impossible_task_hits_the_limit(sim):
    task = "Which is warmest today? Answer in at most 20 words. " + data_line(["Paris", "Madrid", "Oslo"])
    ev = run_evaluator(sim, task, max_rounds=3)
    assert any("too long" in r for r in ev.steps[1].output["reasons"]) and "round 2" in ev.detail
    assert run_evaluator(sim, task.replace("20 words", "5 words"), max_rounds=2).stop_reason.value == "max_rounds"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    cities = ["Madrid", "Oslo", "Cairo"]
    client = agentlab.connect("sim", quiet=True)
    return pattern_table(pattern_runs(client, cities, tmp_path_factory.mktemp("shared")), cities)


def _level_in_cost(table):
    """ "for cost it is level with the orchestrator and the evaluator (within a fifth of one another)"."""
    cost = table.loc[["agent", "orchestrator", "evaluator"], "cost (USD)"]
    return (
        cost.max() / cost.min() < 1.2
        and cost.max() >= table["cost (USD)"].max()
        and table.loc["agent", "model calls"] == 2
    )


def test_04_shared_task_every_run_solves_it_and_the_agent_uses_the_most_input_level_in_cost(shared):
    assert shared["solved"].all()
    assert shared["input tokens"].idxmax() == "agent" and _level_in_cost(shared)


def test_04_shared_task_orchestrator_makes_the_most_model_calls(shared):
    assert shared["model calls"].idxmax() == "orchestrator" and shared["model calls"].value_counts()[5] == 1


def test_04_the_zh_cn_edition_asks_the_shared_task_in_chinese_and_its_table_keeps_the_claims(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")  # the zh-CN kernel's folder picks it; the cell's code is the same
    cities = ["Madrid", "Oslo", "Cairo"]
    runs = pattern_runs(agentlab.connect("sim", quiet=True), cities, tmp_path)
    table = pattern_table(runs, cities)
    assert runs["agent"].messages[0]["content"] == "比较马德里、奥斯陆和开罗今天的气温，哪个最暖和？"
    assert table["solved"].all()  # "每次运行都解决了任务"
    assert table["input tokens"].idxmax() == "agent" and _level_in_cost(table)
    assert table["model calls"].idxmax() == "orchestrator" and table["model calls"].value_counts()[5] == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_03_quotes_the_task_as_its_run_sends_it(lang):
    from pathlib import Path

    from agentlab.weather import city_task

    folder = Path(__file__).resolve().parents[2] / "notebooks" / ("zh-CN" if lang == "zh" else "")
    cells = json.loads((folder / "03_agent_or_workflow.ipynb").read_text("utf-8"))["cells"]
    prose = " ".join("".join(c["source"]).replace("\n", " ") for c in cells if c["cell_type"] == "markdown")
    assert city_task(["Paris", "London"], lang) in prose
