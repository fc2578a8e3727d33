"""Requests the real API answered 200 in the recordings are answered by the simulator too, and counted as recorded."""

from agentlab.api.profiles import profile
from agentlab.api.tokens import estimate_input_tokens
from agentlab.sim.calibrate import bundled, refusals, replay


def _rec(model, messages, **body):
    return {
        "cassette": "t",
        "split": "yours",
        "model": model,
        "status": 200,
        "usage": {"input_tokens": 1},
        "request": {"model": model, "max_tokens": 64, "messages": messages, **body},
    }


SYSTEM_MID = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello"},
    {"role": "user", "content": "Suggest a name"},
    {"role": "system", "content": [{"type": "text", "text": "Always state the time complexity."}]},
]


def test_a_system_message_mid_conversation_is_accepted_where_recorded_and_refused_elsewhere():
    opus, sonnet = replay([_rec("claude-opus-4-8", SYSTEM_MID), _rec("claude-sonnet-4-6", SYSTEM_MID)])
    assert opus.refused == "" and opus.estimate > 0
    assert sonnet.refused.startswith('400 messages: Unexpected role "system"')
    assert "recorded real traffic" in profile("claude-opus-4-8").sources["system_messages"]


def test_two_assistant_messages_in_a_row_are_merged_before_tool_results_are_paired():
    messages = [
        {"role": "user", "content": "Refund order-123"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "load", "input": {}}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "search", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "b", "content": "ok"},
            ],
        },
    ]
    tools = [{"name": n, "input_schema": {"type": "object"}} for n in ("load", "search")]
    (row,) = replay([_rec("claude-sonnet-4-5", messages, tools=tools)])
    assert row.refused == ""
    unanswered = messages[:2] + [{"role": "user", "content": "and?"}]
    (bad,) = replay([_rec("claude-sonnet-4-5", unanswered, tools=tools)])
    assert bad.refused.startswith("400 messages.1: `tool_use` ids were found without `tool_result`")


def test_a_deferred_tool_costs_nothing_until_a_reference_loads_it():
    deferred = {
        "name": "lookup_refund_policy",
        "defer_loading": True,
        "description": "Refund policy for an order",
        "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
    }
    base = {"model": "claude-sonnet-4-5", "tools": [{"name": "x", "input_schema": {"type": "object"}}]}
    ask = [{"role": "user", "content": "Refund?"}]
    assert estimate_input_tokens({**base, "messages": ask}) == estimate_input_tokens(
        {**base, "tools": base["tools"] + [deferred], "messages": ask}
    )
    loaded = ask + [
        {
            "role": "system",
            "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup_refund_policy"}}],
        }
    ]
    without = estimate_input_tokens({**base, "messages": loaded})
    assert estimate_input_tokens({**base, "tools": base["tools"] + [deferred], "messages": loaded}) > without


def test_no_recorded_accepted_request_is_refused_except_for_a_model_retired_since():
    refused = refusals(replay(bundled()["records"]))
    assert [r.model for r in refused] == ["claude-3-opus-latest"]


def test_a_server_tool_counts_its_measured_hidden_prompt_and_an_unmeasured_one_only_its_definition():
    from agentlab.api.tokens import server_tool_prompt

    ask = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "News?"}]}
    search = estimate_input_tokens({**ask, "tools": [{"type": "web_search_20250305", "name": "web_search"}]})
    fetch = estimate_input_tokens({**ask, "tools": [{"type": "web_fetch_20250910", "name": "web_fetch"}]})
    assert server_tool_prompt({"type": "web_search_20250305"}) == 2140 and search - fetch >= 2140 - 5
    assert server_tool_prompt({"name": "custom"}) == 0 and server_tool_prompt({"type": "web_fetch_20250910"}) == 0
