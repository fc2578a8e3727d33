"""Graded exercises for notebook 01 (one round trip). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
Try them from the notebook with `from exercises.ex01_round_trip import answer_tool_calls`.
"""

from __future__ import annotations

import difflib

from agentlab.tools import Tool, run_tool


def answer_tool_calls(content: list[dict], tools: dict[str, Tool]) -> dict:
    """Exercise 1.1: answer every tool_use block in an assistant reply with one tool_result.

    `content` is the assistant message's content as a list of dicts (text and tool_use blocks).
    Return the next user message, {"role": "user", "content": [...]}, holding exactly one
    {"type": "tool_result", "tool_use_id": <id>, "content": <text>} per tool_use block, in the
    same order, with "is_error": True added when the tool failed. Run each tool with
    `run_tool(tools, name, input)`; it returns a ToolOutcome(content, is_error).
    Write this yourself: agentlab.execute_tools is the lab's own version, and calling it (or
    run_agent) from here fails the tests.

    练习 1.1：给助手回复里的每个 tool_use 块各回答一个 tool_result。
    `content` 是助手消息的内容，一个由 dict 组成的列表（文本块和 tool_use 块）。返回下一条 user 消息 {"role": "user",
    "content": [...]}，其中每个 tool_use 块正好对应一个 {"type": "tool_result", "tool_use_id": <id>, "content": <文
    本>}，顺序相同；工具失败时加上 "is_error": True。用 `run_tool(tools, name, input)` 运行每个工具，它返回
    ToolOutcome(content, is_error)。要自己写：agentlab.execute_tools 是实验室自己的版本，在这里调用它（或 run_agent）
    会让测试失败。
    """
    ### BEGIN SOLUTION
    results = []
    for block in content:
        if block.get("type") != "tool_use":
            continue
        outcome = run_tool(tools, block["name"], block["input"])
        result = {"type": "tool_result", "tool_use_id": block["id"], "content": outcome.content}
        if outcome.is_error:
            result["is_error"] = True
        results.append(result)
    return {"role": "user", "content": results}
    ### END SOLUTION


def format_tool_error(tool_name: str, field: str, value: str, valid: list[str]) -> str:
    """Exercise 1.2: write the message a model reads when it sent a tool a bad value.

    Name the tool, the field and the bad value; list the valid values that are closest to the
    bad one (at most 5, closest first; `difflib.get_close_matches` helps, with cutoff=0); and
    end with what to do: "Call <tool_name> again with one of these." At most 300 characters,
    no traceback.

    练习 1.2：写出模型给工具传了错误的值之后读到的消息。
    点出工具名、字段和错误的值；列出与错误值最接近的有效值（最多 5 个，最接近的在前；`difflib.get_close_matches` 可
    以帮忙，用 cutoff=0）；最后说明该怎么做："Call <tool_name> again with one of these." 最多 300 个字符，不要
    traceback。
    """
    ### BEGIN SOLUTION
    close = difflib.get_close_matches(value, valid, n=5, cutoff=0)
    return (
        f"{tool_name}: '{value}' is not a valid {field}. Valid values include: "
        f"{', '.join(close)}. Call {tool_name} again with one of these."
    )
    ### END SOLUTION
