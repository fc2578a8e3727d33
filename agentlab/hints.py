"""Readable tool errors in the task's language (English or Chinese).

``run_tool`` writes its readable errors in English. ``hint(text, "zh")`` rewrites the known ones in
Chinese, keeping names and values as they were (a model is told what to fix in the language of the
task it was given). Unknown wordings pass through unchanged. The English truncation note gets its
advice here too, so both languages say what to do next. ``result_text(text, "zh")`` does the same for
the confirmations the course's own tools return ("Saved note (21 characters).").

These tables are apart from the figures' (``agentlab.views.i18n``) on purpose: they follow the *task's*
language (what the model reads: a Chinese task in an English notebook still gets Chinese hints), the
figures' follow the *notebook's* (what the student reads: connect()'s notice, why a workflow stopped);
and ``tr`` rewrites any line some table knows, so a tool's own output could be changed by a figure label.
"""

from __future__ import annotations

import re

_RULES: list[tuple[str, str, str]] = [
    (
        r"^Unknown tool '([^']*)'\. Available tools: (.*)\.$",
        r"Unknown tool '\1'. Available tools: \2. Call one of these instead.",
        r"未知工具 '\1'。可用的工具：\2。请改用其中一个。",
    ),
    (
        r"^Invalid input for (\w+): missing required field '([^']*)'; send (.*)\.$",
        r"Invalid input for \1: missing required field '\2'; send \3.",
        r"\1 的输入无效：缺少必填字段 '\2'；请发送 \3。",
    ),
    (
        r"^Invalid input for (\w+): field '([^']*)' must be of type (\w+), got (.*)\.$",
        r"Invalid input for \1: field '\2' must be of type \3, got \4.",
        r"\1 的输入无效：字段 '\2' 的类型必须是 \3，收到的是 \4。",
    ),
    (
        r"^Invalid input for (\w+): unexpected field\(s\) in the input; the valid fields are: (.*)\.$",
        r"Invalid input for \1: unexpected field(s) in the input; the valid fields are: \2.",
        r"\1 的输入无效：输入里有多余的字段；有效字段是：\2。",
    ),
    (
        r"^Unknown city '([^']*)'\. Did you mean: ([^?]*)\? Call get_weather again with one of these names\.$",
        r"Unknown city '\1'. Did you mean: \2? Call get_weather again with one of these names.",
        r"未知城市 '\1'。你是不是指：\2？请用其中一个名字再调用 get_weather。",
    ),
    (
        r"^(\w+) stopped with (\w+): (.*)$",
        r"\1 stopped with \2: \3",
        r"\1 以 \2 结束了运行：\3",
    ),
    (
        r"^(\w+) did not answer within ([\d.]+) s and was abandoned; try again$",
        r"\1 did not answer within \2 s and was abandoned; try again.",
        r"\1 在 \2 秒内没有响应，已放弃；请再试一次。",
    ),
    (
        r"^(\w+) is temporarily unavailable; try again$",
        r"\1 is temporarily unavailable; try again.",
        r"\1 暂时不可用；请再试一次。",
    ),
    # wordings kept as they are in English (the replacement repeats the text), with their Chinese
    (
        r"^Invalid input for (\w+): field '([^']*)' must be one of (.*), got (.*)\.$",
        r"Invalid input for \1: field '\2' must be one of \3, got \4.",
        r"\1 的输入无效：字段 '\2' 必须是 \3 之一，收到的是 \4。",
    ),
    (
        r"^Invalid input for (\w+): the input must be of type (\w+), got (.*)\.$",
        r"Invalid input for \1: the input must be of type \2, got \3.",
        r"\1 的输入无效：输入的类型必须是 \2，收到的是 \3。",
    ),
    (
        r"^Invalid input for (\w+): (field '[^']*'|the input): (.*)\.$",
        r"Invalid input for \1: \2: \3.",
        r"\1 的输入无效：\2：\3。",
    ),
    (
        r"^Unknown city '([^']*)'\. Known cities include: (.*), \.\.\. Call get_weather again with one of these names\.$",
        r"Unknown city '\1'. Known cities include: \2, ... Call get_weather again with one of these names.",
        r"未知城市 '\1'。已知的城市包括：\2 等。请用其中一个名字再调用 get_weather。",
    ),
    (
        r"^The notes file may point outside the notes folder; refusing to write: (.*)$",
        r"The notes file may point outside the notes folder; refusing to write: \1",
        r"笔记文件可能指向笔记文件夹之外；拒绝写入：\1",
    ),
    (
        r"^(\w+) returned ([\d,]+) characters, over the cap of ([\d,]+) \(Executor\(result_cap=\.\.\.\)\); return less, e\.g\. a summary or one page of the data$",
        r"\1 returned \2 characters, over the cap of \3 (Executor(result_cap=...)); return less, e.g. a summary or one page of the data",
        r"\1 返回了 \2 个字符，超过了 \3 的上限（Executor(result_cap=...)）；请返回更少的内容，例如一段摘要或一页数据",
    ),
    (
        r"^No forecast for '([^']*)' in this demo data; forecasts exist for: (.*)\.$",
        r"No forecast for '\1' in this demo data; forecasts exist for: \2.",
        r"演示数据里没有 '\1' 的预报；有预报的城市：\2。",
    ),
    # notebook 08's lookup tool (agentlab/experiments/tool_descriptions.py)
    (
        r"^Unknown city '([^']*)'\. Did you mean: ([^?]*)\? query takes one city's name only, e\.g\. 'Paris'\.$",
        r"Unknown city '\1'. Did you mean: \2? query takes one city's name only, e.g. 'Paris'.",
        r"未知城市 '\1'。你是不是指：\2？query 只接受一个城市的名字，例如 'Paris'。",
    ),
    (
        r"^Unknown city '([^']*)'\. query takes one city's name only, e\.g\. 'Paris'\.$",
        r"Unknown city '\1'. query takes one city's name only, e.g. 'Paris'.",
        r"未知城市 '\1'。query 只接受一个城市的名字，例如 'Paris'。",
    ),
    (r"^(\w+) failed: (\w+): (.*)$", r"\1 failed: \2: \3", r"\1 运行失败：\2: \3"),
    (
        r"^(\w+) returned a value JSON cannot encode \((.*)\); the tool should return text, numbers, lists or dicts of those\.$",
        r"\1 returned a value JSON cannot encode (\2); the tool should return text, numbers, lists or dicts of those.",
        r"\1 返回了一个 JSON 无法编码的值（\2）；工具应返回文本、数字，或由它们组成的列表或字典。",
    ),
    # ReAct: what the harness sends back when it cannot parse the model's text (agentlab/react.py)
    (
        r"^Format error: end your turn with a line 'Action: <tool name>' and a line 'Action Input: <JSON object>', "
        r"or with 'Final Answer: <answer>'\.$",
        r"Format error: end your turn with a line 'Action: <tool name>' and a line 'Action Input: <JSON object>', "
        r"or with 'Final Answer: <answer>'.",
        r"格式错误：请用一行 'Action: <工具名>' 加一行 'Action Input: <JSON 对象>' 结束这一轮，或者用 'Final Answer: <答案>' 结束。",
    ),
    (
        r"^Format error: Action Input is not valid JSON \((.*) at position (\d+)\); write a JSON object such as (.*)\.$",
        r"Format error: Action Input is not valid JSON (\1 at position \2); write a JSON object such as \3.",
        r"格式错误：Action Input 不是有效的 JSON（\1，位置 \2）；请写一个 JSON 对象，例如 \3。",
    ),
    (
        r"^Format error: Action Input must be a JSON object, e\.g\. (.*)\.$",
        r"Format error: Action Input must be a JSON object, e.g. \1.",
        r"格式错误：Action Input 必须是一个 JSON 对象，例如 \1。",
    ),
    # the loop's answer to calls it did not run because a guard stopped the run (agentlab/executor.py not_run)
    (
        r"^Not run: the harness stopped the run \((\w+) (\S+) over the limit (\S+)\)\.$",
        r"Not run: the harness stopped the run (\1 \2 over the limit \3).",
        r"未运行：harness 已停止这次运行（\1 为 \2，超过了上限 \3）。",
    ),
    (
        r"^\[truncated: (\d+) of (\d+) characters shown\]$",
        r"[truncated: \1 of \2 characters shown; the rest was cut. Ask for less output.]",
        r"[已截断：只显示了 \2 个字符中的前 \1 个；其余被删掉了。请请求更少的输出。]",
    ),
]


