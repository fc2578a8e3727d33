"""Compounding errors: seeded tool failures through the real loop, measured against p**n."""

import random

import pytest

import agentlab
from agentlab.experiments.compounding import (
    FAILURE,
    RETRIES,
    compounding_runs,
    flaky_weather,
    predicted,
    run_task,
    step_task,
    summary,
)
from agentlab.hints import hint
from agentlab.sim.models.reading import read_error
from agentlab.tools import run_tool, toolset
from agentlab.weather import city_names


def _first_calls_succeed(seed, n, p):
    """What the stop arm should measure, straight from the draws: every city's first call succeeds."""
    return all(random.Random(f"{seed}:{c}:1").random() < p for c in city_names()[:n])


def test_the_flaky_tool_is_seeded_per_city_and_attempt_and_its_error_says_try_again():
    outcomes = []
    for _ in range(2):
        tools = toolset([flaky_weather(0.5, seed=3)])
        outcomes.append([run_tool(tools, "get_weather", {"city": "Paris"}).is_error for _ in range(6)])
    assert outcomes[0] == outcomes[1] and len(set(outcomes[0])) == 2  # repeatable, and both kinds happen
    failed = run_tool(toolset([flaky_weather(0.0)]), "get_weather", {"city": "Paris"})
    assert failed.is_error and failed.content == FAILURE
    assert read_error(hint(FAILURE, "en")) == read_error(hint(FAILURE, "zh")) == "retry"
    assert run_tool(toolset([flaky_weather(1.0)]), "get_weather", {"city": "Paris"}).content.count("temp_c") == 1


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_a_probability_outside_0_to_1_is_refused_with_the_fix(bad):
    with pytest.raises(ValueError, match="from 0 to 1"):
        flaky_weather(bad)
    with pytest.raises(ValueError, match="from 0 to 1"):
        predicted(bad, 3)


def test_predicted_is_p_to_the_n_and_a_retry_raises_the_per_step_rate():
    assert predicted(0.95, 20) == pytest.approx(0.3585, abs=1e-4)
    assert predicted(0.9, 3, retries=1) == pytest.approx(0.99**3)
    assert predicted(0.5, 0) == 1.0


def test_the_stop_arm_succeeds_exactly_when_every_first_call_succeeds():
    client = agentlab.connect("sim", quiet=True)
    for seed in range(12):
        row = run_task(client, 4, "stop", 0.8, seed)
        assert row["success"] == _first_calls_succeed(seed, 4, 0.8), row
        assert row["success"] or row["stop"] == "no_progress"


def test_the_recover_arm_retries_a_failed_step_three_times_then_gives_up_without_inventing_a_number():
    client = agentlab.connect("sim", quiet=True)
    assert RETRIES == {"stop": 0, "recover": 3}
    always = run_task(client, 2, "recover", 0.0)
    assert not always["success"] and always["stop"] == "end_turn"
    assert always["failed_calls"] == 4 and always["model_calls"] == 5  # the call, its 3 retries, the answer
    rows = [run_task(client, 3, "recover", 0.7, seed) for seed in range(10)]
    assert any(r["success"] and r["failed_calls"] for r in rows), "some run recovered from a failure"


def test_a_successful_run_states_every_citys_true_temperature():
    run = run_task(agentlab.connect("sim", quiet=True), 3, "stop", 1.0)
    assert run["success"] and run["model_calls"] == 4 and run["failed_calls"] == 0


def test_summary_rows_carry_runs_rate_and_prediction_per_steps_and_arm():
    rows = compounding_runs(steps=(1, 3), trials=4, p_step=0.8)
    table = summary(rows, 0.8)
    assert [(r["steps"], r["arm"], r["runs"]) for r in table] == [
        (1, "stop", 4),
        (1, "recover", 4),
        (3, "stop", 4),
        (3, "recover", 4),
    ]
    assert table[2]["predicted"] == pytest.approx(0.8**3)
    assert table[3]["predicted"] == pytest.approx((1 - 0.2**4) ** 3)


def test_bad_arms_lengths_and_trials_are_refused_naming_the_value():
    client = agentlab.connect("sim", quiet=True)
    with pytest.raises(ValueError, match="arm='retry'"):
        run_task(client, 2, "retry")
    with pytest.raises(ValueError, match="n=0"):
        run_task(client, 0, "stop")
    with pytest.raises(ValueError, match="trials=0"):
        compounding_runs(trials=0)


def test_the_task_is_asked_in_english_or_chinese_and_none_follows_the_notebook_language(monkeypatch):
    three = city_names()[:3]
    assert step_task(three, "en") == ("Which is warmer today, Paris, London or Berlin? Compare their temperatures.")
    assert step_task(["Paris"], "en") == "What is the temperature in Paris today?"
    assert step_task(three, "zh") == "比较巴黎、伦敦和柏林今天的气温，哪个最暖和？"
    assert step_task(three[:2], "zh") == "比较巴黎和伦敦今天的气温，哪个更暖和？"
    assert step_task(["Paris"], "zh") == "巴黎今天的气温是多少？"
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert step_task(three) == step_task(three, "zh")
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert step_task(three) == step_task(three, "en")
    with pytest.raises(ValueError, match="lang='fr'"):
        step_task(three, "fr")


def test_the_chinese_task_meets_the_same_failures_and_measures_the_same_rates():
    en = compounding_runs(steps=(1, 4), trials=8, p_step=0.7, lang="en")
    zh = compounding_runs(steps=(1, 4), trials=8, p_step=0.7, lang="zh")
    assert zh == en and any(not r["success"] for r in en) and any(r["success"] for r in en)
    a = toolset([flaky_weather(0.5, seed=3)])
    b = toolset([flaky_weather(0.5, seed=3)])
    assert [run_tool(a, "get_weather", {"city": "Paris"}).is_error for _ in range(6)] == [
        run_tool(b, "get_weather", {"city": "巴黎"}).is_error for _ in range(6)
    ]


def test_a_chinese_run_is_answered_in_chinese_with_the_chinese_retry_hint():
    client = agentlab.connect("sim", quiet=True)
    run = agentlab.run_agent(client, step_task(city_names()[:2], "zh"), [flaky_weather(0.0)])
    assert run.tool_results[0]["content"] == hint(FAILURE, "zh") == "get_weather 暂时不可用；请再试一次。"
    assert run.final_text.startswith("我查不到巴黎、伦敦的天气")  # both asked in one reply, both failed
    ok = agentlab.run_agent(client, step_task(city_names()[:2], "zh"), [flaky_weather(1.0)])
    assert "暖和" in ok.final_text and "°C" in ok.final_text
