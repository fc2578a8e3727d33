"""Graded exercises for notebook 09 (what a turn costs). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from agentlab.api.tokens import MESSAGE_FRAME, content_tokens


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


def predict_next_input(prev_input_tokens: int, prev_output_tokens: int, tool_results: list[dict]) -> int:
    """Exercise 9.2: predict the input tokens of turn k from turn k-1 (simulator, no caching).

    Turn k re-sends everything turn k-1 sent (`prev_input_tokens`), plus the assistant message
    turn k-1 wrote (its content counts as `prev_output_tokens`), plus one new user message holding
    `tool_results` (the tool_result blocks the loop appended). The simulator's estimator adds
    `MESSAGE_FRAME` tokens of framing per message and counts a list of blocks with
    `content_tokens(blocks)` (both imported above from agentlab.api.tokens). Return the prediction.
    (The tests run a model whose tokenizer factor is 1, e.g. claude-sonnet-4-6; newer models count
    about 30% more tokens for the same text, which `content_tokens(blocks, model=...)` applies.)
    """
    ### BEGIN SOLUTION
    new_messages = 2  # the assistant reply and the user message with the results
    return prev_input_tokens + prev_output_tokens + new_messages * MESSAGE_FRAME + content_tokens(tool_results)
    ### END SOLUTION
