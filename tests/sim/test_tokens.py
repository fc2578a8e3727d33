"""The estimator on Anthropic's two published token counts (it was fitted on them: a regression guard)."""

from agentlab.api.tokens import estimate_input_tokens, text_tokens, tool_prompt_overhead

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get the current weather in a given location",
    "input_schema": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}},
        "required": ["location"],
    },
}


def test_published_system_and_hello_request_is_14_tokens():
    body = {
        "model": "claude-opus-4-6",
        "system": "You are a scientist",
        "messages": [{"role": "user", "content": "Hello, Claude"}],
    }
    assert estimate_input_tokens(body) == 14


def test_published_get_weather_request_is_403_tokens_with_the_346_token_tool_prompt_it_was_published_with():
    # The 403 was published when the tool-use prompt for auto was 346 tokens; the model's own prompt
    # figure is swapped for that one, the rest (framing, tool definition, text) is the fitted estimate.
    body = {
        "model": "claude-opus-4-6",
        "tools": [WEATHER_TOOL],
        "messages": [{"role": "user", "content": "What's the weather like in San Francisco?"}],
    }
    assert estimate_input_tokens(body) - tool_prompt_overhead("claude-opus-4-6", None)[0] + 346 == 403


def test_tool_overhead_is_the_published_figure_plus_the_offset_measured_on_recordings():
    # published (auto, forced) + measured offset: Sonnet 4.x takes Sonnet 4.5's +20 (profiles.json "measured")
    assert tool_prompt_overhead("claude-sonnet-4-6", None)[0] == 497 + 20
    assert tool_prompt_overhead("claude-sonnet-4-6", {"type": "any"})[0] == 589 + 20
    assert tool_prompt_overhead("claude-opus-4-7", {"type": "tool", "name": "x"})[0] == 804
    assert tool_prompt_overhead("claude-opus-4-0", None)[0] == 313  # no recording of Opus 4: no measured figure
    assert "measured on recorded traffic" in tool_prompt_overhead("claude-sonnet-4-6", None)[1]


def test_models_without_a_published_figure_say_what_stands_in():
    n, source = tool_prompt_overhead("claude-sonnet-5-5", None)
    assert n == 354 and source.startswith(
        "Claude Sonnet 5 figure stands in"
    )  # no recording of Sonnet 5.5: nothing measured


def test_an_id_without_a_profile_is_not_matched_by_prefix():
    n, source = tool_prompt_overhead("claude-opus-4-7-20990101", None)  # a prefix match would give 675
    assert n == 497 + 20 and "has no profile" in source  # Sonnet 4.6's figure + its (stand-in) measured offset


def test_chinese_text_counts_per_character():
    assert text_tokens("上海北京") == 4


def test_every_turn_costs_more_input_as_history_grows():
    msgs = [{"role": "user", "content": "Hello"}]
    a = estimate_input_tokens({"model": "m", "messages": msgs})
    b = estimate_input_tokens(
        {"model": "m", "messages": msgs + [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "More"}]}
    )
    assert b > a


def test_a_deferred_tool_adds_the_measured_deferred_loading_prompt_and_plain_tools_do_not():
    from agentlab.api.tokens import input_parts

    tool = {"name": "lookup", "description": "Look up an order.", "input_schema": {"type": "object", "properties": {}}}
    plain = {
        "model": "claude-opus-5",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [tool, {**tool, "name": "other"}],
    }
    deferred = {**plain, "tools": [tool, {**tool, "name": "other", "defer_loading": True}]}
    assert input_parts(plain)["tool_prompt"] == 286  # published, no offset: no fit recording shows plain tools
    assert input_parts(deferred)["tool_prompt"] == 286 + 165  # measured on a recorded request with a deferred tool
