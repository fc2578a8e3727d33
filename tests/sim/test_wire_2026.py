"""The response fields of 2026 traffic, held to public recordings: ``stop_details`` on every message (a refusal's
in the SDK's shape) and ``usage.inference_geo``.

The recorded shapes below are copied from anomalyco/opencode (MIT),
packages/llm/test/fixtures/recordings/anthropic-messages/: ``claude-opus-4-7-drives-a-tool-loop.json`` (commit
039c0506, recorded 2026-05-03) and ``streams-text.json`` (commit ca8d700a), the first event of each stream.
"""

from __future__ import annotations

import json

import anthropic
import pytest

import agentlab
from agentlab.sim.models.stops import Refuser

RECORDED_MESSAGE_KEYS = {
    "model",
    "id",
    "type",
    "role",
    "content",
    "stop_reason",
    "stop_sequence",
    "stop_details",
    "usage",
}
"""The keys of the recorded ``message_start`` message, both recordings."""
RECORDED_USAGE_KEYS = {
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "cache_creation",
    "output_tokens",
    "service_tier",
    "inference_geo",
}
"""The keys of that message's ``usage``, both recordings."""
RECORDED_GEO = {"claude-opus-4-7": "global", "claude-haiku-4-5": "not_available"}
"""``usage.inference_geo`` as recorded, by model (haiku as ``claude-haiku-4-5-20251001``)."""
ASK = [{"role": "user", "content": "What is the weather in Paris?"}]


def _stream_start(client, model: str, **kw) -> dict:
    raw = client.messages.with_raw_response.create(model=model, max_tokens=80, messages=ASK, stream=True, **kw)
    first = next(line for line in raw.http_response.text.splitlines() if line.startswith("data: "))
    return json.loads(first[len("data: ") :])["message"]


def test_a_streams_first_message_has_the_recorded_keys_and_inference_geo():
    sim = agentlab.connect("sim", quiet=True)
    for model, geo in RECORDED_GEO.items():
        head = _stream_start(sim, model)
        assert set(head) == RECORDED_MESSAGE_KEYS and set(head["usage"]) == RECORDED_USAGE_KEYS, head
        assert head["stop_details"] is None and head["usage"]["inference_geo"] == geo, (model, head["usage"])


def test_every_message_has_stop_details_null_and_the_geo_the_request_asked_for():
    sim = agentlab.connect("sim", quiet=True)
    reply = sim.messages.create(model="claude-sonnet-5-5", max_tokens=80, messages=ASK)
    assert reply.stop_details is None and reply.usage.inference_geo == "global"  # the docs' default
    pinned = sim.messages.create(model="claude-sonnet-5-5", max_tokens=80, messages=ASK, inference_geo="us")
    assert pinned.usage.inference_geo == "us"


def test_a_refusal_carries_the_sdks_refusal_details_streamed_or_not():
    sim = agentlab.connect("sim", policy=Refuser(after=0), quiet=True)
    reply = sim.messages.create(model="claude-sonnet-5-5", max_tokens=80, messages=ASK)
    assert reply.stop_reason == "refusal" and reply.content == []
    assert isinstance(reply.stop_details, anthropic.types.RefusalStopDetails)
    assert (reply.stop_details.type, reply.stop_details.category, reply.stop_details.explanation) == (
        "refusal",
        None,
        None,
    )
    with sim.messages.stream(model="claude-sonnet-5-5", max_tokens=80, messages=ASK) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "refusal" and final.stop_details == reply.stop_details


_TOOL = {
    "name": "get_weather",
    "description": "Get weather",
    "input_schema": {"type": "object", "properties": {}},
}
_USE = {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
_SAID = {"type": "text", "text": "I will check the weather."}
_RESULT = {
    "role": "user",
    "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": '{"temperature":"72F"}'}],
}
_ASK = {"role": "user", "content": [{"type": "text", "text": "Use that result to answer briefly."}]}
RECORDED_REQUESTS = [
    (
        "rejects-malformed-assistant-tool-order-without-patch.json",
        [{"role": "assistant", "content": [_USE, _SAID]}, _RESULT, _ASK],
        400,
        "invalid_request_error",
    ),
    (
        "accepts-malformed-assistant-tool-order-with-default-patch.json",
        [
            {"role": "assistant", "content": [_SAID]},
            {"role": "assistant", "content": [_USE]},
            _RESULT,
            {"role": "user", "content": [{**_ASK["content"][0], "cache_control": {"type": "ephemeral"}}]},
        ],
        200,
        None,
    ),
]
"""Two requests anomalyco/opencode recorded against the API on 2026-05-05 (commit 678c4058, MIT;
packages/llm/test/fixtures/recordings/anthropic-messages/), claude-haiku-4-5-20251001, ``max_tokens`` 4096,
streamed: the same tool use and result, its text after the ``tool_use`` (refused) or before it (answered)."""


