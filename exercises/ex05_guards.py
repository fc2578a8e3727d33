"""Graded exercises for notebook 05 (who decides "done"). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any


def first_repeat(calls: list[tuple[str, Any]], k: int) -> int | None:
    """Exercise 5.1: find the call that makes one tool call reach k requests.

    `calls` is the run's tool calls in order, each `(tool name, input)`; the input is a dict
    (possibly nested) or None. Two calls are the same when the name is the same and the input is the
    same JSON value, whatever the order of dict keys. Return the 0-based position in `calls` of the
    first call that is the k-th request of the same call, or None if no call reaches k.
    Raise ValueError (naming k and its value) if k is not a whole number >= 1.
    """
    ### BEGIN SOLUTION
    import json

    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got k={k!r}")
    seen: dict[str, int] = {}
    for i, (name, tool_input) in enumerate(calls):
        key = name + " " + json.dumps(tool_input, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == k:
            return i
    return None
    ### END SOLUTION


ACTIONS = ("run tools", "send back", "check done", "continue", "raise max_tokens", "stop")
"""What a harness can do after a reply (Exercise 5.2)."""


def next_action(stop_reason: str, content: list[dict]) -> str:
    """Exercise 5.2: decide what the harness does next after a reply, from its stop_reason and content.

    `content` is the reply's content blocks as dicts (`{"type": "text", ...}`, `{"type": "tool_use", ...}`).
    Return one of ACTIONS:
    - "tool_use": "run tools" (run every tool_use block, then call the model again);
    - "pause_turn": "send back" (a server tool paused the turn: send the reply back as it is);
    - "end_turn" and "stop_sequence": "check done" (the model's turn is over; whether the task is
      done is the harness's to check);
    - "max_tokens": "raise max_tokens" if the reply was writing a tool call (its last block is a
      tool_use, whose input may be cut) or holds nothing at all; "continue" if it ends in text;
    - "refusal" and "model_context_window_exceeded": "stop" (whatever the content holds).
    Raise ValueError (naming stop_reason and its value) for any other stop_reason.
    """
    ### BEGIN SOLUTION
    fixed = {
        "tool_use": "run tools",
        "pause_turn": "send back",
        "end_turn": "check done",
        "stop_sequence": "check done",
        "refusal": "stop",
        "model_context_window_exceeded": "stop",
    }
    if isinstance(stop_reason, str) and stop_reason in fixed:
        return fixed[stop_reason]
    if stop_reason != "max_tokens":
        raise ValueError(
            f"stop_reason={stop_reason!r} is not one this harness knows; expected one of "
            f"{sorted([*fixed, 'max_tokens'])}"
        )
    if not content or content[-1].get("type") == "tool_use":
        return "raise max_tokens"
    return "continue"
    ### END SOLUTION
