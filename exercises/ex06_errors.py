"""Graded exercises for notebook 06 (error recovery). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

import json
from typing import Any

from agentlab.tools import Tool


def readable_schema_error(tool: Tool, tool_input: Any) -> str:
    """Exercise 6.1: write the readable error for an input that breaks the tool's schema.

    `tool.input_schema` is a JSON schema with "properties" (each with a "type") and "required". The
    message must: name the tool; name each required field that is missing (in single quotes, e.g.
    'city'); show what was received (the input as JSON); list every valid field with its type, as
    `name (type)`; and end with a line `Example: {...}`, a JSON object with every required field
    set to a value of the right type (strings "example", integers 1, numbers 1.0, booleans true).
    Do not include a Python traceback.

    练习 6.1：为违反工具 schema 的输入写出可读的错误消息。
    `tool.input_schema` 是一个 JSON schema，有 "properties"（每个都有 "type"）和 "required"。消息必须：点出工具名；
    点出每个缺少的必填字段（用单引号，例如 'city'）；展示收到了什么（以 JSON 表示的输入）；以 `name (type)` 的形式列
    出每个有效字段及其类型；最后一行是 `Example: {...}`，一个 JSON 对象，每个必填字段都设成类型正确的值（字符串
    "example"、整数 1、number 1.0、布尔值 true）。不要包含 Python traceback。
    """
    ### BEGIN SOLUTION
    props = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    got = tool_input if isinstance(tool_input, dict) else {}
    missing = [f"'{f}'" for f in required if f not in got]
    samples = {"string": "example", "integer": 1, "number": 1.0, "boolean": True}
    example = {f: samples.get(props.get(f, {}).get("type"), "example") for f in required}
    fields = ", ".join(f"{n} ({p.get('type', 'any')})" for n, p in props.items())
    head = (
        f"Invalid input for {tool.name}: missing required field {', '.join(missing)}."
        if missing
        else f"Invalid input for {tool.name}."
    )
    return (
        f"{head} Received: {json.dumps(tool_input, ensure_ascii=False)}. Valid fields: {fields}. "
        f"Send the fields the tool needs and try again.\nExample: {json.dumps(example, ensure_ascii=False)}"
    )
    ### END SOLUTION


def simplest_design(designs: list[dict], target: float) -> str | None:
    """Exercise 6.2: choose the simplest design whose predicted task success meets the target.

    Each design is a dict with "name", "steps" (how many dependent steps the task takes: every one
    must succeed), "p_step" (the chance one attempt of a step succeeds) and, optionally, "retries"
    (how many more attempts a failed step gets, because its error is readable; 0 when absent).
    Predict each design's task success assuming independent attempts: a step succeeds unless all of
    its 1 + retries attempts fail, and the task succeeds only if every step does. The simplest design
    is the one with the fewest steps; among designs with as many steps, the one listed first.
    Return the name of the simplest design whose predicted success is at least `target`, or None
    when no design reaches it. Do not change `designs`.

    练习 6.2：选出预测的任务成功率达到目标的最简单的设计。
    每个设计是一个 dict，有 "name"、"steps"（任务要走多少个相互依赖的步骤：每一步都必须成功）、"p_step"（一个步骤尝
    试一次成功的概率），以及可选的 "retries"（失败的步骤因为错误消息可读而再得到几次尝试；没有时为 0）。假设各次尝试
    相互独立，预测每个设计的任务成功率：一个步骤只有在 1 + retries 次尝试全部失败时才失败，任务只有在每一步都成功时
    才成功。最简单的设计是步骤最少的那个；步骤一样多时，取列在前面的那个。返回预测成功率至少为 `target` 的最简单设计
    的名字；没有设计达到时返回 None。不要修改 `designs`。
    """

    ### BEGIN SOLUTION
    def success(design: dict) -> float:
        fail_all = (1 - design["p_step"]) ** (1 + design.get("retries", 0))
        return (1 - fail_all) ** design["steps"]

    good = [(d["steps"], i, d["name"]) for i, d in enumerate(designs) if success(d) >= target]
    return min(good)[2] if good else None
    ### END SOLUTION
