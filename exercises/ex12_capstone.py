"""Graded exercises for notebooks 12 (the capstone: 12.1-12.3) and 12b (when agents multiply: 12.4).

Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Exercises 12.1 to 12.3 get a trace's events: a list of dicts, the header first, then one dict per event,
the last one the `stop` event. Read a trace file into that list with plain JSON (one
`json.loads(line)` per line of the file) or with `agentlab.read_trace(path)`, which does only that
and checks the header. The answers are yours to compute: the lab's helpers that would read them off
for you (the swim-lane steps, the turn frames, the run totals of `capstone.course_table`, the price
functions) fail these tests when your code calls them.

Exercise 12.4 gets a client instead, and builds the fan-out whose cost notebook 12b measures.
"""

from __future__ import annotations

from typing import Any


def who_chose(events: list[dict]) -> list[dict]:
    """Exercise 12.1: for every step that ran a tool, say who chose it: the model or the code.

    The steps are the `tool_call` and `code_step` events, in trace order. Return one dict per step:
    {"name": <the tool's name>, "chosen_by": "model" or "code"}. A `tool_call` was chosen by the
    model when its "id" is the "id" of a `tool_use` block in the "content" of an earlier `response`
    event (the model asked for exactly that call); otherwise your code ran it on its own, and so
    did every `code_step` (a workflow's fixed path).

    练习 12.1：对每个运行了工具的步骤，说出是谁选择了它：模型还是代码。
    步骤就是 `tool_call` 和 `code_step` 事件，按 trace 中的顺序。每个步骤返回一个 dict：{"name": <工具名>,
    "chosen_by": "model" 或 "code"}。一个 `tool_call` 的 "id" 如果等于某个更早的 `response` 事件的 "content" 中某个
    `tool_use` 块的 "id"（模型请求的正是这个调用），它就是模型选择的；否则就是你的代码自己运行的，每个 `code_step`（
    workflow 的固定路径）也是。
    """
    ### BEGIN SOLUTION
    asked: set[str] = set()
    steps = []
    for e in events[1:]:
        kind = e.get("event")
        if kind == "response":
            asked |= {b["id"] for b in e.get("content", []) if b.get("type") == "tool_use" and "id" in b}
        elif kind == "tool_call":
            steps.append({"name": e.get("name"), "chosen_by": "model" if e.get("id") in asked else "code"})
        elif kind == "code_step":
            steps.append({"name": e.get("name"), "chosen_by": "code"})
    return steps
    ### END SOLUTION


def what_stopped(events: list[dict]) -> dict:
    """Exercise 12.2: say what stopped the run, and who decided it.

    Return {"reason": <the stop event's "reason">, "decided_by": ..., "guard": ..., "observed": ...,
    "limit": ...}. "decided_by" is "harness" when the stop event names a "guard" (a limit in the
    loop's code ended it); otherwise "model" when the last `response` event's "stop_reason" equals
    the stop reason (the model's own reply ended the loop, e.g. "end_turn"); otherwise "code" (a
    workflow's fixed path finished, or an error ended it). "guard", "observed" and "limit" are the
    stop event's fields of those names, or None when it has none.

    练习 12.2：说出是什么让运行停下的，又是谁决定的。
    返回 {"reason": <stop 事件的 "reason">, "decided_by": ..., "guard": ..., "observed": ..., "limit": ...}。stop 事
    件点出了一个 "guard"（循环代码里的某个上限结束了它）时，"decided_by" 是 "harness"；否则，最后一个 `response` 事
    件的 "stop_reason" 等于 stop 事件的 "reason" 时（模型自己的回复结束了循环，例如 "end_turn"），"decided_by" 是
    "model"；否则是 "code"（workflow 的固定路径走完了，或者一个错误结束了它）。"guard"、"observed" 和 "limit" 是 stop
    事件中同名的字段，没有时为 None。
    """
    ### BEGIN SOLUTION
    stop = events[-1]
    responses = [e for e in events[1:] if e.get("event") == "response"]
    if stop.get("guard") is not None:
        by = "harness"
    elif responses and responses[-1].get("stop_reason") == stop.get("reason"):
        by = "model"
    else:
        by = "code"
    return {
        "reason": stop.get("reason"),
        "decided_by": by,
        "guard": stop.get("guard"),
        "observed": stop.get("observed"),
        "limit": stop.get("limit"),
    }
    ### END SOLUTION


