"""The harness's guards (agentlab.Limits) bound a workflow pattern as they bound the agent loop."""

import agentlab
from agentlab import Limits, StopReason
from agentlab.experiments.patterns import data_line
from agentlab.workflows import run_evaluator, run_orchestrator

TASK = "Which is warmest? Answer in at most 20 words. " + data_line(["Paris", "Madrid", "Oslo"])
KW = dict(
    worker_system="Write one sentence on the city's weather.", synth_system="Combine the parts into one short note."
)


def test_a_turn_limit_stops_an_evaluator_that_never_accepts_before_its_round_limit(sim, tmp_path):
    run = run_evaluator(
        sim, TASK.replace("20 words", "5 words"), max_rounds=5, limits=Limits(max_turns=3), trace=tmp_path / "e.jsonl"
    )
    assert run.stop_reason is StopReason.MAX_TURNS and run.model_calls == 3
    stop = agentlab.read_trace(tmp_path / "e.jsonl")[-1]
    assert (stop["event"], stop["guard"], stop["observed"], stop["limit"]) == ("stop", "max_turns", 3, 3)


def test_a_token_budget_stops_the_orchestrator_before_its_workers_call(sim, tmp_path):
    run = run_orchestrator(
        sim,
        "Which is warmer, Paris, Madrid or Oslo?",
        context=lambda s: data_line([s["title"]]),
        limits=Limits(max_tokens=1),
        trace=tmp_path / "o.jsonl",
        **KW,
    )
    assert run.stop_reason is StopReason.TOKEN_BUDGET and run.model_calls == 1  # the plan: passed by one call
    stop = agentlab.read_trace(tmp_path / "o.jsonl")[-1]
    assert stop["guard"] == "max_tokens" and stop["observed"] > stop["limit"] == 1


def test_without_limits_a_pattern_runs_as_before(sim):
    assert run_evaluator(sim, TASK, max_rounds=3).stop_reason is StopReason.ACCEPTED
