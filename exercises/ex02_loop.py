"""Graded exercises for notebooks 02 (the loop: 2.1) and 02b (where the tokens go: 2.2). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any

from agentlab.tools import Tool, run_tool, toolset


def run_loop(client: Any, task: str, tools: list[Tool], model: str, max_turns: int = 10) -> list[dict]:
    """Exercise 2.1: write the agent loop and return the conversation.

    Start from messages = [{"role": "user", "content": task}]. Each turn: call
    client.messages.create(model=model, max_tokens=1024, messages=messages,
    tools=[t.spec() for t in tools]); append {"role": "assistant", "content": [blocks as dicts]}
    (block.model_dump(mode="json", exclude_none=True)); if stop_reason is not "tool_use",
    return messages; otherwise append ONE user message answering every tool_use id (failures
    with "is_error": True) and go on. Never make more than max_turns model calls.
    Write the loop yourself: agentlab.run_agent and agentlab.execute_tools are the lab's own
    versions, and calling them from here fails the tests (run_tool, or your answer_tool_calls
    from exercise 1.1, is fine).
    """
    ### BEGIN SOLUTION
    by_name = toolset(tools)
    messages: list[dict] = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=[t.spec() for t in tools])
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        results = []
        for block in content:
            if block["type"] == "tool_use":
                out = run_tool(by_name, block["name"], block["input"])
                result = {"type": "tool_result", "tool_use_id": block["id"], "content": out.content}
                if out.is_error:
                    result["is_error"] = True
                results.append(result)
        messages.append({"role": "user", "content": results})
    return messages
    ### END SOLUTION


def reprefill_per_turn(events: list[dict]) -> list[int]:
    """Exercise 2.2: count the re-prefill tokens of each model call from a trace.

    `events` is what agentlab.read_trace(path) returns. Use the "response" events, in order:
    each has "usage" with "input_tokens" and "output_tokens". The first call re-sends nothing
    (0). Call k re-sends everything call k-1 sent and generated: input_tokens + output_tokens of
    call k-1, but never more than call k's own input_tokens. Return one number per call.
    """
    ### BEGIN SOLUTION
    usages = [e["usage"] for e in events if e.get("event") == "response"]
    out = []
    for k, usage in enumerate(usages):
        if k == 0:
            out.append(0)
            continue
        prev = usages[k - 1]
        out.append(min(usage["input_tokens"], prev["input_tokens"] + prev["output_tokens"]))
    return out
    ### END SOLUTION
