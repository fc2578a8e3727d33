"""Graded exercises for notebook 11 (untrusted content). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Changed: exercise 11.2 was `suite_metrics` and 11.3 `reachable_goals` (the notebook computes both);
11.2 is now `run_with_approval`, your loop with an approval gate, worth the 4 points of the two.
"""

from __future__ import annotations

from typing import Any, Callable


def tainted_field(tool_input: dict, untrusted_texts: list[str], min_chars: int = 12) -> str | None:
    """Exercise 11.1: the data-flow check: does a call's input carry text from an untrusted result?

    `tool_input` is the input the model sent (a dict: field name -> value). `untrusted_texts` holds
    the text of every untrusted tool result seen so far in the run. A string field is *tainted* when
    some run of at least `min_chars` consecutive characters of it also appears, exactly (case
    matters), in one of the untrusted texts. Return the name of the first tainted field, in the
    dict's order, or None when no field is tainted. Fields that are not strings are never tainted.
    Raise ValueError (naming min_chars and its value) if min_chars is not a whole number >= 1.

    练习 11.1：数据流检查：一个调用的输入是否带有来自不可信结果的文字？
    `tool_input` 是模型发送的输入（一个 dict：字段名 -> 值）。`untrusted_texts` 装着本次运行到目前为止见过的每个不可
    信工具结果的文本。一个字符串字段中，只要有一段至少 `min_chars` 个连续字符也原样（区分大小写）出现在某个不可信文
    本里，它就是*被污染的*。按 dict 的顺序返回第一个被污染字段的名字；没有字段被污染时返回 None。不是字符串的字段永
    远不会被污染。min_chars 不是 >= 1 的整数时，抛出 ValueError（点出 min_chars 和它的值）。
    """
    ### BEGIN SOLUTION
    if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < 1:
        raise ValueError(f"min_chars must be a whole number >= 1, got min_chars={min_chars!r}")
    for field, value in tool_input.items():
        if not isinstance(value, str):
            continue
        for start in range(len(value) - min_chars + 1):
            window = value[start : start + min_chars]
            if any(window in text for text in untrusted_texts):
                return field
    return None
    ### END SOLUTION


def run_with_approval(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    side_effects: set[str],
    approve: Callable[[str, dict], bool],
    max_turns: int = 10,
) -> tuple[list[dict], list[str]]:
    """Exercise 11.2: your agent loop (exercise 2.1) with a person in it: calls that change the world wait for a yes.

    A model that reads a third party's text may have been told to do things by it, and nothing in the
    model's reply says so. The harness can still decide what runs. Before your loop runs a call of a
    tool named in `side_effects`, it asks `approve(name, tool_input)`; a call that is not approved does
    not run, and the model gets an error result for it that says which tool the user did not approve, so
    it can go on without it. Reading tools run without asking. An approver that raises gave no yes: that
    call is refused like any other, and the run goes on.

    Return (messages, refused): the conversation (every tool_use answered, in its order: it ends with the
    model's last reply, or with the results of its last requests when `max_turns` ends the run) and the
    names of the refused calls, in the order they were asked for.
    Write the loop and the gate yourself: agentlab.run_agent, agentlab.execute_tools and the lab's
    gates (`GatedExecutor`, `Confirmation`) fail the tests.

    练习 11.2：你的 agent 循环（练习 2.1），循环里有一个人：改变外部世界的调用要等他同意。
    一个读了第三方文字的模型，可能已经被那段文字指使去做某些事，而模型的回复里不会说出来。harness 仍然可以决定运行什
    么。你的循环在运行 `side_effects` 中列出的工具的调用之前，先询问 `approve(name, tool_input)`；没有被批准的调用不
    运行，模型会为它收到一个错误结果，说明用户没有批准哪个工具，这样它可以不用这个工具继续下去。只读的工具不问就运行。
    一个抛出异常的审批者没有说“是”：那次调用和其他被拒绝的调用一样被拒绝，运行继续。

    返回 (messages, refused)：对话（每个 tool_use 都按顺序得到回答：它以模型的最后一次回复结束，或者在 `max_turns` 结
    束运行时，以它最后那些请求的结果结束），以及被拒绝的调用的名字，按它们被请求的顺序。循环和门控要自己写：
    agentlab.run_agent、agentlab.execute_tools 和实验室的门控（`GatedExecutor`、`Confirmation`）会让测试失败。
    """
    ### BEGIN SOLUTION
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    refused: list[str] = []
    for _ in range(max_turns):
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=specs)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        results = []
        for block in (b for b in content if b["type"] == "tool_use"):
            if block["name"] in side_effects:
                try:
                    allowed = approve(block["name"], block["input"]) is True
                except Exception:  # no answer is not a yes: the gate fails closed
                    allowed = False
                if not allowed:
                    refused.append(block["name"])
                    text = f"The user did not approve {block['name']}; it was not run. Go on without it."
                    results.append(
                        {"type": "tool_result", "tool_use_id": block["id"], "content": text, "is_error": True}
                    )
                    continue
            out = run_tool(by_name, block["name"], block["input"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": out.content})
            if out.is_error:
                results[-1]["is_error"] = True
        messages.append({"role": "user", "content": results})
    return messages, refused
    ### END SOLUTION
