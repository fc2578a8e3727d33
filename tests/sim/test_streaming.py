"""stream=true: the API's server-sent events in order; the SDK's streaming paths and tool runner run offline."""

from __future__ import annotations

import json

import anthropic
from anthropic import beta_tool
from sim_http import body, post

import agentlab
from agentlab.meter.middleware import meter_of

TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]
ASK = [{"role": "user", "content": "Which is warmer, Paris or London?"}]


@beta_tool
def get_weather(city: str) -> str:
    """Get today's temperature for a city.

    Args:
        city: the city name
    """
    return json.dumps({"city": city, "temp_c": {"Paris": 18, "London": 14}.get(city, 10)})


def _events(raw: bytes) -> list[tuple[str, dict]]:
    out = []
    for chunk in raw.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.split("\n"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_events_come_in_the_api_order_with_every_delta_kind():
    r = post(body("claude-sonnet-5-5", messages=ASK, tools=TOOLS, stream=True))
    assert r.headers["content-type"].startswith("text/event-stream")
    events = _events(r.content)
    names = [e for e, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names[1] == "content_block_start" and names[2] == "ping"
    deltas = {d["delta"]["type"] for e, d in events if e == "content_block_delta"}
    assert {"signature_delta", "input_json_delta"} <= deltas
    assert events[0][1]["message"]["usage"]["input_tokens"] > 0
    final = events[-2][1]
    assert final["delta"]["stop_reason"] == "tool_use" and final["usage"]["output_tokens"] > 1
    shown = _events(
        post(
            body(
                "claude-sonnet-5-5",
                messages=ASK,
                tools=TOOLS,
                stream=True,
                thinking={"type": "adaptive", "display": "summarized"},
            )
        ).content
    )
    assert "thinking_delta" in {d["delta"]["type"] for e, d in shown if e == "content_block_delta"}
    text = _events(post(body("claude-sonnet-4-6", stream=True)).content)
    assert [d["delta"]["type"] for e, d in text if e == "content_block_delta"][0] == "text_delta"


def test_streamed_and_plain_answers_carry_the_same_message(sim):
    plain = sim.messages.create(model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS)
    with agentlab.connect("sim", quiet=True).messages.stream(
        model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS
    ) as stream:
        final = stream.get_final_message()
    assert final.model_dump(exclude={"id"}) == plain.model_dump(exclude={"id"}) | {
        "content": final.model_dump()["content"]
    }
    assert [b.type for b in final.content] == [b.type for b in plain.content]
    assert final.content[1].input == plain.content[1].input and final.content[0].signature == plain.content[0].signature


def test_create_with_stream_true_yields_raw_events_and_the_meter_meters_it(sim):
    events = list(sim.messages.create(model="claude-sonnet-4-6", max_tokens=100, messages=ASK, stream=True))
    assert events[0].type == "message_start" and events[-1].type == "message_stop"
    calls = meter_of(sim).calls
    assert len(calls) == 1 and calls[0].usage["output_tokens"] > 1 and calls[0].stop_reason == "end_turn"


def test_messages_stream_text_stream_and_meter(sim):
    with sim.messages.stream(
        model="claude-sonnet-4-6", max_tokens=100, messages=[{"role": "user", "content": "Hello"}]
    ) as s:
        text = "".join(s.text_stream)
    assert text.startswith("Hello") and meter_of(sim).calls[-1].usage["input_tokens"] > 0


def test_the_sdk_tool_runner_finishes_offline_plain_and_streaming():
    client = agentlab.connect("sim", quiet=True)
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=500, tools=[get_weather], messages=ASK
    )
    last = [m for m in runner][-1]
    assert last.stop_reason == "end_turn" and "Paris" in last.content[-1].text
    streaming = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=500, tools=[get_weather], messages=ASK, stream=True
    )
    finals = []
    for stream in streaming:
        finals.append(stream.get_final_message())
    assert finals[-1].stop_reason == "end_turn" and len(finals) == 2  # both cities in the first turn, then the answer
    assert len(meter_of(client).calls) == 4


def test_a_thread_continued_from_an_unknown_message_is_replayed_by_the_sdk():
    client = agentlab.connect("sim", quiet=True)
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=500, tools=[get_weather], messages=ASK
    )
    first = next(iter(runner))
    client.agentlab_simulator.threads._replies.clear()  # the server lost the thread
    rest = list(runner)
    assert first.stop_reason == "tool_use" and rest[-1].stop_reason == "end_turn"
    attempts = meter_of(client).attempts
    assert any(a.status == 404 for a in attempts)


def test_streaming_over_http_is_metered_as_the_events_arrive(base_url):
    plain = anthropic.Anthropic(api_key="anything", base_url=base_url, max_retries=0)
    with plain.messages.stream(model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS) as s:
        final = s.get_final_message()
    assert [b.type for b in final.content] == ["thinking", "tool_use", "tool_use"]  # both cities in one turn
    client = agentlab.connect(base_url=base_url, quiet=True, max_retries=0)
    with client.messages.stream(model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS) as s:
        assert meter_of(client).calls == []  # nothing read yet
        s.get_final_message()
    call = meter_of(client).calls[0]
    assert call.tool_calls == ("get_weather", "get_weather") and call.stop_reason == "tool_use" and call.estimated
