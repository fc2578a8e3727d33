"""Every policy honours tool_choice; Sonnet 5.5's thinking blocks between tool calls survive the loop."""

from __future__ import annotations

import anthropic
import pytest

import agentlab
from agentlab.sim.policy import FunctionModel, ScriptedModel

TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
    {"name": "save_note", "description": "Save a note", "input_schema": {"type": "object", "properties": {}}},
]
ASK = [{"role": "user", "content": "Which is warmer, Paris or London? Save a note."}]


def _client(policy=None, model="claude-sonnet-4-6"):
    return agentlab.connect("sim", model=model, policy=policy, quiet=True)


def test_forced_tool_choice_on_sonnet_5_5_is_the_api_400():
    with pytest.raises(
        anthropic.BadRequestError, match='tool_choice: type "tool" and "any" are not supported for this model'
    ):
        _client(model="claude-sonnet-5-5").messages.create(
            model="claude-sonnet-5-5", max_tokens=100, messages=ASK, tools=TOOLS, tool_choice={"type": "any"}
        )


@pytest.mark.parametrize(
    "policy",
    [
        None,
        FunctionModel(lambda m, info: ["Let me think.", {"type": "tool_use", "name": "save_note"}]),
        FunctionModel(lambda m, info: "Just text."),
        ScriptedModel(["only text"]),
    ],
)
def test_tool_choice_any_gives_a_tool_use_first_with_no_text_before(policy):
    msg = _client(policy).messages.create(
        model="claude-sonnet-4-6", max_tokens=300, messages=ASK, tools=TOOLS, tool_choice={"type": "any"}
    )  # room for both cities' calls
    assert msg.content[0].type == "tool_use" and all(b.type == "tool_use" for b in msg.content)
    assert msg.stop_reason == "tool_use"


def test_tool_choice_tool_calls_the_named_tool_with_its_required_fields():
    policy = FunctionModel(lambda m, info: [{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}])
    msg = _client(policy).messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        messages=ASK,
        tools=TOOLS,
        tool_choice={"type": "tool", "name": "save_note"},
    )
    assert [(b.type, b.name) for b in msg.content] == [("tool_use", "save_note")]
    forced = _client(ScriptedModel(["text"])).messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        messages=ASK,
        tools=TOOLS,
        tool_choice={"type": "tool", "name": "get_weather"},
    )
    assert forced.content[0].input == {"city": ""}


def test_tool_choice_none_gives_text():
    policy = FunctionModel(lambda m, info: [{"type": "tool_use", "name": "save_note"}])
    msg = _client(policy).messages.create(
        model="claude-sonnet-4-6", max_tokens=100, messages=ASK, tools=TOOLS, tool_choice={"type": "none"}
    )
    assert [b.type for b in msg.content] == ["text"] and msg.stop_reason == "end_turn"


def test_disable_parallel_tool_use_leaves_one_call():
    policy = FunctionModel(
        lambda m, info: [{"type": "tool_use", "name": "get_weather", "input": {"city": c}} for c in ("Paris", "London")]
    )
    msg = _client(policy).messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        messages=ASK,
        tools=TOOLS,
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert [b.type for b in msg.content] == ["tool_use"]


def test_sonnet_5_5_returns_text_before_a_tool_call_as_a_signed_thinking_block():
    client = _client(model="claude-sonnet-5-5")
    msg = client.messages.create(model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS)
    assert [b.type for b in msg.content] == ["thinking", "tool_use", "tool_use"]  # both cities in one turn
    assert msg.content[0].thinking == "" and msg.content[0].signature  # display "omitted" by default
    shown = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=200,
        messages=ASK,
        tools=TOOLS,
        thinking={"type": "adaptive", "display": "summarized"},
    )
    assert shown.content[0].thinking.startswith("Let me look up")


def test_the_loop_sends_thinking_blocks_back_unchanged_and_finishes(tmp_path):
    client = agentlab.connect("sim", model="claude-sonnet-5-5", quiet=True)
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
    assert run.stop_reason.value == "end_turn" and "warmer" in run.final_text
    assert any(b.get("type") == "thinking" for m in run.messages if m["role"] == "assistant" for b in m["content"])


def test_a_changed_thinking_block_is_rejected():
    client = _client(model="claude-sonnet-5-5")
    msg = client.messages.create(model="claude-sonnet-5-5", max_tokens=200, messages=ASK, tools=TOOLS)
    content = [b.model_dump(mode="json", exclude_none=True) for b in msg.content]
    content[0]["thinking"] = "I edited this."
    result = [
        {"type": "tool_result", "tool_use_id": b["id"], "content": "18C"} for b in content if b["type"] == "tool_use"
    ]
    with pytest.raises(
        anthropic.BadRequestError, match=r"messages.1.content.0: Invalid `signature` in `thinking` block"
    ):
        client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=200,
            tools=TOOLS,
            messages=[*ASK, {"role": "assistant", "content": content}, {"role": "user", "content": result}],
        )


