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

    练习 2.1：写出 agent 循环，返回对话。
    从 messages = [{"role": "user", "content": task}] 开始。每一轮：调用 client.messages.create(model=model,
    max_tokens=1024, messages=messages, tools=[t.spec() for t in tools])；追加 {"role": "assistant", "content": [各
    个块的 dict]}（block.model_dump(mode="json", exclude_none=True)）；如果 stop_reason 不是 "tool_use"，就返回
    messages；否则追加一条 user 消息，回答每一个 tool_use id（失败的带上 "is_error": True），然后继续。模型调用次数
    绝不超过 max_turns。循环要自己写：agentlab.run_agent 和 agentlab.execute_tools 是实验室自己的版本，在这里调用它
    们会让测试失败（run_tool，或者你在练习 1.1 里写的 answer_tool_calls，可以用）。
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

    练习 2.2：从一份 trace 算出每次模型调用 re-prefill 的 token 数。
    `events` 是 agentlab.read_trace(path) 的返回值。按顺序使用其中的 "response" 事件：每个都带有 "usage"，里面有
    "input_tokens" 和 "output_tokens"。第一次调用什么也不重新发送（0）。第 k 次调用重新发送第 k-1 次调用发送和生成的
    全部内容：第 k-1 次调用的 input_tokens + output_tokens，但绝不超过第 k 次调用自己的 input_tokens。每次调用返回一
    个数。
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
