import pytest

from agentlab import StopReason
from agentlab.experiments.patterns import data_line
from agentlab.workflows import run_evaluator

TASK = "Which is warmest? Answer in at most 20 words. " + data_line(["Paris", "Madrid", "Oslo"])


def test_evaluator_revises_until_the_critic_accepts(sim):
    run = run_evaluator(sim, TASK, max_rounds=3)
    assert run.stop_reason is StopReason.ACCEPTED and "accepted in round 2" in run.detail
    assert [s.path for s in run.steps] == ["evaluator/write[1]", "evaluator/critique[1]", "evaluator/write[2]",
                                           "evaluator/critique[2]"]
    assert len(run.final_text.split()) <= 20


def test_evaluator_that_never_accepts_stops_at_the_round_limit_and_says_why(sim):
    run = run_evaluator(sim, TASK.replace("20 words", "5 words"), max_rounds=2)
    assert run.stop_reason is StopReason.MAX_ROUNDS and run.model_calls == 4
    assert "not accepted after max_rounds=2" in run.detail and "at most 5" in run.detail


def test_unreadable_critique_ends_the_run_with_its_raw_text(fake):
    run = run_evaluator(fake(lambda p, i: "Looks good to me!"), TASK)
    assert run.stop_reason is StopReason.UNPARSEABLE_OUTPUT and run.steps[1].raw == "Looks good to me!"


def test_evaluator_refuses_nonsense_bounds(sim):
    with pytest.raises(ValueError, match="max_rounds=0"):
        run_evaluator(sim, TASK, max_rounds=0)
    with pytest.raises(ValueError, match="min_score=11"):
        run_evaluator(sim, TASK, min_score=11)