def extra_turn_cost(events: list[dict], prices: dict) -> dict:
    """Exercise 12.3: what the first and the last model call cost, in tokens and in USD.

    The model calls are the `response` events, in order; each carries the API's "usage" dict.
    A call's tokens are its "input_tokens" + "output_tokens" + "cache_read_input_tokens" +
    "cache_creation_input_tokens" (missing or None counts as 0). Its USD cost prices them with
    `prices`, USD per million tokens under "input", "output", "cache_read" and "cache_write".
    Return {"calls": <number of model calls>, "first_tokens": ..., "last_tokens": ...,
    "first_usd": ..., "last_usd": ..., "growth": last_tokens / first_tokens}.
    A trace without model calls raises ValueError saying so.

    练习 12.3：第一次和最后一次模型调用花了多少，以 token 和 USD 计。
    模型调用就是 `response` 事件，按顺序；每个都带着 API 的 "usage" dict。一次调用的 token 是它的 "input_tokens" +
    "output_tokens" + "cache_read_input_tokens" + "cache_creation_input_tokens"（缺失或为 None 的算 0）。它的 USD 费
    用用 `prices` 给这些 token 计价，即 "input"、"output"、"cache_read" 和 "cache_write" 下每百万 token 的 USD。返回
    {"calls": <模型调用次数>, "first_tokens": ..., "last_tokens": ..., "first_usd": ..., "last_usd": ..., "growth":
    last_tokens / first_tokens}。没有模型调用的 trace 要抛出 ValueError 说明这一点。
    """
    ### BEGIN SOLUTION
    usages = [e.get("usage") or {} for e in events[1:] if e.get("event") == "response"]
    if not usages:
        raise ValueError("extra_turn_cost: the trace has no response events (no model calls)")

    def n(u: dict, key: str) -> int:
        return u.get(key) or 0

    def tokens(u: dict) -> int:
        return sum(
            n(u, k) for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )

    def usd(u: dict) -> float:
        return (
            n(u, "input_tokens") * prices["input"]
            + n(u, "output_tokens") * prices["output"]
            + n(u, "cache_read_input_tokens") * prices["cache_read"]
            + n(u, "cache_creation_input_tokens") * prices["cache_write"]
        ) / 1_000_000

    first, last = usages[0], usages[-1]
    return {
        "calls": len(usages),
        "first_tokens": tokens(first),
        "last_tokens": tokens(last),
        "first_usd": usd(first),
        "last_usd": usd(last),
        "growth": tokens(last) / tokens(first),
    }
    ### END SOLUTION


def fan_out(client: Any, model: str, task: str, parts: list[str]) -> dict:
    """Exercise 12.4: orchestrator-workers by hand: one worker per part, each in a window of its own, then a join.

    Each worker call gets `task` and its one part, and nothing of the other parts: that is what a clean
    window buys. The join call gets `task` and the workers' answers, in the parts' order. Workers may run at
    the same time. Return {"answers": [each worker's text, in the parts' order], "final": the join's text,
    "input_tokens": {"workers": their sum, "join": the join's}}, read from each reply's usage. No parts:
    raise ValueError naming the argument. (When every part needs the same long `task`, each worker reads it
    again: compare what the workers sent with one call given every part.)

    练习 12.4：亲手写编排者-工作者：每个部分一个工作者，各用一个自己的窗口，最后汇总。
    每个工作者调用得到 `task` 和它自己的那一部分，得不到其他部分的任何内容：这就是干净的窗口换来的东西。汇总调用得到
    `task` 和各工作者的答案，按部分的顺序。工作者可以同时运行。返回 {"answers": [每个工作者的文本，按部分的顺序],
    "final": 汇总的文本, "input_tokens": {"workers": 它们的总和, "join": 汇总的}}，从每次回复的用量中读出。没有部分
    时：抛出 ValueError，点出这个参数。（当每个部分都需要同一个很长的 `task` 时，每个工作者都要再读一遍：把各工作者
    发送的和一次给出所有部分的调用比一比。）
    """
    ### BEGIN SOLUTION
    if not parts:
        raise ValueError(f"fan_out(parts={parts!r}): give at least one part")
    from concurrent.futures import ThreadPoolExecutor

    def ask(text: str) -> tuple[str, int]:
        reply = client.messages.create(model=model, max_tokens=512, messages=[{"role": "user", "content": text}])
        return "".join(b.text for b in reply.content if b.type == "text"), reply.usage.input_tokens

    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        done = list(pool.map(lambda part: ask(f"{task}\n\n{part}"), parts))
    answers = [text for text, _ in done]
    final, join_tokens = ask(task + "\n\n" + "\n\n".join(answers))
    return {
        "answers": answers,
        "final": final,
        "input_tokens": {"workers": sum(n for _, n in done), "join": join_tokens},
    }
    ### END SOLUTION
