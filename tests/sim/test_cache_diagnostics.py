"""Cache diagnostics on the simulator (``agentlab/sim/diagnostics.py``): a request naming the previous reply's id is
told where it first left that request, as the docs describe (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics)."""

from __future__ import annotations

import json

import anthropic
import pytest

import agentlab
from agentlab.sim import diagnostics as diag

MODEL = "claude-opus-5"
TOOLS = [
    {"name": "get_weather", "description": "The weather for a city.", "input_schema": {"type": "object"}},
    {"name": "save_note", "description": "Save a note.", "input_schema": {"type": "object"}},
]
TASK = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture
def sim():
    return agentlab.connect("sim", model=MODEL, quiet=True)


def ask(sim, previous, **changes):
    request = {"model": MODEL, "max_tokens": 200, "tools": TOOLS, "system": "Be brief.", "messages": TASK, **changes}
    return sim.messages.create(**request, diagnostics={"previous_message_id": previous})


def reason(reply) -> dict | None:
    d = reply.diagnostics
    return None if d is None or d.cache_miss_reason is None else d.cache_miss_reason.model_dump()


def with_reply(messages, reply):
    """``messages`` continued as a loop continues them: the reply, then a tool_result for each tool_use."""
    content = [b.model_dump(exclude_none=True) for b in reply.content]
    results = [
        {"type": "tool_result", "tool_use_id": b["id"], "content": "12 C"} for b in content if b["type"] == "tool_use"
    ]
    return [*messages, {"role": "assistant", "content": content}, {"role": "user", "content": results or "go on"}]


def test_a_request_that_only_appends_is_told_nothing_diverged(sim):
    first = ask(sim, None)
    assert first.diagnostics is None  # opted in, nothing to compare with
    second = ask(sim, first.id, messages=with_reply(TASK, first))
    assert second.diagnostics is None


