"""Strict tool use on the simulator: ``strict: true`` makes the input the model writes valid for the schema."""

import anthropic
import pytest

import agentlab
from agentlab.sim.models.misbehaving import CarelessModel
from agentlab.sim.strict import constrain

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "passengers": {"type": "integer"}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOL = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


def _first_input(strict: bool, case: str) -> dict:
    client = agentlab.connect("sim", policy=CarelessModel(case), quiet=True)
    tool = {**TOOL, "strict": True} if strict else TOOL
    reply = client.messages.create(
        model=agentlab.default_model(),
        max_tokens=200,
        tools=[tool],
        messages=[{"role": "user", "content": agentlab.city_task(["Paris", "London"])}],
    )
    return next(b.input for b in reply.content if b.type == "tool_use")


@pytest.mark.parametrize("case", ["missing_field", "wrong_type"])
def test_without_strict_the_malformed_input_reaches_the_client(case):
    assert _first_input(False, case) != {"city": "Paris"}


@pytest.mark.parametrize("case", ["missing_field", "wrong_type"])
def test_with_strict_the_input_is_valid_for_the_schema(case):
    assert _first_input(True, case) == {"city": "Paris"}


def test_a_strict_that_is_not_a_boolean_gets_a_400_naming_the_field():
    client = agentlab.connect("sim", quiet=True)
    with pytest.raises(anthropic.BadRequestError, match=r"tools\.0\.custom\.strict: Input should be a valid boolean"):
        client.messages.create(
            model=agentlab.default_model(),
            max_tokens=10,
            tools=[{**TOOL, "strict": "yes"}],
            messages=[{"role": "user", "content": "x"}],
        )


def test_constrain_converts_losslessly_and_fills_what_is_missing():
    assert constrain(SCHEMA, {"city": "Oslo", "passengers": "2"}) == {"city": "Oslo", "passengers": 2}
    assert constrain(SCHEMA, {"town": "Oslo", "extra": 3}) == {"city": "Oslo"}
    assert constrain(SCHEMA, {}) == {"city": ""}
    assert constrain(SCHEMA, {"city": "Oslo"}) == {"city": "Oslo"}


def test_a_tool_sends_strict_only_when_asked():
    import dataclasses
    import tempfile

    plain = agentlab.task_tools(tempfile.mkdtemp())[0]
    assert "strict" not in plain.spec()
    assert dataclasses.replace(plain, strict=True).spec()["strict"] is True
