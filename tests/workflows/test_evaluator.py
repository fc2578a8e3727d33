import pytest

from agentlab import StopReason
from agentlab.experiments.patterns import data_line
from agentlab.workflows import run_evaluator

TASK = "Which is warmest? Answer in at most 20 words. " + data_line(["Paris", "Madrid", "Oslo"])


def test_evaluator_revises_until_the_critic_accepts(sim):
    run = run_evaluator(sim, TASK, max_rounds=3)
    assert run.stop_reason is StopReason.ACCEPTED and "accepted in round 2" in run.detail
    assert [s.path for s in run.steps] == [
        "evaluator/write[1]",
        "evaluator/critique[1]",
        "evaluator/write[2]",
        "evaluator/critique[2]",
    ]
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


def test_a_chinese_task_is_drafted_and_critiqued_in_chinese_its_limit_counted_in_characters(sim):
    task = "巴黎、马德里和奥斯陆哪个最暖和？最多用 20 个字回答。" + data_line(["Paris", "Madrid", "Oslo"], "zh")
    run = run_evaluator(sim, task, max_rounds=3)
    assert run.stop_reason is StopReason.ACCEPTED and "accepted in round 2" in run.detail
    assert run.steps[1].output == {"score": 8, "reasons": ["太长了：47 个字，任务最多允许 20 个字"]}
    assert run.final_text == "马德里最暖和：24.5°C，巴黎 18.5°C，奥斯陆 9.5°C。"
    never = run_evaluator(sim, task.replace("20 个字", "5 个字"), max_rounds=2)
    assert never.stop_reason is StopReason.MAX_ROUNDS and "最多允许 5 个字" in never.detail