def test_thinking_disabled_on_sonnet_5_5_points_to_between_tools():
    with pytest.raises(anthropic.BadRequestError, match="between_tools"):
        _client(model="claude-sonnet-5-5").messages.create(
            model="claude-sonnet-5-5", max_tokens=100, messages=ASK, thinking={"type": "disabled"}
        )


MANUAL = {"type": "enabled", "budget_tokens": 1024}


@pytest.mark.parametrize(
    "thinking, max_tokens, said",
    [
        (
            {"type": "enabled", "budget_tokens": 500},
            2000,
            "budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            {"type": "enabled", "budget_tokens": 2000},
            2000,
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
    ],
)
def test_a_manual_thinking_budget_outside_the_documented_bounds_is_the_api_400(thinking, max_tokens, said):
    with pytest.raises(anthropic.BadRequestError, match=said):
        _client(model="claude-haiku-4-5").messages.create(
            model="claude-haiku-4-5", max_tokens=max_tokens, messages=ASK, thinking=thinking
        )


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "save_note"}])
def test_manual_thinking_with_a_forced_tool_is_the_api_400_and_auto_is_fine(choice):
    client = _client(model="claude-haiku-4-5")
    with pytest.raises(anthropic.BadRequestError, match="Thinking may not be enabled when tool_choice forces tool use"):
        client.messages.create(
            model="claude-haiku-4-5", max_tokens=2000, messages=ASK, tools=TOOLS, thinking=MANUAL, tool_choice=choice
        )
    ok = client.messages.create(
        model="claude-haiku-4-5",
        max_tokens=2000,
        messages=ASK,
        tools=TOOLS,
        thinking=MANUAL,
        tool_choice={"type": "auto"},
    )
    assert ok.stop_reason in ("tool_use", "end_turn")


TEXT_THEN_CALL = FunctionModel(
    lambda m, info: ["Let me look that up.", {"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}]
)


@pytest.mark.parametrize(
    "model, kinds",
    [("claude-sonnet-5", ["tool_use"]), ("claude-fable-5", ["tool_use"]), ("claude-sonnet-4-6", ["text", "tool_use"])],
)
def test_sonnet_5_and_fable_5_write_no_text_before_a_tool_call_as_recorded(model, kinds):
    msg = _client(TEXT_THEN_CALL, model).messages.create(model=model, max_tokens=100, messages=ASK, tools=TOOLS)
    assert [b.type for b in msg.content] == kinds and msg.stop_reason == "tool_use"


def test_text_after_a_tool_call_and_a_turn_without_one_keep_their_text_on_sonnet_5():
    after = FunctionModel(
        lambda m, info: [{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}, "Then London."]
    )
    assert [
        b.type
        for b in _client(after, "claude-sonnet-5")
        .messages.create(model="claude-sonnet-5", max_tokens=100, messages=ASK, tools=TOOLS)
        .content
    ] == ["tool_use", "text"]
    plain = _client(FunctionModel(lambda m, info: "Paris."), "claude-sonnet-5")
    assert [
        b.type
        for b in plain.messages.create(model="claude-sonnet-5", max_tokens=100, messages=ASK, tools=TOOLS).content
    ] == ["text"]


@pytest.mark.parametrize(
    "model, thinking, first",
    [
        ("claude-sonnet-5", None, "thinking"),
        ("claude-sonnet-4-6", None, "text"),
        ("claude-sonnet-5", {"type": "disabled"}, "text"),
    ],
)
def test_sonnet_5_thinks_unasked_before_a_server_tool_call_and_the_loop_carries_it(tmp_path, model, thinking, first):
    from agentlab.sim.models.stops import Pauser

    client = _client(Pauser(pauses=1), model)
    extra = {"thinking": thinking} if thinking else {}
    msg = client.messages.create(model=model, max_tokens=100, messages=ASK, tools=TOOLS, **extra)
    assert (
        msg.stop_reason == "pause_turn" and msg.content[0].type == first and msg.content[-1].type == "server_tool_use"
    )
    if first == "thinking":
        assert msg.content[0].thinking == "" and msg.content[0].signature
    if thinking:
        return  # run_agent sends no thinking parameter
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), model=model
    )  # the paused turn goes back unchanged
    assert run.stop_reason.value == "end_turn" and "warmer" in run.final_text
    paused = [m for m in run.messages if m["role"] == "assistant" and m["content"][-1].get("type") == "server_tool_use"]
    assert len(paused) == 1 and paused[0]["content"][0]["type"] == first


def test_opus_5_5_returns_text_before_a_tool_call_as_a_signed_thinking_block_and_the_loop_finishes(tmp_path):
    client = _client(model="claude-opus-5-5")
    msg = client.messages.create(model="claude-opus-5-5", max_tokens=200, messages=ASK, tools=TOOLS)
    assert msg.content[0].type == "thinking" and msg.content[0].thinking == "" and msg.content[0].signature
    assert {b.type for b in msg.content[1:]} == {"tool_use"}
    run = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), model="claude-opus-5-5"
    )
    assert run.stop_reason.value == "end_turn" and "warmer" in run.final_text
