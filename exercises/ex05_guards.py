"""Graded exercises for notebook 05 (who decides "done"). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Changed: exercise 5.1 was `first_repeat`, the repeated-call check alone; it is now one of the guards of
`run_guarded`, which was 5.2 and is now 5.1 (6 points, the two exercises' 3 + 3).
"""

from __future__ import annotations

from typing import Any, Callable

from agentlab.tools import run_tool, toolset


def run_guarded(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    max_seconds: float,
    max_idle_turns: int,
    max_repeats: int,
    clock: Callable[[], float],
    max_turns: int = 20,
) -> tuple[list[dict], str]:
    """Exercise 5.1: your agent loop (exercise 2.1), ended by the harness when the model will not end it.

    A model only decides whether it wants another tool. One that is slow, asks for the same thing again and
    again, or keeps asking without getting anywhere, runs until a rule outside it says stop. Give your loop
    three such rules, plus the turn limit:

    - wall clock: no model call starts once `max_seconds` have passed since the run began. Read the time
      only from `clock()` (seconds): the tests move it.
    - repeated call: once the model has asked for the same call `max_repeats` times (the same tool with the
      same input; the order of a dict's keys, at any depth, does not make it a different call), that request is still run and
      answered, and no model call follows.
    - no progress: a turn makes progress when one of its tool results is a success (not is_error) whose text
      the run has not seen before; once `max_idle_turns` turns in a row made none, no model call follows.
    - never more than `max_turns` model calls.

    Checks come before each model call (a call already running is never cut short), and the conversation
    you return stays one the API accepts (every tool_use answered). Return (messages, why): why is the
    model's own stop_reason when it stopped asking for tools, else the name notebook 05's runs stop with:
    "max_turns", "max_wall_time", "repeated_call" or "no_progress" (when two rules would stop the same
    call, the first in that list). Write the loop and the guards yourself: agentlab.run_agent,
    agentlab.execute_tools and agentlab.guards fail the tests.
    """
    ### BEGIN SOLUTION
    import json

    by_name = toolset(tools)
    messages: list[dict] = [{"role": "user", "content": task}]
    started, seen, idle, asked = clock(), set(), 0, {}
    for _ in range(max_turns):
        if clock() - started >= max_seconds:
            return messages, "max_wall_time"
        if asked and max(asked.values()) >= max_repeats:
            return messages, "repeated_call"
        if idle >= max_idle_turns:
            return messages, "no_progress"
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=[t.spec() for t in tools])
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            return messages, reply.stop_reason
        results, progress = [], False
        for block in (b for b in content if b["type"] == "tool_use"):
            call = block["name"] + " " + json.dumps(block.get("input"), sort_keys=True)
            asked[call] = asked.get(call, 0) + 1
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
