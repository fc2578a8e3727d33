"""Graded exercise for notebook 13 (optional: what the 2026 API adds). Grade it with `make grade`.

Edit the function below: replace its `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations


def mark_for_caching(messages: list[dict]) -> list[dict]:
    """Exercise 13.1: place the cache breakpoint that makes a long agent run cost half or less.

    Your loop keeps what this returns as its history and sends it every turn. Return a NEW list
    (do not change `messages` or its dicts) in which exactly one content block carries
    "cache_control": {"type": "ephemeral"}: the last block of the last message, so that next turn
    the API finds this turn's prefix a few blocks back and reads it from the cache. A message whose
    content is a plain string must become a list with one {"type": "text", "text": ...} block to
    carry the marker. Remove every older "cache_control" from earlier blocks: they pile up in the
    history, and the API refuses a request with more than 4.
    """
    ### BEGIN SOLUTION
    out = []
    for i, msg in enumerate(messages):
        content = msg["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]
        if i == len(messages) - 1:
            blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
        out.append({**msg, "content": blocks if not isinstance(content, str) or i == len(messages) - 1 else content})
    return out
    ### END SOLUTION
