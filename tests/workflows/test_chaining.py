import pytest

import agentlab
from agentlab import StopReason
from agentlab.experiments.patterns import CITIES_SCHEMA, data_line
from agentlab.workflows import Link, run_chain


def _links(gate=None):
    return [
        Link("extract", prompt="{input}", system="Extract the city names.", schema=CITIES_SCHEMA, gate=gate),
        Link("fetch", code=lambda v: data_line(v["cities"])),
        Link("write", prompt="Compare. {input}", system="Write a short note."),
    ]


def test_chain_runs_every_link_in_order_and_attributes_each_call_to_its_step(sim, tmp_path):
    run = run_chain(sim, "Which is warmer, Paris or Rome?", _links(), trace=tmp_path / "c.jsonl")
    assert run.stop_reason is StopReason.COMPLETED and "Rome is warmer" in run.final_text
    assert [s.path for s in run.steps] == ["chain/extract", "chain/fetch", "chain/write"]
    assert run.model_calls == 2 and sum(s.input_tokens for s in run.steps) == run.input_tokens
    events = agentlab.read_trace(tmp_path / "c.jsonl")
    assert events[-1]["event"] == "stop" and {e.get("step") for e in events[1:-1]} == {s.path for s in run.steps}


def test_failed_gate_stops_the_chain_before_the_next_step(sim):
    gate = lambda v: None if len(v["cities"]) >= 2 else f"need two cities, got {v['cities']}"  # noqa: E731
    run = run_chain(sim, "How warm is Paris?", _links(gate))
    assert run.stop_reason is StopReason.GATE_FAILED and "need two cities, got ['Paris']" in run.detail
    assert [s.path for s in run.steps] == ["chain/extract", "chain/extract/gate"] and run.model_calls == 1


def test_unparseable_step_output_ends_the_chain_with_the_raw_text(fake):
    run = run_chain(fake(lambda p, i: "Sure! The cities are Paris and Rome."), "Paris or Rome?", _links())
    assert run.stop_reason is StopReason.UNPARSEABLE_OUTPUT
    assert run.steps[0].status == "unparseable" and run.steps[0].raw == "Sure! The cities are Paris and Rome."
    assert "not JSON" in run.detail and run.final_text == "Sure! The cities are Paris and Rome."


def test_link_needs_exactly_one_of_prompt_or_code():
    with pytest.raises(ValueError, match="exactly one of prompt"):
        Link("both", prompt="x", code=str)


def test_chain_length_is_bounded(sim):
    with pytest.raises(ValueError, match=r"len\(links\)=21: must be a whole number from 1 to 20"):
        run_chain(sim, "x", [Link(f"s{i}", code=str) for i in range(21)])