def test_the_recorded_tool_order_requests_get_the_recorded_status_and_error_type():
    sim = agentlab.connect("sim", quiet=True)
    for name, messages, status, kind in RECORDED_REQUESTS:
        raw = sim.messages.with_raw_response.create
        try:
            response = raw(
                model="claude-haiku-4-5-20251001", max_tokens=4096, messages=messages, tools=[_TOOL], stream=True
            ).http_response
            got = (response.status_code, None)
        except anthropic.APIStatusError as e:
            got = (e.status_code, e.body["error"]["type"])
        assert got == (status, kind), name


RECORDED_TOOL_USE_START = {
    "type": "tool_use",
    "id": "toolu_01UmKD1vMphVCN9vw8PEMk1q",
    "name": "fixed_version",
    "input": {},
    "caller": {"type": "direct"},
}
"""A ``content_block_start``'s block as simonw/llm-anthropic recorded it (Apache-2.0, commit 3ae428f3,
tests/cassettes/test_anthropic/test_fixed_version_tool_chain_regression.yaml): ``caller`` last, after ``input``."""


def test_every_tool_use_ends_with_a_direct_caller_as_recorded_streamed_or_not():
    sim = agentlab.connect("sim", quiet=True)
    request = {"model": "claude-opus-4-7", "max_tokens": 200, "tools": [_TOOL], "messages": ASK}
    reply = sim.messages.with_raw_response.create(**request).http_response.json()
    uses = [b for b in reply["content"] if b["type"] == "tool_use"]
    assert uses and all(list(b) == list(RECORDED_TOOL_USE_START) and b["caller"] == {"type": "direct"} for b in uses)
    events = sim.messages.with_raw_response.create(**request, stream=True).http_response.text.splitlines()
    starts = [json.loads(line[len("data: ") :]) for line in events if line.startswith("data: ")]
    blocks = [e["content_block"] for e in starts if e["type"] == "content_block_start"]
    tool_starts = [b for b in blocks if b["type"] == "tool_use"]
    assert tool_starts and all(list(b) == list(RECORDED_TOOL_USE_START) for b in tool_starts)
    assert all(b["caller"] == RECORDED_TOOL_USE_START["caller"] and b["input"] == {} for b in tool_starts)


def test_output_tokens_details_come_with_thinking_after_output_tokens_and_only_on_message_delta():
    sim = agentlab.connect("sim", quiet=True)
    request = {"max_tokens": 2000, "tools": [_TOOL], "messages": ASK}
    thinks = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    for model, extra, present in [
        ("claude-sonnet-5-5", {}, True),  # thinks by default (its profile)
        ("claude-opus-4-8", {}, True),  # recorded so without a thinking field
        ("claude-haiku-4-5", {}, False),  # recorded without it when not asked
        ("claude-haiku-4-5", thinks, True),
    ]:
        usage = sim.messages.with_raw_response.create(model=model, **request, **extra).http_response.json()["usage"]
        assert ("output_tokens_details" in usage) is present, (model, extra, usage)
        if present:
            assert list(usage)[:3] == ["input_tokens", "output_tokens", "output_tokens_details"]
            assert 0 <= usage["output_tokens_details"]["thinking_tokens"] <= usage["output_tokens"]
    stream = sim.messages.with_raw_response.create(model="claude-sonnet-5-5", **request, stream=True)
    events = [json.loads(x[len("data: ") :]) for x in stream.http_response.text.splitlines() if x.startswith("data: ")]
    start, delta = events[0], next(e for e in events if e["type"] == "message_delta")
    assert "output_tokens_details" not in start["message"]["usage"] and "output_tokens_details" in delta["usage"]


def test_thinking_is_billed_as_generated_whether_its_display_shows_it_or_omits_it():
    """The docs: thinking tokens are "billed as output tokens, even when the thinking text isn't returned to you"
    (https://platform.claude.com/docs/en/build-with-claude/thinking)."""
    sim = agentlab.connect("sim", quiet=True)
    summarized = {"type": "adaptive", "display": "summarized"}
    request = {"model": "claude-sonnet-5-5", "max_tokens": 500, "tools": [_TOOL], "messages": ASK}
    shown = sim.messages.create(**request, thinking=summarized)
    hidden = sim.messages.create(**request)
    said = [b.thinking for b in shown.content if b.type == "thinking"]
    assert said and said[0] and shown.usage.output_tokens_details.thinking_tokens > 0
    assert [b.thinking for b in hidden.content if b.type == "thinking"] == [""]  # omitted: empty on the wire
    assert "_generated" not in hidden.model_dump_json()
    assert hidden.usage.output_tokens_details == shown.usage.output_tokens_details
    assert hidden.usage.output_tokens == shown.usage.output_tokens


