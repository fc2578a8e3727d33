"""Graded exercises for notebook 05 (who decides "done"). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any, Callable

from agentlab.tools import run_tool, toolset


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


def run_guarded(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    max_seconds: float,
    max_idle_turns: int,
    clock: Callable[[], float],
    max_turns: int = 20,
) -> tuple[list[dict], str]:
    """Exercise 5.2: your agent loop (exercise 2.1), ended by the harness when the model will not end it.

    A model only decides whether it wants another tool. One that is slow, or keeps asking without getting
    anywhere, runs until a rule outside it says stop. Give your loop two such rules, plus the turn limit:

    - wall clock: no model call starts once `max_seconds` have passed since the run began. Read the time
      only from `clock()` (seconds): the tests move it.
    - no progress: a turn makes progress when one of its tool results is a success (not is_error) whose text
      the run has not seen before; once `max_idle_turns` turns in a row made none, no model call follows.
    - never more than `max_turns` model calls.

    Checks come before each model call (a call already running is never cut short), and the conversation
    you return stays one the API accepts (every tool_use answered). Return (messages, why): why is the
    model's own stop_reason when it stopped asking for tools, else the name notebook 05's runs stop with:
    "max_wall_time", "no_progress" or "max_turns". Write the loop and the guards yourself: agentlab.run_agent,
    agentlab.execute_tools and agentlab.guards fail the tests.
    """
    ### BEGIN SOLUTION
    by_name = toolset(tools)
    messages: list[dict] = [{"role": "user", "content": task}]
    started, seen, idle = clock(), set(), 0
    for _ in range(max_turns):
        if clock() - started >= max_seconds:
            return messages, "max_wall_time"
        if idle >= max_idle_turns:
            return messages, "no_progress"
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=[t.spec() for t in tools])
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            return messages, reply.stop_reason
        results, progress = [], False
        for block in (b for b in content if b["type"] == "tool_use"):
            out = run_tool(by_name, block["name"], block.get("input"))
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": out.content})
            if out.is_error:
                results[-1]["is_error"] = True
            elif out.content not in seen:
                seen.add(out.content)
                progress = True
        messages.append({"role": "user", "content": results})
        idle = 0 if progress else idle + 1
    return messages, "max_turns"
    ### END SOLUTION
