"""The simulator rejects malformed Messages API requests as the real API does, word for word."""

from __future__ import annotations

import copy

import pytest

from agentlab.sim.errors import SimAPIError
from agentlab.sim.validate import validate_messages_request

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
TIME_TOOL = {"name": "get_time", "description": "Current time.", "input_schema": {"type": "object", "properties": {}}}


def tool_use(tool_id: str, name: str = "get_weather") -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"city": "Paris"}}


def tool_result(tool_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "15 degrees"}


def request(messages: list[dict] | None = None, **fields: object) -> dict:
    body: dict = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": messages if messages is not None else [{"role": "user", "content": "Hello"}],
    }
    body.update(fields)
    return body


def rejection(body: object, **options: object) -> SimAPIError:
    with pytest.raises(SimAPIError) as caught:
        validate_messages_request(body, **options)
    return caught.value


def assert_invalid(body: object, message: str, **options: object) -> None:
    error = rejection(body, **options)
    assert (error.type, error.status, error.message) == ("invalid_request_error", 400, message)


TOOL_CONVERSATION = [
    {"role": "user", "content": "Weather and time in Paris?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check both."},
            tool_use("toolu_01"),
            tool_use("toolu_02", "get_time"),
        ],
    },
    {"role": "user", "content": [tool_result("toolu_01"), tool_result("toolu_02"), {"type": "text", "text": "Thanks"}]},
    {"role": "assistant", "content": [tool_use("toolu_03")]},
    {"role": "user", "content": [tool_result("toolu_03")]},
    {"role": "assistant", "content": "It is 15 degrees and noon in Paris."},
    {"role": "user", "content": "Great."},
]


# --- requests that pass ---------------------------------------------------------------------


def test_valid_multi_turn_tool_conversation_passes() -> None:
    body = request(copy.deepcopy(TOOL_CONVERSATION), tools=[WEATHER_TOOL, TIME_TOOL], tool_choice={"type": "auto"})
    validate_messages_request(body, known_models={"claude-sonnet-4-5"})


def test_count_tokens_request_without_max_tokens_passes() -> None:
    body = request()
    del body["max_tokens"]
    validate_messages_request(body, count_tokens=True)


def test_zero_max_tokens_is_accepted_for_prompt_cache_prewarming() -> None:
    validate_messages_request(request(max_tokens=0))


