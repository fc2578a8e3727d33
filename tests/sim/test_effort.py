"""output_config.effort in the simulator: the 400s the docs imply, the default, and what the careful model does."""

from __future__ import annotations

import pytest
from sim_http import body, error, post

import agentlab
from agentlab.sim.effort import LEVELS, default_effort, effort_steps


def with_effort(level: object, model: str = "claude-sonnet-5-5") -> dict:
    return body(model, output_config={"effort": level})


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_is_accepted_on_the_default_model_with_no_beta_header(level):
    assert post(with_effort(level)).status_code == 200


def test_a_value_outside_the_list_is_a_400_naming_the_field_and_the_value():
    status, kind, message = error(post(with_effort("extreme")))
    assert (status, kind) == (400, "invalid_request_error")
    assert message.startswith("output_config.effort:") and "'extreme'" in message and "'max'" in message


def test_a_model_without_the_parameter_is_a_400_naming_the_model():
    status, _, message = error(post(with_effort("low", "claude-haiku-4-5")))
    assert status == 400 and "'claude-haiku-4-5'" in message


@pytest.mark.parametrize(
    "model, level", [("claude-opus-4-5", "max"), ("claude-opus-4-5", "xhigh"), ("claude-sonnet-4-6", "xhigh")]
)
def test_a_level_the_model_does_not_take_is_a_400_listing_the_ones_it_does(model, level):
    status, _, message = error(post(with_effort(level, model)))
    assert status == 400 and f"'{level}'" in message and "low, medium, high" in message


def test_opus_5_5_and_haiku_5_5_default_to_medium_the_others_to_high():
    assert [
        default_effort(m) for m in ("claude-opus-5-5", "claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-4-7")
    ] == ["medium", "medium", "high", "high"]
    assert effort_steps(with_effort("high")) == 0 == effort_steps(body()) and effort_steps(with_effort("low")) == -2


def _run(tmp_path, level, model="claude-sonnet-5-5"):
    client = agentlab.connect("sim", model=model, quiet=True)
    return agentlab.run_agent(
        client,
        agentlab.city_task(["Paris", "London", "Berlin"], lang="en"),
        agentlab.task_tools(tmp_path / str(level)),
        effort=level,
    )


def test_the_default_level_set_explicitly_is_the_same_run_as_leaving_it_out(tmp_path):
    """The docs: setting high is the same as omitting it (on a model whose default is high)."""
    unset, high = _run(tmp_path, None), _run(tmp_path, "high")
    assert (unset.model_calls, unset.output_tokens, unset.final_text) == (
        high.model_calls,
        high.output_tokens,
        high.final_text,
    )


def test_lower_effort_writes_fewer_output_tokens_in_the_same_calls_higher_costs_a_call_more(tmp_path):
    """[scripted model]: the amounts are how the careful model is written. Every lookup is in one turn at
    every level, so low effort has no turn to save: it writes less (the warmest city only)."""
    runs = {level: _run(tmp_path, level) for level in LEVELS}
    outputs = [runs[level].output_tokens for level in LEVELS]
    assert outputs == sorted(outputs) and outputs[0] < outputs[-1]
    assert runs["low"].model_calls == runs["high"].model_calls < runs["max"].model_calls
    assert runs["low"].cost_usd < runs["high"].cost_usd < runs["max"].cost_usd
    assert runs["low"].final_text == "Paris is the warmest at 18.5°C."
    assert all(r.stop_reason.value == "end_turn" and "Berlin" in str(r.tool_results) for r in runs.values())


def test_run_agent_refuses_an_unknown_effort_before_any_call(tmp_path):
    with pytest.raises(ValueError, match=r"run_agent\(effort='extreme'\)"):
        _run(tmp_path, "extreme")
