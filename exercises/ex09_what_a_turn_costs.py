"""Graded exercises for notebook 09 (what a turn costs). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Changed: exercise 9.1 was `cost_by_hand`, one usage priced by a formula its docstring gave; it is now
`metered`, a meter of your own that prices every call as it is made (the same 4 points).
"""

from __future__ import annotations

from typing import Any, Callable


def metered(client: Any, prices: dict, ledger: list) -> Callable[..., Any]:
    """Exercise 9.1: a meter of your own: every model call priced as it is made.

    A harness cannot say what a run cost unless something sees every call: the lab's Meter sits between
    the code and the API and records each one. Build the same thing. Return a function `create(**request)`
    that makes the call through `client.messages.create(**request)` and returns its reply unchanged, and
    that appends to `ledger`, for each call the API answered, one dict:
    {"model": <the reply's model>, "input_tokens": ..., "output_tokens": ..., "usd": ...}.

    "input_tokens" is every input token the call was billed for: the usage object reports the uncached
    input, the cache reads and the cache writes apart, and `cache_creation` splits the writes by how long
    they live (5 minutes or 1 hour); on a call that used no cache, any of these may be None. "usd" prices each part at its own rate in `prices` (USD per million
    tokens: "input", "output", "cache_read", "cache_write_5m", "cache_write_1h"). A call the API refuses
    costs nothing, and its error reaches the caller as it was raised. The lab's Meter and its price
    functions fail the tests.

    练习 9.1：一个你自己的计量器：每次模型调用在发生时就被计价。
    除非有什么东西看见每一次调用，否则 harness 说不出一次运行花了多少：实验室的 Meter 位于代码和 API 之间，记录每一
    次调用。做一个同样的东西。返回一个函数 `create(**request)`：它通过 `client.messages.create(**request)` 发出调用
    并原样返回回复，并且对 API 回答的每次调用，向 `ledger` 追加一个 dict：{"model": <回复的 model>, "input_tokens": ...,
    "output_tokens": ..., "usd": ...}。

    "input_tokens" 是这次调用被计费的全部输入 token：usage 对象把未缓存的输入、缓存读取和缓存写入分开报告，
    `cache_creation` 再按存活时间（5 分钟或 1 小时）拆分写入；没有用到缓存的调用，其中任何一项都可能是 None。"usd" 按
    `prices` 中各自的费率给每一部分计价（每百万 token 的 USD："input"、"output"、"cache_read"、"cache_write_5m"、
    "cache_write_1h"）。被 API 拒绝的调用不花钱，它的错误按抛出时的样子传给调用者。实验室的 Meter 和它的计价函数会让
    测试失败。
    """

    ### BEGIN SOLUTION
    rate = {k: v / 1e6 for k, v in prices.items()}  # USD per token

    def create(**request: Any) -> Any:
        reply = client.messages.create(**request)
        usage = reply.usage
        read = usage.cache_read_input_tokens or 0
        written = usage.cache_creation_input_tokens or 0
        one_hour = getattr(usage.cache_creation, "ephemeral_1h_input_tokens", 0) or 0
        ledger.append(
            {
                "model": reply.model,
                "input_tokens": usage.input_tokens + read + written,
                "output_tokens": usage.output_tokens,
                "usd": usage.input_tokens * rate["input"]
                + usage.output_tokens * rate["output"]
                + read * rate["cache_read"]
                + (written - one_hour) * rate["cache_write_5m"]
                + one_hour * rate["cache_write_1h"],
            }
        )
        return reply

    return create
    ### END SOLUTION


def run_capped(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    max_usd: float,
    prices: dict,
    max_tokens: int = 1024,
    max_turns: int = 20,
) -> tuple[list[dict], str, float]:
    """Exercise 9.2: your loop (exercise 2.1), stopped before the call that would cross a dollar budget.

    Money is spent a call at a time, and a call cannot be taken back: so the check comes before each call,
    against that call's worst case, the input it would send (count it with client.messages.count_tokens)
    plus `max_tokens` of output, priced at `prices` (USD per million tokens, {"input": ..., "output": ...}).
    If what was spent so far plus that worst case would pass `max_usd`, make no call. After a call, add
    what it really cost, its usage at the same prices. Return (messages, why, spent): `why` is the model's
    stop_reason when it stopped asking for tools, else "max_usd" or "max_turns". The conversation you
    return stays one the API accepts. Write the loop and the check yourself: agentlab.run_agent,
    agentlab.execute_tools, agentlab.guards and the lab's price functions fail the tests.

    练习 9.2：你的循环（练习 2.1），在会越过美元预算的那次调用之前停下。
    钱是一次调用一次调用花出去的，而一次调用无法收回：所以检查要在每次调用之前，按这次调用最坏的情况来做：它将发送的
    输入（用 client.messages.count_tokens 数）加上 `max_tokens` 的输出，按 `prices` 计价（每百万 token 的 USD，
    {"input": ..., "output": ...}）。如果已经花掉的加上这个最坏情况会超过 `max_usd`，就不调用。一次调用之后，加上它
    真实的花费，即它的用量按同样的价格计算。返回 (messages, why, spent)：模型不再请求工具时，`why` 是模型的
    stop_reason，否则是 "max_usd" 或 "max_turns"。你返回的对话仍是 API 会接受的样子。循环和检查要自己写：
    agentlab.run_agent、agentlab.execute_tools、agentlab.guards 和实验室的计价函数会让测试失败。
    """
    ### BEGIN SOLUTION
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    spent = 0.0
    for _ in range(max_turns):
        sending = client.messages.count_tokens(model=model, messages=messages, tools=specs).input_tokens
        worst = (sending * prices["input"] + max_tokens * prices["output"]) / 1e6
        if spent + worst > max_usd:
            return messages, "max_usd", spent
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages, tools=specs)
        spent += (reply.usage.input_tokens * prices["input"] + reply.usage.output_tokens * prices["output"]) / 1e6
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            return messages, str(reply.stop_reason), spent
        results = []
        for block in content:
            if block["type"] == "tool_use":
                out = run_tool(by_name, block["name"], block["input"])
                results.append(
                    {"type": "tool_result", "tool_use_id": block["id"], "content": out.content}
                    | ({"is_error": True} if out.is_error else {})
                )
        messages.append({"role": "user", "content": results})
    return messages, "max_turns", spent
    ### END SOLUTION
