"""run_agent(task_budget=...): every request carries the budget and its beta header; the loop never enforces it."""

from __future__ import annotations

import pytest

import agentlab
from agentlab.guards import TaskBudget, with_task_budget
from agentlab.sim.budgets import BETA, budget_left
from agentlab.sim.models.misbehaving import Looper

TASK = agentlab.city_task(["Paris", "London"], lang="en")


def test_every_request_of_a_run_carries_the_budget_the_model_counts_down(tmp_path):
    seen = []

    def model(messages, request):
        seen.append(budget_left(request))
        return agentlab.CarefulAgent()(request)

    client = agentlab.connect("sim", policy=agentlab.FunctionModel(model), quiet=True)
    run = agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path), task_budget=64_000)
    assert (
        run.stop_reason.value == "end_turn" and len(seen) == run.model_calls == 4
    )  # one lookup per turn under a budget
    assert seen[0] == 64_000 and seen == sorted(seen, reverse=True) and seen[-1] < 64_000


def test_the_beta_header_is_added_to_one_already_sent():
    request = {
        "model": "m",
        "extra_headers": {"anthropic-beta": "context-management-2025-06-27"},
        "output_config": {"effort": "low"},
    }
    out = with_task_budget(request, TaskBudget(30_000, remaining=10_000))
    assert out["extra_headers"]["anthropic-beta"] == f"context-management-2025-06-27,{BETA}"
    assert out["output_config"] == {
        "effort": "low",
        "task_budget": {"type": "tokens", "total": 30_000, "remaining": 10_000},
    }
    assert request["output_config"] == {"effort": "low"}  # not changed in place


def test_a_budget_with_server_clearing_sends_both_betas(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        TASK,
        agentlab.task_tools(tmp_path),
        task_budget=64_000,
        context=agentlab.ServerClearing(),
    )
    assert run.stop_reason.value == "end_turn"


@pytest.mark.parametrize("value", [19_999, "64000", 2.5e4, True])
def test_a_budget_the_api_would_refuse_is_refused_before_any_call(value, tmp_path):
    with pytest.raises(ValueError, match="task_budget|TaskBudget"):
        agentlab.run_agent(agentlab.connect("sim", quiet=True), TASK, agentlab.task_tools(tmp_path), task_budget=value)


def test_remaining_outside_zero_to_total_is_refused():
    with pytest.raises(ValueError, match=r"TaskBudget\(remaining=30001\)"):
        TaskBudget(30_000, remaining=30_001)


def test_a_model_that_ignores_the_countdown_runs_on_to_the_harness_limit(tmp_path):
    """Advisory: nothing stops the loop at the budget; the turn limit does."""
    client = agentlab.connect("sim", policy=Looper(), quiet=True)
    run = agentlab.run_agent(
        client, TASK, agentlab.task_tools(tmp_path), max_turns=8, task_budget=TaskBudget(20_000, remaining=0)
    )
    assert run.stop_reason.value == "max_turns" and run.model_calls == 8


def test_the_careful_model_wraps_up_when_the_countdown_is_low(tmp_path):
    """[scripted model] with little budget left it stops looking up and names the cities it skipped."""
    cities = agentlab.city_names()[:6]
    tools = agentlab.task_tools(tmp_path, forecast_days=7)
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        agentlab.city_task(cities, lang="en"),
        tools,
        max_turns=20,
        task_budget=TaskBudget(20_000, remaining=1_500),
    )
    looked_up = [r["input"]["city"] for r in run.tool_results if r["name"] == "get_weather"]
    assert run.stop_reason.value == "end_turn" and 0 < len(looked_up) < len(cities)
    assert "did not check" in run.final_text and all(c in run.final_text for c in cities if c not in looked_up)
