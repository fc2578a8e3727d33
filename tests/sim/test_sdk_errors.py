"""The real SDK, pointed at the simulator, raises its typed errors with the API's own text."""

import anthropic
import pytest

import agentlab

MODEL = "claude-sonnet-5-5"
USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}],
}
ASK = {"role": "user", "content": "Weather in Paris?"}
TOOL = {"name": "get_weather", "description": "d", "input_schema": {"type": "object", "properties": {}}}


def _create(sim, **kw):
    kw.setdefault("model", MODEL)
    kw.setdefault("max_tokens", 100)
    return sim.messages.create(**kw)


def test_unanswered_tool_use_is_rejected_with_the_api_text(sim):
    with pytest.raises(anthropic.BadRequestError) as e:
        _create(sim, messages=[ASK, USE, {"role": "user", "content": "and?"}], tools=[TOOL])
    assert e.value.status_code == 400
    assert e.value.body["error"]["message"] == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    assert e.value.request_id.startswith("req_sim_")


def test_tool_result_without_matching_tool_use_is_rejected(sim):
    bad = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}]}
    with pytest.raises(
        anthropic.BadRequestError,
        match=r"messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
    ):
        _create(sim, messages=[ASK, {"role": "assistant", "content": "hm"}, bad], tools=[TOOL])


def test_text_before_tool_result_is_rejected(sim):
    bad = {
        "role": "user",
        "content": [
            {"type": "text", "text": "here:"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
        ],
    }
    with pytest.raises(anthropic.BadRequestError, match="without `tool_result` blocks immediately after: toolu_1"):
        _create(sim, messages=[ASK, USE, bad], tools=[TOOL])


@pytest.mark.parametrize(
    "kw, text",
    [
        ({"messages": []}, "messages: at least one message is required"),
        ({"max_tokens": -1, "messages": [ASK]}, "max_tokens: Input should be greater than or equal to 0"),
        ({"messages": [ASK], "tools": [TOOL, TOOL]}, "tools: Tool names must be unique."),
        (
            {"messages": [ASK], "tools": [{**TOOL, "name": "get weather"}]},
            "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
        (
            {"messages": [ASK], "tools": [{**TOOL, "input_schema": {"type": "string"}}]},
            "input_schema.type: Input should be 'object'",
        ),
        (
            {"messages": [ASK], "tools": [TOOL], "tool_choice": {"type": "tool", "name": "nope"}},
            "Tool 'nope' not found in provided tools",
        ),
    ],
)
def test_invalid_requests_get_400_with_api_wording(sim, kw, text):
    with pytest.raises(anthropic.BadRequestError) as e:
        _create(sim, **kw)
    assert text in e.value.body["error"]["message"]
    assert e.value.body["type"] == "error" and e.value.body["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("missing", ["model", "max_tokens", "messages"])
def test_missing_required_field_is_named(sim, missing):
    body = {"model": MODEL, "max_tokens": 10, "messages": [ASK]}
    del body[missing]
    with pytest.raises(anthropic.BadRequestError, match=f"{missing}: Field required"):
        sim.post("/v1/messages", body=body, cast_to=object)


def test_unknown_model_is_404_not_found(sim):
    with pytest.raises(anthropic.NotFoundError) as e:
        _create(sim, model="claude-imaginary-9", messages=[ASK])
    assert e.value.status_code == 404 and e.value.body["error"]["message"] == "model: claude-imaginary-9"


def test_message_has_the_api_shape(sim):
    raw = sim.messages.with_raw_response.create(model=MODEL, max_tokens=50, messages=[ASK])
    data = raw.http_response.json()
    assert set(data) == {
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "stop_details",
        "usage",
    }
    assert data["type"] == "message" and data["role"] == "assistant" and data["model"] == MODEL
    assert raw.http_response.headers["request-id"].startswith("req_sim_")
    assert set(data["usage"]) >= {"input_tokens", "output_tokens"}


def test_count_tokens_endpoint_matches_message_usage(sim):
    kw = {"model": MODEL, "messages": [ASK], "tools": [TOOL]}
    counted = sim.messages.count_tokens(**kw).input_tokens
    assert counted == _create(sim, **kw).usage.input_tokens


def test_stop_sequence_cuts_the_reply(sim):
    client = agentlab.connect("sim", policy=agentlab.FunctionModel(lambda m, i: "one two STOP three"), quiet=True)
    msg = client.messages.create(model=MODEL, max_tokens=50, messages=[ASK], stop_sequences=["STOP"])
    assert msg.stop_reason == "stop_sequence" and msg.stop_sequence == "STOP"
    assert msg.content[0].text == "one two "


def test_same_requests_give_byte_identical_responses():
    bodies = []
    for _ in range(2):
        client = agentlab.connect("sim", quiet=True)
        raw = client.messages.with_raw_response.create(model=MODEL, max_tokens=50, messages=[ASK], tools=[TOOL])
        bodies.append(raw.http_response.content)
    assert bodies[0] == bodies[1]


def test_scripted_model_past_its_end_is_a_clear_error():
    client = agentlab.connect("sim", policy=agentlab.ScriptedModel(["only reply"]), quiet=True)
    _create(client, messages=[ASK])
    with pytest.raises(anthropic.InternalServerError, match="the script has 1 replies and request 2 arrived"):
        _create(client, messages=[ASK])
