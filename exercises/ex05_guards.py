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
