"""The estimator on Anthropic's two published token counts (it was fitted on them: a regression guard)."""

from agentlab.sim.tokens import estimate_input_tokens, text_tokens, tool_prompt_overhead

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "input_schema": {"type": "object", "properties": {"location": {
        "type": "string", "description": "The city and state, e.g. San Francisco, CA"}}, "required": ["location"]},
}


def test_published_system_and_hello_request_is_14_tokens():
    body = {"model": "claude-opus-4-6", "system": "You are a scientist",
            "messages": [{"role": "user", "content": "Hello, Claude"}]}
    assert estimate_input_tokens(body) == 14


def test_published_get_weather_request_is_403_tokens():
    body = {"model": "claude-opus-4-6", "tools": [WEATHER_TOOL],
            "messages": [{"role": "user", "content": "What's the weather like in San Francisco?"}]}
    assert estimate_input_tokens(body) == 403


def test_tool_overhead_depends_on_model_and_tool_choice():
    assert tool_prompt_overhead("claude-sonnet-4-6", None)[0] == 346
    assert tool_prompt_overhead("claude-sonnet-4-6", {"type": "any"})[0] == 313
    assert tool_prompt_overhead("claude-3-opus-20240229", None)[0] == 530


def test_models_without_a_published_figure_say_what_stands_in():
    n, source = tool_prompt_overhead("claude-sonnet-5-5", None)
    assert n == 346 and source == "Claude 4.x figure (the docs give no figure for this model)"


def test_chinese_text_counts_per_character():
    assert text_tokens("上海北京") == 4


def test_every_turn_costs_more_input_as_history_grows():
    msgs = [{"role": "user", "content": "Hello"}]
    a = estimate_input_tokens({"model": "m", "messages": msgs})
    b = estimate_input_tokens({"model": "m", "messages": msgs + [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "More"}]})
    assert b > a