def test_a_breakpoint_that_turns_a_string_into_a_block_is_no_change(sim):
    first = ask(sim, None)
    marked = [
        {
            "role": "user",
            "content": [{"type": "text", "text": TASK[0]["content"], "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert ask(sim, first.id, messages=marked).diagnostics is None


@pytest.mark.parametrize(
    "changes, kind",
    [
        ({"system": "Be brief. The time is 09:00:07."}, "system_changed"),
        ({"tools": TOOLS[::-1]}, "tools_changed"),
        ({"tools": TOOLS[:1]}, "tools_changed"),  # a tool removed: the system prompt now stands where it was
        ({"tools": [*TOOLS, {**TOOLS[0], "name": "get_time"}]}, "tools_changed"),  # added: it sits before the system
        ({"model": "claude-sonnet-5-5"}, "model_changed"),
    ],
)
def test_the_first_part_that_differs_is_named_with_the_tokens_after_it(sim, changes, kind):
    first = ask(sim, None)
    why = reason(ask(sim, first.id, **changes))
    assert why["type"] == kind
    assert 0 < why["cache_missed_input_tokens"] <= first.usage.input_tokens


def test_an_edited_earlier_message_is_messages_changed_and_misses_fewer_tokens_than_a_system_change(sim):
    first = ask(sim, None)
    history = with_reply(TASK, first)
    second = ask(sim, first.id, messages=history)
    edited = [{"role": "user", "content": "What is the weather in Lyon?"}, *history[1:]]
    by_messages = reason(ask(sim, second.id, messages=edited))
    by_system = reason(ask(sim, second.id, messages=history, system="Be very brief."))
    assert by_messages["type"] == "messages_changed" and by_system["type"] == "system_changed"
    assert 0 < by_messages["cache_missed_input_tokens"] < by_system["cache_missed_input_tokens"]


def test_a_changed_part_is_named_even_when_a_shaping_field_changed_too(sim):
    first = ask(sim, None)
    more = {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}
    assert reason(ask(sim, first.id, tools=TOOLS[:1], **more))["type"] == "tools_changed"
    assert reason(ask(sim, first.id, system="Be terse.", **more))["type"] == "system_changed"


def test_a_changed_speed_is_model_changed_as_the_sdk_says():
    client = agentlab.connect("sim", model="claude-opus-4-6", quiet=True)
    first = ask(client, None, model="claude-opus-4-6")
    assert reason(ask(client, first.id, model="claude-opus-4-6", speed="fast"))["type"] == "model_changed"


def test_a_changed_tool_choice_with_the_same_prompt_parts_is_unavailable_and_carries_no_count(sim):
    first = ask(sim, None)
    why = reason(ask(sim, first.id, tool_choice={"type": "auto", "disable_parallel_tool_use": True}))
    assert why == {"type": "unavailable"}


def test_an_id_never_kept_is_previous_message_not_found_and_the_request_is_answered(sim):
    not_opted = sim.messages.create(model=MODEL, max_tokens=50, messages=TASK)
    assert not_opted.diagnostics is None
    for previous in ("msg_never_sent", not_opted.id):
        reply = ask(sim, previous)
        assert reason(reply) == {"type": "previous_message_not_found"} and reply.content


def test_a_reply_to_a_request_that_did_not_ask_has_no_diagnostics_key_as_recorded(sim):
    raw = sim.messages.with_raw_response.create(model=MODEL, max_tokens=50, messages=TASK)
    assert "diagnostics" not in raw.http_response.json()
    raw = sim.messages.with_raw_response.create(
        model=MODEL, max_tokens=50, messages=TASK, diagnostics={"previous_message_id": None}
    )
    assert raw.http_response.json()["diagnostics"] is None


def test_a_stream_carries_diagnostics_on_message_start(sim):
    first = ask(sim, None)
    request = {"model": MODEL, "max_tokens": 200, "tools": TOOLS, "system": "Other.", "messages": TASK}
    raw = sim.messages.with_raw_response.create(**request, stream=True, diagnostics={"previous_message_id": first.id})
    text = raw.http_response.read().decode()
    start = json.loads(text.split("data: ", 2)[1].split("\n")[0])
    assert start["type"] == "message_start"
    assert start["message"]["diagnostics"]["cache_miss_reason"]["type"] == "system_changed"


@pytest.mark.parametrize(
    "value, says",
    [
        ({"previous_message_id": 7}, "diagnostics.previous_message_id: expected a message id string or null, got 7"),
        ({"previous": None}, "diagnostics.previous: Extra inputs are not permitted"),
        ("msg_1", "diagnostics: expected an object"),
    ],
)
def test_a_malformed_diagnostics_is_a_400_naming_the_field(sim, value, says):
    with pytest.raises(anthropic.BadRequestError, match="diagnostics") as e:
        sim.messages.create(model=MODEL, max_tokens=50, messages=TASK, diagnostics=value)
    assert says in e.value.body["error"]["message"]


def test_fingerprints_hold_hashes_and_counts_only_and_are_bounded(monkeypatch):
    monkeypatch.setattr(diag, "KEEP", 3)
    kept = diag.Diagnostics()
    body = {
        "model": MODEL,
        "system": "A secret system prompt",
        "messages": TASK,
        "diagnostics": {"previous_message_id": None},
    }
    for i in range(5):
        kept.answer(body, "", {"id": f"msg_{i}"}, {})
    assert list(kept.kept) == ["msg_2", "msg_3", "msg_4"]
    assert b"secret" not in repr(kept.kept["msg_4"]).encode() and "Paris" not in repr(kept.kept["msg_4"])
    memo: dict = {}
    kept.answer(body, "", {"id": "msg_5"}, memo)  # the token counts it shares with the prompt cache: digests only
    assert memo and all(b"secret" not in k and b"Paris" not in k for k in memo)


def test_loading_a_deferred_tool_only_appends(sim):
    from test_prompt_cache import DEFERRED, FOUND

    search = {"name": "search", "description": "Find a tool.", "input_schema": {"type": "object"}}
    first = ask(sim, None, tools=[search, DEFERRED], messages=FOUND[:1])
    assert ask(sim, first.id, tools=[search, DEFERRED], messages=FOUND).diagnostics is None