def test_conversation_may_start_with_an_assistant_message() -> None:
    validate_messages_request(request([{"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "Hi"}]))


def test_consecutive_messages_with_the_same_role_are_accepted() -> None:
    validate_messages_request(request([{"role": "user", "content": "One"}, {"role": "user", "content": "Two"}]))


def test_empty_final_assistant_message_is_accepted() -> None:
    validate_messages_request(request([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": ""}]))


def test_any_model_is_accepted_when_known_models_is_not_given() -> None:
    validate_messages_request(request(model="claude-made-up-1"))


def test_server_tools_are_not_checked_like_custom_tools() -> None:
    validate_messages_request(request(tools=[{"type": "web_search_20250305", "name": "web_search"}]))


def test_tool_choice_none_is_accepted() -> None:
    validate_messages_request(request(tools=[WEATHER_TOOL], tool_choice={"type": "none"}))


# --- body and top-level fields --------------------------------------------------------------


def test_body_that_is_not_a_json_object_is_rejected() -> None:
    assert_invalid(
        [{"role": "user", "content": "Hi"}], "Input should be a valid dictionary or object to extract fields from"
    )


def test_missing_model_is_rejected_as_field_required() -> None:
    body = request()
    del body["model"]
    assert_invalid(body, "model: Field required")


def test_missing_max_tokens_is_rejected_as_field_required() -> None:
    body = request()
    del body["max_tokens"]
    assert_invalid(body, "max_tokens: Field required")


def test_missing_messages_is_rejected_as_field_required() -> None:
    body = request()
    del body["messages"]
    assert_invalid(body, "messages: Field required")


@pytest.mark.parametrize("max_tokens", ["1024", 10.5, True, None])
def test_non_integer_max_tokens_is_rejected(max_tokens: object) -> None:
    assert_invalid(request(max_tokens=max_tokens), "max_tokens: Input should be a valid integer")


def test_negative_max_tokens_is_rejected() -> None:
    assert_invalid(request(max_tokens=-1), "max_tokens: Input should be greater than or equal to 0")


def test_unknown_model_is_not_found_when_known_models_are_given() -> None:
    error = rejection(request(model="claude-made-up-1"), known_models={"claude-sonnet-4-5"})
    assert (error.type, error.status, error.message) == ("not_found_error", 404, "model: claude-made-up-1")


# --- messages ---------------------------------------------------------------------------------


def test_empty_messages_list_is_rejected() -> None:
    assert_invalid(request([]), "messages: at least one message is required")


def test_system_role_in_messages_is_rejected_with_api_wording() -> None:
    assert_invalid(
        request([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]),
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
        'not "system" as an input message role.',
    )


def test_role_other_than_user_or_assistant_is_rejected() -> None:
    assert_invalid(
        request([{"role": "user", "content": "Hi"}, {"role": "tool", "content": "42"}]),
        "messages.1.role: Input should be 'user' or 'assistant'",
    )


def test_content_that_is_neither_string_nor_list_is_rejected() -> None:
    assert_invalid(
        request([{"role": "user", "content": {"text": "Hi"}}]), "messages.0.content: Input should be a valid string"
    )


def test_empty_content_before_the_final_assistant_message_is_rejected() -> None:
    assert_invalid(
        request(
            [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": []}, {"role": "user", "content": "?"}]
        ),
        "messages.1: all messages must have non-empty content except for the optional final assistant message",
    )


# --- tool_use / tool_result pairing -----------------------------------------------------------


def test_tool_use_without_result_in_next_message_is_rejected_with_api_wording() -> None:
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [tool_use("toolu_01")]},
        {"role": "user", "content": "Never mind."},
    ]
    assert_invalid(
        request(messages, tools=[WEATHER_TOOL]),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    )


def test_several_unanswered_tool_use_ids_are_listed_comma_separated() -> None:
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [tool_use("toolu_01"), tool_use("toolu_02"), tool_use("toolu_03")]},
        {"role": "user", "content": [tool_result("toolu_02")]},
    ]
    assert_invalid(
        request(messages, tools=[WEATHER_TOOL]),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01, toolu_03. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    )


def test_text_before_tool_result_leaves_the_tool_use_unanswered() -> None:
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [tool_use("toolu_01")]},
        {"role": "user", "content": [{"type": "text", "text": "Here it is:"}, tool_result("toolu_01")]},
    ]
    assert_invalid(
        request(messages, tools=[WEATHER_TOOL]),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    )


def test_tool_result_without_tool_use_in_previous_message_is_rejected_with_api_wording() -> None:
    messages = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [tool_use("toolu_01")]},
        {"role": "user", "content": [tool_result("toolu_01"), tool_result("toolu_99")]},
    ]
    assert_invalid(
        request(messages, tools=[WEATHER_TOOL]),
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_99. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    )


def test_tool_result_in_the_first_message_is_rejected() -> None:
    assert_invalid(
        request([{"role": "user", "content": [tool_result("toolu_01")]}]),
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    )


# --- tools and tool_choice --------------------------------------------------------------------


def test_duplicate_tool_names_are_rejected() -> None:
    assert_invalid(request(tools=[WEATHER_TOOL, dict(WEATHER_TOOL)]), "tools: Tool names must be unique.")


@pytest.mark.parametrize("name", ["get weather", "mcp.server/tool", "x" * 129, "", "get_weather\n"])
def test_tool_name_outside_the_allowed_pattern_is_rejected(name: str) -> None:
    assert_invalid(
        request(tools=[TIME_TOOL, {**WEATHER_TOOL, "name": name}]),
        "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    )


def test_input_schema_without_type_is_rejected() -> None:
    tool = {**WEATHER_TOOL, "input_schema": {"properties": {}}}
    assert_invalid(request(tools=[tool]), "tools.0.custom.input_schema.type: Field required")


def test_input_schema_that_is_not_an_object_schema_is_rejected() -> None:
    tool = {**WEATHER_TOOL, "input_schema": {"type": "string"}}
    assert_invalid(request(tools=[tool]), "tools.0.custom.input_schema.type: Input should be 'object'")


def test_tool_choice_naming_a_tool_not_in_tools_is_rejected() -> None:
    assert_invalid(
        request(tools=[WEATHER_TOOL], tool_choice={"type": "tool", "name": "get_time"}),
        "Tool 'get_time' not found in provided tools",
    )


def test_tool_choice_with_unknown_type_is_rejected() -> None:
    assert_invalid(
        request(tools=[WEATHER_TOOL], tool_choice={"type": "required"}),
        "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: "
        "'any', 'auto', 'none', 'tool'",
    )
