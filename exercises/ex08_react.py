"""Graded exercises for notebooks 08 (ReAct vs native tool use: 8.1, 8.2) and 08b (position and length: 8.3).

Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any


def react_loop(client: Any, task: str, tools: list[Any], model: str, max_turns: int = 8) -> str | None:
    """Exercise 8.1: write the ReAct loop: the model writes each tool call as text; your code parses, acts, observes.

    No `tools=` goes to the API. The system prompt (agentlab.react.react_prompt(tools) writes one) asks the model
    for `Thought: ...`, `Action: <tool name>` and `Action Input: <JSON object>`, then to stop. Your code reads that
    action, runs the tool (agentlab.run_tool is fine) and answers with a user message starting `Observation: `;
    a reply with `Final Answer: <text>` ends the task, and that text is what you return.

    A model does not always stop where a prompt says: it may write on, invent the Observation itself and answer
    from it. Make sure every reply is cut before an Observation the model writes (the API can do it for you). A
    reply that is neither a well-formed action nor a final answer gets a message back saying what to write, and
    counts as a turn. Never more than `max_turns` model calls; return None if no final answer came by then.
    Write the loop and its parsing yourself: agentlab.react.run_react and agentlab.react.parse_action fail the tests.

    练习 8.1：写出 ReAct 循环：模型把每个工具调用写成文字；你的代码解析、执行、观察。
    不向 API 发送 `tools=`。系统提示（agentlab.react.react_prompt(tools) 会写一份）要求模型写出 `Thought: ...`、
    `Action: <tool name>` 和 `Action Input: <JSON object>`（尖括号里是工具名和 JSON 对象），然后停下。你的代码读出这
    个动作，运行工具（可以用 agentlab.run_tool），并用一条以 `Observation: ` 开头的 user 消息作答；带有
    `Final Answer: <text>` 的回复结束任务，你返回的就是那段文本。

    模型并不总在提示说的地方停下：它可能继续往下写，自己编造 Observation 并据此作答。确保每次回复都在模型自己写的
    Observation 之前被截断（API 可以替你做到）。既不是格式正确的动作、也不是最终答案的回复，要回一条消息说明该写什么，
    并算作一轮。模型调用绝不超过 `max_turns` 次；到那时还没有最终答案就返回 None。

    循环和解析要自己写：agentlab.react.run_react 和 agentlab.react.parse_action 会让测试失败。
    """
    ### BEGIN SOLUTION
    import json
    import re

    from agentlab.react import react_prompt
    from agentlab.tools import run_tool, toolset

    by_name = toolset(tools)
    messages: list[dict] = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        reply = client.messages.create(
            model=model,
            max_tokens=1024,
            system=react_prompt(tools, lang="en"),
            messages=messages,
            stop_sequences=["Observation:"],
        )
        text = "".join(b.text for b in reply.content if b.type == "text").strip()
        messages.append({"role": "assistant", "content": text or "(nothing)"})
        final = re.search(r"^Final Answer:\s*(.+)", text, re.M | re.S)
        action = re.search(r"^Action:\s*(\S+)\s*\n\s*Action Input:\s*(\{.*\})\s*\Z", text, re.M | re.S)
        if action:
            try:
                tool_input = json.loads(action.group(2))
            except ValueError:
                tool_input = None
            if isinstance(tool_input, dict):
                out = run_tool(by_name, action.group(1), tool_input)
                messages.append({"role": "user", "content": f"Observation: {out.content}"})
                continue
        if final:
            return final.group(1).strip()
        messages.append(
            {
                "role": "user",
                "content": "Format error: write 'Action: <tool name>' and 'Action Input: <a JSON object>' on two "
                "lines, then stop; or 'Final Answer: <the answer>'.",
            }
        )
    return None
    ### END SOLUTION


def describe_lookup() -> tuple[str, str]:
    """Exercise 8.2: describe the weather tool so the model picks it, fills it right, and it stays cheap.

    Return `(description, query_description)` for the tool `lookup(query)` of notebook 08
    (`agentlab.experiments.tool_descriptions.lookup_tool`): the tool's description and its `query`
    property's description. The tool returns today's temperature (`temp_c`, degrees Celsius) and the
    sky condition for one city, and refuses anything but the city's bare name. Graded against the
    simulated `DescriptionReader` made to guess every input format wrong (`guess_wrong=1.0`): the city
    task must be answered in 3 model calls (both cities in one reply, the note, the answer) with no
    refused input, the description must state the unit, and the whole definition must cost at most
    `BUDGET_TOKENS` (about 60) input tokens per turn,
    as `tool_descriptions.definition_tokens` estimates it. The notebook's `precise` text is too long.
    Try yours with `tool_descriptions.run_once(*describe_lookup(), guess_wrong=1.0)`.

    练习 8.2：描述天气工具，让模型选中它、填对它，而且它保持便宜。
    为第 08 本的工具 `lookup(query)`（`agentlab.experiments.tool_descriptions.lookup_tool`）返回
    `(description, query_description)`：工具的描述和它的 `query` 属性的描述。这个工具返回一个城市今天的气温（
    `temp_c`，摄氏度）和天空状况，除了城市的名字本身之外什么都拒绝。评分用的是模拟的 `DescriptionReader`，它被设定为
    把每一种输入格式都猜错（`guess_wrong=1.0`）：城市任务必须用 3 次模型调用答完（两个城市在一次回复里、笔记、回答），
    没有被拒绝的输入；描述必须说明单位；整个定义每一轮的输入 token 最多 `BUDGET_TOKENS`（大约 60），按
    `tool_descriptions.definition_tokens` 的估算。笔记本里的 `precise` 文本太长了。用
    `tool_descriptions.run_once(*describe_lookup(), guess_wrong=1.0)` 试试你的描述。
    """
    ### BEGIN SOLUTION
    return (
        "Today's temperature in °C and sky condition for one city; call once per city.",
        'City name only, e.g. "Paris".',
    )
    ### END SOLUTION


BUDGET_TOKENS = 60
"""The most input tokens the `lookup` definition may cost per turn in Exercise 8.2."""


def arrange_context(docs: list[str], scores: list[float], budget: int, count) -> list[str]:
    """Exercise 8.3: choose the documents that fit a token budget, and place the best at the edges.

    Length decides the bill, position does not (every position cost the same in notebook 08b), but the
    published Lost-in-the-Middle curves are lowest in the middle. So: `docs[i]` has relevance
    `scores[i]`; `count(doc)` gives a document's tokens. Return the documents to send, in order:
    1. Go through the documents from the highest score down (equal scores: the earlier in `docs` first);
       keep a document if the kept documents' tokens plus its own are at most `budget`, otherwise skip it
       and go on with the next.
    2. Place the kept documents best at the edges, weakest in the middle: rank 1 first, rank 2 last,
       rank 3 second, rank 4 second from last, and so on.
    Do not change `docs` or `scores`. No document fits: return [].

    练习 8.3：选出放得进 token 预算的文档，并把最好的放在两端。
    长度决定账单，位置不决定（在第 08b 本里每个位置的花费都一样），但已发表的 Lost-in-the-Middle 曲线在中间最低。所
    以：`docs[i]` 的相关度是 `scores[i]`；`count(doc)` 给出一个文档的 token 数。按顺序返回要发送的文档：
    1. 从分数最高的文档往下逐个看（分数相同时，`docs` 中靠前的先看）；如果已保留文档的 token 加上它自己的不超过
       `budget`，就保留它，否则跳过它，继续看下一个。
    2. 把保留的文档按最好的在两端、最弱的在中间排列：第 1 名在最前，第 2 名在最后，第 3 名在第二个，第 4 名在倒数第
       二个，依此类推。不要修改 `docs` 或 `scores`。一个文档都放不下时返回 []。
    """
    ### BEGIN SOLUTION
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
    kept, used = [], 0
    for i in order:
        if used + count(docs[i]) <= budget:
            kept.append(docs[i])
            used += count(docs[i])
    front, back = [], []
    for rank, doc in enumerate(kept):
        (front if rank % 2 == 0 else back).append(doc)
    return front + back[::-1]
    ### END SOLUTION
