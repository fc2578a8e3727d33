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

    练习 5.1：你的 agent 循环（练习 2.1），在模型不肯结束时由 harness 结束。
    模型只决定它是否还想要一个工具。一个很慢、一遍又一遍请求同样的东西、或者一直请求却毫无进展的模型，会一直运行，直
    到它之外的某条规则叫停。给你的循环加上三条这样的规则，再加上轮数上限：
    - 挂钟时间：从运行开始已经过了 `max_seconds` 秒（正好等于也算）时，不再开始任何模型调用。只从 `clock()`（秒）读
      时间：测试会拨动它。
    - 重复调用：模型请求同一个调用（同一个工具、同样的输入；dict 的键在任何一层换个顺序都不算不同的调用）达到
      `max_repeats` 次时，这个请求仍然要运行并回答，之后不再调用模型。
    - 没有进展：一轮中只要有一个工具结果是成功的（不是 is_error）、而且它的文本本次运行没见过，这一轮就有进展；连续
      `max_idle_turns` 轮都没有进展时，不再调用模型。
    - 模型调用绝不超过 `max_turns` 次。检查在每次模型调用之前进行（已经在运行的调用从不被打断），你返回的对话仍是 API
      会接受的样子（每个 tool_use 都得到回答）。返回 (messages, why)：模型不再请求工具时，why 是模型自己的
      stop_reason，否则是第 05 本的运行停下时用的名字："max_turns"、"max_wall_time"、"repeated_call" 或 "no_progress"
      （两条规则都要拦下同一次调用时，取这个列表中靠前的那个）。循环和 guard 要自己写：agentlab.run_agent、
      agentlab.execute_tools 和 agentlab.guards 会让测试失败。
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
