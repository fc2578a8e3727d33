"""Agents multiplying: tokens and cost as the work fans out, measured on the simulator, beside Anthropic's figures;
and chat, agent, multi-agent on the same question (every call metered, the order of their token bills)."""

from __future__ import annotations

import re

import matplotlib
import pytest

import agentlab
from agentlab.experiments.multiplying import (
    KINDS,
    OrchestratorPolicy,
    anthropic_ratios,
    chat_answer,
    fan_out,
    multiplying_table,
    plot_multiplying,
    ratios,
    run_multiagent,
    token_ratios,
    total_tokens,
)
from agentlab.views.i18n import untranslated

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return multiplying_table((1, 2, 4, 8), tmp_path_factory.mktemp("mult"))


def test_every_way_finishes_and_chat_is_one_call(table):
    assert set(table["kind"]) == set(KINDS) and len(table) == 16
    assert (table[table["kind"] == "chat"]["model calls"] == 1).all()
    assert set(table["stop"]) <= {"end_turn", "completed"}


def test_orchestrator_makes_one_worker_call_per_city_plus_plan_and_synthesis(table):
    orch = table[table["kind"] == "orchestrator-workers"]
    assert list(orch["model calls"]) == [n + 2 for n in orch["cities"]]


def test_multi_agent_costs_more_than_the_agent_and_both_grow_with_the_fan_out(table):
    for n, rows in table.groupby("cities"):
        by = rows.set_index("kind")["tokens"]
        assert by["chat"] < by["orchestrator-workers"] < by["agent"] < by["multi-agent"], n
    for kind in KINDS:
        tokens = list(table[table["kind"] == kind].sort_values("cities")["tokens"])
        assert tokens == sorted(tokens) and tokens[0] < tokens[-1], kind


def test_ratios_are_tokens_over_chat_and_anthropics_are_the_cited_ones(table):
    at8 = table[table["cities"] == 8].set_index("kind")
    assert ratios(table)["agent"] == round(at8.loc["agent", "tokens"] / at8.loc["chat", "tokens"], 1)
    assert anthropic_ratios() == {"agent": 4.0, "multi-agent": 15.0}
    with pytest.raises(ValueError, match="no rows for 3 cities"):
        ratios(table, 3)


def test_fan_out_refuses_a_bad_n(tmp_path):
    with pytest.raises(ValueError, match="fan_out\\(n=0\\)"):
        fan_out(0, tmp_path)


def test_the_figure_labels_ours_and_theirs_and_is_translated(table, monkeypatch):
    texts = [t.get_text() for t in plot_multiplying(table).findobj(matplotlib.text.Text)]
    assert any("simulated estimates" in t for t in texts) and any("one vendor, one system" in t for t in texts)
    assert any(t == f"{ratios(table)['agent']:g}x" for t in texts) and "15x" in texts
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    left = [
        t for t in untranslated(plot_multiplying(table)) if re.search(r"[A-Za-z]{3,}", re.sub("Anthropic|agent", "", t))
    ]
    assert left == []


def test_the_legend_covers_no_value_label_and_no_line(table):
    fig = plot_multiplying(table)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    labels = [t for t in ax.texts if t.get_text()]
    assert len(labels) == len(table)  # one value label per point
    covered = [t.get_text() for t in labels if t.get_window_extent(renderer).overlaps(legend)]
    assert covered == [], f"the legend covers the value labels {covered}"
    assert not ax.get_window_extent(renderer).overlaps(legend), "the legend sits on the plotting area"


def test_chat_is_one_call_without_tools_and_names_the_warmest(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    run = chat_answer(client, ["Oslo", "Cairo"])
    assert run.model_calls == 1 and run.final_text.startswith("Cairo")


def test_orchestrator_delegates_one_sub_agent_per_city_and_saves_one_note(tmp_path):
    client = agentlab.connect("sim", policy=OrchestratorPolicy(), quiet=True)
    run, subs = run_multiagent(client, ["Paris", "London", "Oslo"], tmp_path)
    assert [r["name"] for r in run.tool_results] == ["research_city"] * 3 + ["save_note"]
    assert len(subs) == 3 and all(s.model_calls == 2 for s in subs)  # get_weather, then a one-sentence answer
    # the orchestrator's own 3 calls (every research_city in one reply, the note, the answer) and theirs
    assert run.model_calls == 3 + sum(s.model_calls for s in subs)
    assert (tmp_path / "notes.md").read_text().count("\n") == 1
    assert total_tokens(run) > sum(total_tokens(s) for s in subs)


def test_token_bills_order_chat_then_agent_then_multi_agent(tmp_path):
    for n in (2, 5):
        r = token_ratios(agentlab.city_names()[:n], tmp_path)
        assert r["chat tokens"] < r["agent tokens"] < r["multi-agent tokens"]
        assert r["sub-agents"] == n and r["multi-agent calls"] == r["agent calls"] + 2 * n
        assert r["agent / chat"] > 4 and r["multi-agent / chat"] / r["agent / chat"] < 15 / 4
