"""Graded exercises for notebooks 10 (context engineering: 10.1) and 10b (the other tactics: 10.2, 10.3).

Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Moved: `arrange_context` (it was exercise 10.3) is now exercise 8.3, in `ex08_react.py`, beside the
position-and-length section it belongs to; if you already wrote it here, copy it there. `plan_window`
(it was 10.4) is now 10.3. Exercise 10.1 was the trigger alone (`compact_now`); it is now the loop
around it (`run_compacting`).
"""

from __future__ import annotations

from typing import Any


def run_compacting(
    client: Any, task: str, tools: list[Any], model: str, *, threshold: int, max_turns: int = 30
) -> tuple[list[dict], int]:
    """Exercise 10.1: your agent loop (exercise 2.1), kept inside a context budget by compaction.

    Every call re-sends the whole history, so a long task outgrows any window. Before each call of the
    task, look at what the previous task call sent and wrote (its `usage`: input_tokens + output_tokens,
    as the API reported them). When that is more than `threshold`, compact first: one extra model call
    with no tools, whose system prompt asks for a summary of the conversation so far (sent as text), and
    then go on from a single user message that holds the summary. The simulated model answers a system
    prompt with the word "summarise", "summarize" or "summary" in it, and reads the temperatures from
    the text you send: `agentlab.context.compaction.transcript(messages)` renders a conversation the way
    it reads best (`SUMMARY_SYSTEM`, beside it, is the notebook's own summariser prompt).

    Return (messages, compactions): the conversation as your loop holds it at the end (every tool_use
    answered: it ends with the model's last reply, or with the results of its last requests when
    `max_turns` ends the run) and how many times it compacted. `max_turns` bounds the
    calls of the task; the summary calls are not turns. Write the loop and the trigger yourself:
    agentlab.run_agent, agentlab.execute_tools and the lab's Compaction fail the tests.

    练习 10.1：你的 agent 循环（练习 2.1），用压缩把它保持在上下文预算之内。
    每次调用都重新发送整个历史，所以一个长任务会撑破任何窗口。在任务的每次调用之前，看一看上一次任务调用发送和写出了
    多少（它的 `usage`：API 报告的 input_tokens + output_tokens）。超过 `threshold` 时，先压缩：额外调用一次模型，不
    带工具，它的系统提示要求总结到目前为止的对话（以文本发送），然后从一条装着这份总结的 user 消息继续。模拟模型会回
    应系统提示中含有 "summarise"、"summarize" 或 "summary" 一词的请求，并从你发送的文本里读出气温：
    `agentlab.context.compaction.transcript(messages)` 把对话渲染成它最容易读的样子（旁边的 `SUMMARY_SYSTEM` 是笔记
    本自己用的总结提示）。

    返回 (messages, compactions)：你的循环最后持有的对话（每个 tool_use 都得到回答：它以模型的最后一次回复结束，或者
    在 `max_turns` 结束运行时，以它最后那些请求的结果结束），以及压缩了几次。`max_turns` 限制任务的调用次数；总结调
    用不算轮次。循环和触发条件要自己写：agentlab.run_agent、agentlab.execute_tools 和实验室的 Compaction 会让测试失
    败。
    """
    ### BEGIN SOLUTION
    from agentlab.context.compaction import SUMMARY_SYSTEM, transcript
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    last, compactions = None, 0
    for _ in range(max_turns):
        if last is not None and last.input_tokens + last.output_tokens > threshold:
            summary = client.messages.create(
                model=model,
                max_tokens=1024,
                system=SUMMARY_SYSTEM,
                messages=[{"role": "user", "content": transcript(messages)}],
            )
            text = "".join(b.text for b in summary.content if b.type == "text")
            messages = [{"role": "user", "content": f"{text}\n\nContinue the task from this summary."}]
            compactions += 1
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=specs)
        last = reply.usage
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        results = []
        for block in (b for b in content if b["type"] == "tool_use"):
            out = run_tool(by_name, block["name"], block["input"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": out.content})
            if out.is_error:
                results[-1]["is_error"] = True
        messages.append({"role": "user", "content": results})
    return messages, compactions
    ### END SOLUTION


def clear_old_results(messages: list[dict], keep: int, placeholder: str = "[cleared]") -> list[dict]:
    """Exercise 10.2: clear all but the newest `keep` tool results, keeping the conversation valid.

    `messages` is an agent's history (user/assistant messages; content a string or a list of
    blocks). Return a NEW list (do not change `messages` or any of its dicts) in which the
    "content" of every `tool_result` block except the newest `keep` ones is `placeholder`.
    Everything else stays as it was: every `tool_use` block (its id, name, input), every
    `tool_result`'s `tool_use_id` and `is_error`, every text, the order of messages and blocks,
    so each tool_use is still answered by its tool_result in the next message.

    练习 10.2：除了最新的 `keep` 个工具结果，其余全部清除，同时保持对话有效。
    `messages` 是一个 agent 的历史（user/assistant 消息；内容是字符串或块的列表）。返回一个新的列表（不要修改
    `messages` 或其中任何 dict），其中除了最新的 `keep` 个之外，每个 `tool_result` 块的 "content" 都是 `placeholder`。
    其余一切保持原样：每个 `tool_use` 块（它的 id、name、input）、每个 `tool_result` 的 `tool_use_id` 和 `is_error`、
    每段文本、消息和块的顺序，这样每个 tool_use 仍然在下一条消息里由它的 tool_result 回答。
    """
    ### BEGIN SOLUTION
    ids = [
        b["tool_use_id"]
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    old = set(ids[: max(len(ids) - keep, 0)])
    out = []
    for m in messages:
        if not isinstance(m["content"], list):
            out.append(dict(m))
            continue
        out.append(
            {
                **m,
                "content": [
                    {**b, "content": placeholder}
                    if b.get("type") == "tool_result" and b["tool_use_id"] in old
                    else dict(b)
                    for b in m["content"]
                ],
            }
        )
    return out
    ### END SOLUTION


def plan_window(parts: list[dict], budget: int) -> dict[str, str]:
    """Exercise 10.3: choose what to keep, summarise or drop so the next call fits (a design decision).

    `parts` is the next call's window in request order, oldest history first. Each part is a dict:
    "name" (unique), "kind" (one of "tool_prompt", "tool_definitions", "system", "task", "history",
    "new"), "tokens" (its size) and, for history parts, "summary_tokens" (its size once summarised,
    smaller than "tokens") and "needed" (True when the answer still needs a fact only this part holds;
    a summary keeps that fact). Return {name: "keep" | "summarise" | "drop"} for every part, such that:
    1. the plan fits: the tokens of kept parts plus the summary_tokens of summarised ones are at most `budget`;
    2. every part that is not history is kept (without them the agent is a different agent, or has
       not seen what it just asked for), and only history parts are summarised or dropped;
    3. a needed part is never dropped;
    4. no room is wasted: no single part could move up one step (drop -> summarise, summarise -> keep)
       and still fit.
    Which parts give way first is your design: say why in a comment. When even the smallest plan
    (everything else dropped, needed parts summarised) does not fit, raise ValueError naming the
    budget and the smallest plan's tokens. Do not change `parts`.

    练习 10.3：决定保留、总结还是丢弃哪些部分，让下一次调用放得下（一个设计决定）。
    `parts` 是下一次调用的窗口，按请求顺序排列，最早的历史在前。每个部分是一个 dict："name"（唯一）、"kind"（
    "tool_prompt"、"tool_definitions"、"system"、"task"、"history"、"new" 之一）、"tokens"（它的大小），历史部分还有
    "summary_tokens"（总结之后的大小，比 "tokens" 小）和 "needed"（答案仍然需要只有这个部分才有的某个事实时为 True；
    总结会保留那个事实）。为每个部分返回 {name: "keep" | "summarise" | "drop"}，使得：
    1. 计划放得下：保留部分的 tokens 加上总结部分的 summary_tokens 不超过 `budget`；
    2. 每个不是历史的部分都保留（没有它们，agent 就成了另一个 agent，或者没看到它刚刚请求的东西），只有历史部分才会
       被总结或丢弃；
    3. 被需要的部分绝不丢弃；
    4. 不浪费空间：没有任何一个部分还能往上升一级（丢弃 -> 总结，总结 -> 保留）而仍然放得下。哪些部分先让路是你的设
       计：在注释里说明原因。连最小的计划（其余全部丢弃，被需要的部分总结）都放不下时，抛出 ValueError，点出预算和最
       小计划的 token 数。不要修改 `parts`。
    """
    ### BEGIN SOLUTION
    # Summarise what is needed, drop the rest, then give room back newest first: the newest turns are
    # what the model is reasoning from right now, the oldest results have usually been noted already.
    plan = {
        p["name"]: ("keep" if p["kind"] != "history" else "summarise" if p.get("needed") else "drop") for p in parts
    }
    size = {"keep": lambda p: p["tokens"], "summarise": lambda p: p["summary_tokens"], "drop": lambda p: 0}
    used = sum(size[plan[p["name"]]](p) for p in parts)
    if used > budget:
        raise ValueError(
            f"plan_window(budget={budget}): the smallest plan needs {used} tokens "
            "(fixed parts, the newest turn, needed parts summarised); raise the budget or shrink those parts"
        )
    for p in reversed([p for p in parts if p["kind"] == "history"]):
        for better in ("keep", "summarise"):  # the biggest step up that still fits
            now = plan[p["name"]]
            if better == now:
                break
            extra = size[better](p) - size[now](p)
            if used + extra <= budget:
                plan[p["name"]], used = better, used + extra
                break
    return plan
    ### END SOLUTION
