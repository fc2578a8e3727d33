"""Graded exercises for notebook 09 (what a turn costs). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any


def cost_by_hand(usage: dict, prices: dict) -> float:
    """Exercise 9.1: compute the USD cost of one API call from its usage and a price table.

    `prices` gives USD per million tokens under the keys "input", "output", "cache_read",
    "cache_write_5m" and "cache_write_1h". `usage` is the API's usage object as a dict:
    "input_tokens" (not cached), "output_tokens", "cache_read_input_tokens",
    "cache_creation_input_tokens" (written to the cache) and, when present, "cache_creation"
    with "ephemeral_5m_input_tokens" and "ephemeral_1h_input_tokens" (how the writes split by
    lifetime). Without "cache_creation", every write is a 5-minute write. Missing or None counts
    as 0. Return the total in USD (a float).
    """

    ### BEGIN SOLUTION
    def n(key: str) -> int:
        return usage.get(key) or 0

    split = usage.get("cache_creation") or {}
    one_hour = split.get("ephemeral_1h_input_tokens") or 0
    five_min = n("cache_creation_input_tokens") - one_hour
    per_token = {k: v / 1_000_000 for k, v in prices.items()}
    return (
        n("input_tokens") * per_token["input"]
        + n("output_tokens") * per_token["output"]
        + n("cache_read_input_tokens") * per_token["cache_read"]
        + five_min * per_token["cache_write_5m"]
        + one_hour * per_token["cache_write_1h"]
    )
    ### END SOLUTION


def run_capped(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    max_usd: float,
    prices: dict,
    max_tokens: int = 1024,
    max_turns: int = 20,
) -> tuple[list[dict], str, float]:
    """Exercise 9.2: your loop (exercise 2.1), stopped before the call that would cross a dollar budget.

    Money is spent a call at a time, and a call cannot be taken back: so the check comes before each call,
    against that call's worst case, the input it would send (count it with client.messages.count_tokens)
    plus `max_tokens` of output, priced at `prices` (USD per million tokens, {"input": ..., "output": ...}).
    If what was spent so far plus that worst case would pass `max_usd`, make no call. After a call, add
    what it really cost, its usage at the same prices. Return (messages, why, spent): `why` is the model's
    stop_reason when it stopped asking for tools, else "max_usd" or "max_turns". The conversation you
    return stays one the API accepts. Write the loop and the check yourself: agentlab.run_agent,
    agentlab.execute_tools, agentlab.guards and the lab's price functions fail the tests.
    """
    ### BEGIN SOLUTION
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    spent = 0.0
    for _ in range(max_turns):
        sending = client.messages.count_tokens(model=model, messages=messages, tools=specs).input_tokens
        worst = (sending * prices["input"] + max_tokens * prices["output"]) / 1e6
        if spent + worst > max_usd:
            return messages, "max_usd", spent
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages, tools=specs)
        spent += (reply.usage.input_tokens * prices["input"] + reply.usage.output_tokens * prices["output"]) / 1e6
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            return messages, str(reply.stop_reason), spent
        results = []
        for block in content:
            if block["type"] == "tool_use":
                out = run_tool(by_name, block["name"], block["input"])
                results.append(
                    {"type": "tool_result", "tool_use_id": block["id"], "content": out.content}
                    | ({"is_error": True} if out.is_error else {})
                )
        messages.append({"role": "user", "content": results})
    return messages, "max_turns", spent
    ### END SOLUTION
