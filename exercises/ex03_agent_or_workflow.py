"""Graded exercises for notebooks 03 and 03b (agent or workflow): 3.1 in 03, 3.2 and 3.3 in 03b.
Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentlab.tools import run_tool
from agentlab.weather import get_weather, make_save_note

CITIES = {
    "type": "object",
    "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
    "required": ["cities"],
    "additionalProperties": False,
}
"""JSON schema for step 1's answer: the cities named in the task."""


def city_chain(client: Any, task: str, notes_dir: str | Path, model: str) -> dict:
    """Exercise 3.1: turn the agent's city task into a prompt chain with a gate.

    Step 1 (model): one call, client.messages.create(model=model, max_tokens=256,
    messages=[{"role": "user", "content": task}], output_config={"format": {"type": "json_schema",
    "schema": CITIES}}); its first text block is JSON: read the list with json.loads(...)["cities"].
    Gate (code): fewer than two cities, or any city that get_weather refuses (use
    run_tool({"get_weather": get_weather}, "get_weather", {"city": c}); is_error means refused),
    stops the chain: return {"note": None, "stopped_at": "gate", "reason": <why: for a refused city,
    the tool's own message>} and make no further model call.
    Step 2 (code): the temperatures, as "Paris: 18.5°C; London: 15°C" (json.loads the tool content).
    Step 3 (model): one call, no schema, with the prompt "Write a short note comparing these
    temperatures. Data: <the line from step 2>"; the note is its first text block.
    Step 4 (code): save the note with make_save_note(notes_dir). Return {"note": note,
    "stopped_at": None, "reason": ""}.

    练习 3.1：把 agent 的城市任务改写成一条带门控（gate）的提示链。
    第 1 步（模型）：一次调用，client.messages.create(model=model, max_tokens=256, messages=[{"role": "user",
    "content": task}], output_config={"format": {"type": "json_schema", "schema": CITIES}})；它的第一个文本块是 JSON：
    用 json.loads(...)["cities"] 读出列表。门控（代码）：城市少于两个，或者有任何一个城市被 get_weather 拒绝（用
    run_tool({"get_weather": get_weather}, "get_weather", {"city": c})；is_error 表示被拒绝），链就停下：返回
    {"note": None, "stopped_at": "gate", "reason": <原因：被拒绝的城市用工具自己的消息>}，不再调用模型。第 2 步（代
    码）：气温，写成 "Paris: 18.5°C; London: 15°C"（对工具的内容做 json.loads）。第 3 步（模型）：一次调用，不用
    schema，提示为 "Write a short note comparing these temperatures. Data: <第 2 步的那一行>"；笔记是它的第一个文本
    块。第 4 步（代码）：用 make_save_note(notes_dir) 保存笔记。返回 {"note": note, "stopped_at": None, "reason": ""}。
    """
    ### BEGIN SOLUTION
    tools = {"get_weather": get_weather}
    reply = client.messages.create(
        model=model,
        max_tokens=256,
        messages=[{"role": "user", "content": task}],
        output_config={"format": {"type": "json_schema", "schema": CITIES}},
    )
    cities = json.loads(reply.content[0].text)["cities"]
    if len(cities) < 2:
        return {"note": None, "stopped_at": "gate", "reason": f"need two or more cities, got {cities}"}
    temps = []
    for city in cities:
        out = run_tool(tools, "get_weather", {"city": city})
        if out.is_error:
            return {"note": None, "stopped_at": "gate", "reason": out.content}
        temps.append(f"{city}: {json.loads(out.content)['temp_c']:g}°C")
    prompt = "Write a short note comparing these temperatures. Data: " + "; ".join(temps)
    note = (
        client.messages.create(model=model, max_tokens=256, messages=[{"role": "user", "content": prompt}])
        .content[0]
        .text
    )
    make_save_note(notes_dir)(text=note)
    return {"note": note, "stopped_at": None, "reason": ""}
    ### END SOLUTION


def weather_with_retry(city: str) -> tuple[str, float] | None:
    """Exercise 3.2: the new code a fixed workflow needs for a misspelt city.

    Call get_weather through run_tool({"get_weather": get_weather}, "get_weather", {"city": city}).
    On success return (the canonical name from the result's "city", its "temp_c"). On an error
    whose message contains "Did you mean: X" (possibly "X, Y, ..."), retry ONCE with the first
    suggestion X and return its result. Return None if there is no suggestion or the retry fails.

    练习 3.2：固定的 workflow 为了应对拼错的城市需要的新代码。
    通过 run_tool({"get_weather": get_weather}, "get_weather", {"city": city}) 调用 get_weather。成功时返回元组 (结
    果中 "city" 的规范名称, 它的 "temp_c")。如果出错的消息里含有 "Did you mean: X"（可能是 "X, Y, ..."），就用第一个
    建议 X 重试一次，并返回它的结果。没有建议或者重试失败时返回 None。
    """
    ### BEGIN SOLUTION
    tools = {"get_weather": get_weather}
    for attempt in range(2):
        out = run_tool(tools, "get_weather", {"city": city})
        if not out.is_error:
            data = json.loads(out.content)
            return data["city"], data["temp_c"]
        if attempt == 1 or "Did you mean:" not in out.content:
            return None
        city = out.content.split("Did you mean:", 1)[1].split("?")[0].split(",")[0].strip()
    return None
    ### END SOLUTION


SHIP_TASKS = ("plain", "misspelt", "rain")
"""The three variants of exercise 3.3 (``agentlab.experiments.variants.variants()`` names them)."""


def designs_to_ship() -> dict[str, dict]:
    """Exercise 3.3: a design decision: for each task in SHIP_TASKS, the design you would ship and its cost.

    Run the variants both ways as the notebook does (`variant_table(client, folder)` on a simulated
    client) and decide, for "plain", "misspelt" and "rain", whether you would ship the agent or the
    fixed workflow. A design you ship must do the task (its "success" column); of two that do, ship
    the cheaper one. Return {task: {"pick": "agent" or "workflow", "usd": <the measured USD of one run
    of the design you picked, as the table's "cost (USD)" shows it>}}. Constants read off the table
    are a fine answer; so is code that measures.

    练习 3.3：一个设计决定：对 SHIP_TASKS 中的每个任务，你会交付的设计和它的费用。
    像笔记本那样把各个变体用两种方式都运行一遍（在模拟的客户端上 `variant_table(client, folder)`），然后对 "plain"、
    "misspelt" 和 "rain" 决定交付 agent 还是固定的 workflow。你交付的设计必须能完成任务（看它的 "success" 列）；两个
    都能完成时，交付更便宜的那个。返回 {task: {"pick": "agent" 或 "workflow", "usd": <你选的设计运行一次测得的 USD，
    按表格 "cost (USD)" 列显示的值>}}。从表格上读出的常数是合格的答案；自己去测量的代码也可以。
    """
    ### BEGIN SOLUTION
    import tempfile

    from agentlab.client import connect
    from agentlab.experiments.replacement import variant_table

    table = variant_table(connect("sim", quiet=True), tempfile.mkdtemp(prefix="ex03-"))
    picks = {}
    for task in SHIP_TASKS:
        rows = table[(table["variant"] == task) & table["success"]].sort_values("cost (USD)")
        picks[task] = {"pick": rows.iloc[0]["side"], "usd": float(rows.iloc[0]["cost (USD)"])}
    return picks
    ### END SOLUTION
