"""Graded exercises for notebooks 04 and 04b (the five workflow patterns): 4.1 routing (04), 4.2 the evaluator
(04b). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

import json
from typing import Any, Callable


def route_ticket(client: Any, ticket: str, routes: dict[str, str], fallback: str, model: str) -> dict:
    """Exercise 4.1: write a router with a fallback.

    Classify: one call, client.messages.create(model=model, max_tokens=64, system="Classify the
    ticket.", messages=[{"role": "user", "content": ticket}], output_config={"format": {"type":
    "json_schema", "schema": {"type": "object", "properties": {"label": {"type": "string", "enum":
    [*routes, "other"]}}, "required": ["label"]}}}); the label is json.loads(first text)["label"].
    Branch: one call with the same messages (no output_config) and system=routes[label].
    A label that is not a key of routes, or a reply that is not JSON with a "label", must not
    raise: answer with system=fallback instead. Return {"label": <label, or None if unreadable>,
    "branch": <the route key used, or "fallback">, "reply": <the branch's first text block>}.

    练习 4.1：写一个带兜底分支（fallback）的路由器。
    分类：一次调用，client.messages.create(model=model, max_tokens=64, system="Classify the ticket.",
    messages=[{"role": "user", "content": ticket}], output_config={"format": {"type": "json_schema", "schema":
    {"type": "object", "properties": {"label": {"type": "string", "enum": [*routes, "other"]}}, "required":
    ["label"]}}})；标签是 json.loads(第一个文本)["label"]。分支：用同样的 messages（不带 output_config）和
    system=routes[label] 调用一次。标签不是 routes 的键，或者回复不是带 "label" 的 JSON 时，都不能抛出异常：改用
    system=fallback 作答。返回 {"label": <标签；读不出来时为 None>, "branch": <用到的路由键，或 "fallback">, "reply":
    <分支的第一个文本块>}。
    """
    ### BEGIN SOLUTION
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": [*routes, "other"]}},
        "required": ["label"],
    }
    messages = [{"role": "user", "content": ticket}]
    first = client.messages.create(
        model=model,
        max_tokens=64,
        system="Classify the ticket.",
        messages=messages,
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    try:
        label = json.loads(first.content[0].text)["label"]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        label = None
    branch = label if isinstance(label, str) and label in routes else "fallback"
    system = routes[branch] if branch != "fallback" else fallback
    reply = client.messages.create(model=model, max_tokens=256, system=system, messages=messages)
    return {"label": label, "branch": branch, "reply": reply.content[0].text}
    ### END SOLUTION


def bounded_loop(
    generate: Callable[[str, str | None], str],
    evaluate: Callable[[str, str], tuple[str, str]],
    task: str,
    max_rounds: int,
) -> dict:
    """Exercise 4.2: bound the cookbook's `while True` evaluator loop and report why it stopped.

    The cookbook loop: result = generate(task, None); then forever: status, feedback =
    evaluate(task, result); if status == "PASS" return result; result = generate(task, feedback).
    Yours makes at most max_rounds evaluations (and so never more than max_rounds generations).
    max_rounds must be a whole number >= 1: otherwise raise ValueError naming max_rounds and the value.
    Return {"result": the last result, "rounds": evaluations made, "stopped_because": "accepted" or
    "max_rounds", "feedback": the last feedback ("" when accepted)}.

    练习 4.2：给 cookbook 里 `while True` 的评估者循环加上边界，并报告它为何停止。
    cookbook 的循环：result = generate(task, None)；然后一直重复：status, feedback = evaluate(task, result)；如果
    status == "PASS" 就返回 result；result = generate(task, feedback)。你的循环最多评估 max_rounds 次（因此生成也绝
    不超过 max_rounds 次）。max_rounds 必须是 >= 1 的整数：否则抛出 ValueError，点出 max_rounds 和它的值。返回
    {"result": 最后的结果, "rounds": 评估的次数, "stopped_because": "accepted" 或 "max_rounds", "feedback": 最后一次
    的反馈（接受时为 ""）}。
    """
    ### BEGIN SOLUTION
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a whole number >= 1, got {max_rounds!r}")
    result = generate(task, None)
    feedback = ""
    for rnd in range(1, max_rounds + 1):
        status, feedback = evaluate(task, result)
        if status == "PASS":
            return {"result": result, "rounds": rnd, "stopped_because": "accepted", "feedback": ""}
        if rnd < max_rounds:
            result = generate(task, feedback)
    return {"result": result, "rounds": max_rounds, "stopped_because": "max_rounds", "feedback": feedback}
    ### END SOLUTION
