"""The simulator applies clear_tool_uses_20250919 server-side as the docs describe, and reports applied_edits."""

import agentlab
from agentlab.sim.context_editing import PLACEHOLDER, apply_context_management


def _body(n, size=200, edit=None):
    msgs = [{"role": "user", "content": "go"}]
    for i in range(n):
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{i}",
                        "name": "get_weather" if i else "memory",
                        "input": {"city": "Paris"},
                    }
                ],
            }
        )
        msgs.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "word " * size}]}
        )
    body = {"model": agentlab.default_model(), "max_tokens": 10, "messages": msgs}
    if edit is not None:
        body["context_management"] = {"edits": [edit]}
    return body


def _results(body):
    return [m["content"][0]["content"] for m in body["messages"][2::2]]


def test_no_context_management_means_no_edit_and_no_report():
    body = _body(4)
    assert apply_context_management(body) == (body, None)


def test_past_the_trigger_all_but_the_newest_keep_are_cleared_and_counted():
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 100},
        "keep": {"type": "tool_uses", "value": 2},
    }
    body = _body(5, edit=edit)
    edited, applied = apply_context_management(body)
    assert _results(edited)[:3] == [PLACEHOLDER] * 3 and _results(edited)[3:] == _results(body)[3:]
    assert applied[0]["cleared_tool_uses"] == 3 and applied[0]["cleared_input_tokens"] > 0
    assert _results(body)[0] != PLACEHOLDER  # the client's copy is untouched


def test_under_the_trigger_or_short_of_clear_at_least_nothing_changes():
    low = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 10**6}}
    assert apply_context_management(_body(5, edit=low))[1] == []
    much = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 100},
        "clear_at_least": {"type": "input_tokens", "value": 10**6},
    }
    assert apply_context_management(_body(5, edit=much))[1] == []


def test_excluded_tools_are_never_cleared():
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": 1},
        "keep": {"type": "tool_uses", "value": 1},
        "exclude_tools": ["memory"],
    }
    edited, applied = apply_context_management(_body(4, edit=edit))
    assert _results(edited)[0] != PLACEHOLDER and _results(edited)[1:3] == [PLACEHOLDER] * 2


def test_the_response_carries_applied_edits_and_usage_counts_the_edited_prompt():
    client = agentlab.connect("sim", quiet=True)
    body = _body(6)
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 500},
        "keep": {"type": "tool_uses", "value": 1},
    }
    tools = [agentlab.get_weather.spec(), {**agentlab.get_weather.spec(), "name": "memory"}]
    full = client.messages.create(model=body["model"], max_tokens=50, messages=body["messages"], tools=tools)
    cut = client.messages.create(
        model=body["model"],
        max_tokens=50,
        messages=body["messages"],
        tools=tools,
        extra_body={"context_management": {"edits": [edit]}},
        extra_headers={"anthropic-beta": "context-management-2025-06-27"},
    )
    applied = cut.context_management["applied_edits"][0]
    assert applied["type"] == "clear_tool_uses_20250919" and applied["cleared_tool_uses"] == 5
    assert cut.usage.input_tokens == full.usage.input_tokens - applied["cleared_input_tokens"]
    assert getattr(full, "context_management", None) is None


def test_count_tokens_counts_the_edited_prompt_and_reports_the_original():
    client = agentlab.connect("sim", quiet=True)
    body = _body(6)
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 500},
        "keep": {"type": "tool_uses", "value": 1},
    }
    tools = [agentlab.get_weather.spec(), {**agentlab.get_weather.spec(), "name": "memory"}]
    full = client.messages.count_tokens(model=body["model"], messages=body["messages"], tools=tools)
    cut = client.beta.messages.count_tokens(
        model=body["model"],
        messages=body["messages"],
        tools=tools,
        context_management={"edits": [edit]},
        betas=["context-management-2025-06-27"],
    )
    assert cut.input_tokens < full.input_tokens == cut.context_management.original_input_tokens