def test_thinking_counts_toward_max_tokens_before_the_tool_call_it_precedes_shown_or_not():
    sim = agentlab.connect("sim", quiet=True)
    for display in ("omitted", "summarized"):
        request = {
            "model": "claude-sonnet-5-5",
            "tools": [_TOOL],
            "messages": ASK,
            "thinking": {"type": "adaptive", "display": display},
        }
        whole = sim.messages.create(**request, max_tokens=500)
        thought = whole.usage.output_tokens_details.thinking_tokens
        assert whole.stop_reason == "tool_use" and 0 < thought < whole.usage.output_tokens
        cut = sim.messages.create(**request, max_tokens=whole.usage.output_tokens - 1)
        assert cut.stop_reason == "max_tokens" and [b.type for b in cut.content] == ["thinking"], display
        assert (
            cut.usage.output_tokens_details.thinking_tokens
            == thought
            <= cut.usage.output_tokens
            < whole.usage.output_tokens
        )
        for budget in (1, 5, thought - 1):  # a budget the thinking does not fit: cut like text, never dropped
            short = sim.messages.create(**request, max_tokens=budget)
            assert [b.type for b in short.content] == ["thinking"], (display, budget)
            assert 0 < short.usage.output_tokens_details.thinking_tokens <= budget, (display, budget)
            assert short.usage.output_tokens <= budget, (display, budget)


def test_the_thinking_a_reply_left_out_counts_as_input_when_sent_back_and_only_as_the_simulator_signed_it():
    """The API restores omitted thinking from its encrypted signature; the simulator's signature carries its size
    (api.tokens.left_out), bound into the digest, so a changed or forged size is a 400, never a count."""
    sim = agentlab.connect("sim", quiet=True)
    first = sim.messages.create(model="claude-sonnet-5-5", max_tokens=500, tools=[_TOOL], messages=ASK)
    thinking = first.content[0].model_dump(exclude_none=True)
    from agentlab.api.tokens import content_tokens

    assert thinking["type"] == "thinking" and thinking["thinking"] == ""  # omitted: empty on the wire, yet sent back
    assert (
        content_tokens([thinking], model="claude-sonnet-5-5") == first.usage.output_tokens_details.thinking_tokens > 0
    )
    results = [
        {"type": "tool_result", "tool_use_id": b.id, "content": "18C"} for b in first.content if b.type == "tool_use"
    ]
    sent = [*ASK, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}]
    again = {"model": "claude-sonnet-5-5", "tools": [_TOOL], "messages": [*sent, {"role": "user", "content": results}]}
    emptied = json.loads(json.dumps(again))
    emptied["messages"][1]["content"][0]["signature"] = thinking["signature"].rsplit("h", 1)[0]
    with_size = sim.messages.count_tokens(**again).input_tokens
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
        sim.messages.count_tokens(**emptied)  # the size left out of the signature: not the one the simulator gave
    forged = "sim1" + "0" * 40 + "h5000"
    for model, where in (
        ("claude-sonnet-5-5", "assistant"),
        ("claude-sonnet-5-5", "user"),
        ("claude-haiku-4-5", "assistant"),
    ):
        body = json.loads(json.dumps(again))
        body["model"] = model
        block = {"type": "thinking", "thinking": "", "signature": forged}
        if where == "user":
            body["messages"][2]["content"].append(block)
        else:
            body["messages"][1]["content"][0] = block
        with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
            sim.messages.count_tokens(**body)
    redacted = json.loads(json.dumps(again))
    redacted["messages"][1]["content"][0] = {"type": "redacted_thinking", "data": forged}
    assert with_size > sim.messages.count_tokens(**redacted).input_tokens  # redacted data is opaque: no size read


def test_text_cut_to_max_tokens_never_bills_past_it_on_a_model_whose_tokenizer_counts_more():
    """Sonnet 5.5's tokenizer counts 1.3 reference tokens a token: the budget is spent in the model's tokens."""
    words = "the quick brown fox jumps over the lazy dog " * 4
    sim = agentlab.connect(
        "sim", quiet=True, policy=agentlab.FunctionModel(lambda m, i: [{"type": "text", "text": words}] * 2)
    )
    for budget in range(5, 60, 5):
        reply = sim.messages.create(model="claude-sonnet-5-5", max_tokens=budget, messages=ASK)
        assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens <= budget, (budget, reply.usage)
