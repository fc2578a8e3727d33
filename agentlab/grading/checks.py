"""Checks that several exercises' tests make of what a student's loop returns."""

from __future__ import annotations


def answered(messages: list[dict]) -> bool:
    """True when every ``tool_use`` is answered by the ``tool_result`` blocks of the next message, in the calls' order.

    The API refuses a conversation with an unanswered ``tool_use``; the order is what the exercises ask for.
    """
    for i, m in enumerate(messages):
        content = m.get("content") if isinstance(m, dict) else None
        ids = [b.get("id") for b in content or () if isinstance(b, dict) and b.get("type") == "tool_use"]
        if ids:
            after = messages[i + 1].get("content") if i + 1 < len(messages) else None
            if not isinstance(after, list) or [b.get("tool_use_id") for b in after if isinstance(b, dict)] != ids:
                return False
    return True