_RESULTS: list[tuple[str, str]] = [
    (r"^Saved note \((\d+) characters\)\.$", r"已保存笔记（\1 个字符）。"),
    (r"^Sent to (\S+) \((\d+) characters\)\.$", r"已发送给 \1（\2 个字符）。"),
    (r"^Deleted the notes\.$", r"已删除笔记。"),
]
"""The course's tools' confirmations (``save_note``, notebook 11's ``send_email`` and ``delete_notes``) and their Chinese."""

_CJK = re.compile(r"[\u4e00-\u9fff]")


def task_lang(task: object) -> str:
    """``"zh"`` when a task (text, or content blocks with text) is written in Chinese, else ``"en"``."""
    if isinstance(task, list):
        task = " ".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in task)
    return "zh" if isinstance(task, str) and _CJK.search(task) else "en"


def hint(text: str, lang: str = "en") -> str:
    """``text`` as a readable hint in ``lang`` (``"en"`` or ``"zh"``); unknown wordings are returned as they are."""
    for pattern, en, zh in _RULES:
        if re.match(pattern, text, flags=re.S):
            return re.sub(pattern, zh if lang == "zh" else en, text, flags=re.S)
    return text


def result_text(text: str, lang: str = "en") -> str:
    """A successful result of the course's tools in ``lang``: ``"Saved note (21 characters)."`` is
    ``"已保存笔记（21 个字符）。"`` in ``"zh"``. English, and any other text, comes back unchanged."""
    if lang != "zh":
        return text
    for pattern, zh in _RESULTS:
        if re.match(pattern, text):
            return re.sub(pattern, zh, text)
    return text
