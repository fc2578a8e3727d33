import json

import anthropic
import pytest

import agentlab

MODEL = "claude-sonnet-5-5"
SCHEMA = {
    "type": "object",
    "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
    "required": ["cities"],
    "additionalProperties": False,
}


def test_json_output_request_gets_json_valid_for_its_schema(sim):
    reply = sim.messages.create(
        model=MODEL,
        max_tokens=100,
        system="Extract the city names.",
        messages=[{"role": "user", "content": "Is Paris warmer than Rome?"}],
        output_config={"format": {"type": "json_schema", "schema": SCHEMA}},
    )
    assert json.loads(reply.content[0].text) == {"cities": ["Paris", "Rome"]}


@pytest.mark.parametrize(
    "config, message",
    [
        ({"format": {"type": "json", "schema": SCHEMA}}, "output_config.format.type: Input should be 'json_schema'"),
        ({"format": {"type": "json_schema"}}, "output_config.format.schema: Field required"),
        ("json", "output_config: Input should be a valid dictionary"),
    ],
)
def test_malformed_output_config_gets_the_apis_400(sim, config, message):
    with pytest.raises(anthropic.BadRequestError, match=message):
        sim.messages.create(
            model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}], output_config=config
        )


def test_roles_come_from_what_the_request_asks_not_from_a_flag():
    from agentlab.sim.models.roles import classify, critique, extract, plan, role_for, summarise, write

    def req(**kw):
        return {"messages": [{"role": "user", "content": "x"}], **kw}

    def fmt(props):
        return {"format": {"type": "json_schema", "schema": {"type": "object", "properties": props}}}

    assert role_for(req(output_config=fmt({"label": {"type": "string", "enum": ["a"]}}))) is classify
    assert role_for(req(output_config=fmt({"subtasks": {"type": "array"}}))) is plan
    assert role_for(req(output_config=fmt({"score": {"type": "integer"}}))) is critique
    assert role_for(req(output_config=fmt({"name": {"type": "string"}}))) is extract
    assert role_for(req(system="Summarise the ticket.")) is summarise
    assert role_for(req(system="Write a short reply.")) is write
    assert role_for(req()) is None and role_for(req(system="Be nice.")) is None


def test_plain_city_task_still_goes_to_the_careful_agent(sim, tools):
    run = agentlab.run_agent(sim, agentlab.city_task(["Paris", "London"]), tools)
    assert (
        run.model_calls == 3 and "Paris is warmer" in run.final_text
    )  # both lookups in one turn, the note, the answer
