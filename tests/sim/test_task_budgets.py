"""Task budgets in the simulator: the 400s for a bad budget, the countdown the model reads, and no enforcement."""

from __future__ import annotations

import pytest
from sim_http import body, error, post

from agentlab.sim.budgets import BETA, MIN_TOTAL, budget_left, loop_tokens

BETA_HEADER = {"anthropic-beta": BETA}


def budgeted(budget: object, model: str = "claude-sonnet-5-5") -> dict:
    return body(model, output_config={"task_budget": budget})


def test_a_well_formed_budget_with_its_beta_header_is_accepted():
    r = post(budgeted({"type": "tokens", "total": MIN_TOTAL}), headers=BETA_HEADER)
    assert r.status_code == 200


def test_a_budget_without_the_beta_header_is_a_400_naming_the_header():
    status, kind, message = error(post(budgeted({"type": "tokens", "total": 64_000})))
    assert (status, kind) == (400, "invalid_request_error")
    assert message.startswith("output_config.task_budget:") and BETA in message


@pytest.mark.parametrize(
    "budget, field",
    [
        ("64000", "output_config.task_budget:"),
        ({"type": "usd", "total": 64_000}, "output_config.task_budget.type:"),
        ({"type": "tokens"}, "output_config.task_budget.total: Field required"),
        ({"type": "tokens", "total": "64000"}, "output_config.task_budget.total: Input should be a valid integer"),
        ({"type": "tokens", "total": MIN_TOTAL - 1}, f"output_config.task_budget.total: must be at least {MIN_TOTAL}"),
        ({"type": "tokens", "total": 30_000, "remaining": 40_000}, "output_config.task_budget.remaining:"),
        ({"type": "tokens", "total": 30_000, "remaining": -1}, "output_config.task_budget.remaining:"),
    ],
)
def test_a_malformed_budget_is_a_400_naming_the_field(budget, field):
    status, _, message = error(post(budgeted(budget), headers=BETA_HEADER))
    assert status == 400 and message.startswith(field)


def test_a_total_under_the_minimum_says_the_value_it_got():
    _, _, message = error(post(budgeted({"type": "tokens", "total": 5_000}), headers=BETA_HEADER))
    assert "got 5000" in message


def test_a_model_the_docs_do_not_list_is_a_400_naming_the_model():
    status, _, message = error(
        post(budgeted({"type": "tokens", "total": 64_000}, "claude-haiku-4-5"), headers=BETA_HEADER)
    )
    assert status == 400 and "'claude-haiku-4-5'" in message and "claude-sonnet-5-5" in message


def test_the_countdown_starts_at_remaining_and_falls_with_what_the_loop_adds():
    start = budgeted({"type": "tokens", "total": 30_000, "remaining": 5_000})
    assert budget_left(start) == 5_000  # only the task so far: nothing counted
    later = {
        **start,
        "messages": start["messages"]
        + [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Paris: 18 °C " * 50}],
            },
        ],
    }
    assert budget_left(later) == 5_000 - loop_tokens(later["messages"], "claude-sonnet-5-5") < 5_000
    assert budget_left(body()) is None


def test_the_api_keeps_answering_after_the_countdown_reaches_zero():
    """Advisory: a request whose countdown is below zero is answered like any other."""
    spent = budgeted({"type": "tokens", "total": MIN_TOTAL, "remaining": 0})
    spent["messages"] = spent["messages"] + [
        {"role": "assistant", "content": "Working on it."},
        {"role": "user", "content": "Go on."},
    ]
    assert budget_left(spent) < 0
    assert post(spent, headers=BETA_HEADER).status_code == 200
