"""Notebook 05's stop-reason section, checked by running the same code its cells run."""

from __future__ import annotations

import pytest

import agentlab
from agentlab.experiments.stop_reasons import TASK, stop_reason_runs
from agentlab.sim.models.stops import Pauser
from agentlab.trace import read_trace


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    return {r["case"]: r for r in stop_reason_runs(tmp_path_factory.mktemp("stops"))}


def test_max_tokens_34_cuts_the_save_note_call_after_one_reply_asked_for_both_cities(rows):
    from agentlab.experiments.stop_reasons import CUT_AT

    r = rows["max_tokens cuts a tool_use"]
    assert CUT_AT == 34 and r["replies"] == ["tool_use", "max_tokens"]
    assert (r["stop"], r["model calls"], r["tools run"], r["note saved"], r["final text"]) == \
        ("max_tokens", 2, ["get_weather", "get_weather"], False, "")


def test_a_stop_sequence_cuts_the_afterthought_and_keeps_the_answer(rows):
    r, plain = rows["stop_sequence"], rows["end_turn (ordinary)"]
    assert r["stop"] == "stop_sequence" and r["final text"] == plain["final text"] and "P.S." not in r["final text"]


def test_a_refusal_ends_typed_with_no_earlier_text(rows, tmp_path):
    r = rows["refusal"]
    assert (r["stop"], r["model calls"], r["note saved"], r["final text"]) == ("refusal", 2, False, "")
    from agentlab.sim.models.stops import Refuser
    run = agentlab.run_agent(agentlab.connect("sim", policy=Refuser(after=1), quiet=True), TASK,
                             agentlab.task_tools(tmp_path), trace=tmp_path / "r.jsonl")
    assert [e["stop_reason"] for e in read_trace(tmp_path / "r.jsonl") if e.get("event") == "response"] == ["tool_use", "refusal"]
    assert run.final_text == ""


def test_two_pauses_are_sent_back_and_the_run_finishes_in_5_calls(rows):
    r = rows["pause_turn (server tool)"]
    assert r["replies"][:2] == ["pause_turn", "pause_turn"] and r["replies"][2:] == rows["end_turn (ordinary)"]["replies"]
    assert (r["stop"], r["model calls"], r["note saved"]) == ("end_turn", 5, True)
    assert [c for c, x in rows.items() if not x["note saved"]] == ["max tokens cuts a tool_use".replace("max tokens", "max_tokens"), "refusal"]


def test_paused_calls_count_as_turns_under_max_turns(tmp_path):
    run = agentlab.run_agent(agentlab.connect("sim", policy=Pauser(pauses=2), quiet=True), TASK,
                             agentlab.task_tools(tmp_path), max_turns=2)
    assert (run.stop_reason.value, run.model_calls) == ("max_turns", 2)


def test_max_tokens_40_lets_the_run_finish_with_the_note(tmp_path):
    run = agentlab.run_agent(agentlab.connect("sim", quiet=True), TASK, agentlab.task_tools(tmp_path), max_tokens=40)
    assert run.stop_reason.value == "end_turn" and run.model_calls == 3 and any(tmp_path.iterdir())
