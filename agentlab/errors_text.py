"""Readable tool errors in the task's language (English or Chinese).

``run_tool`` writes its readable errors in English. ``hint(text, "zh")`` rewrites the known ones in
Chinese, keeping names and values as they were (a model is told what to fix in the language of the
task it was given). Unknown wordings pass through unchanged. The English truncation note gets its
advice here too, so both languages say what to do next.
"""

from __future__ import annotations

import re

_RULES: list[tuple[str, str, str]] = [
    (r"^Unknown tool '([^']*)'\. Available tools: (.*)\.$",
     r"Unknown tool '\1'. Available tools: \2. Call one of these instead.",
     r"未知工具 '\1'。可用的工具：\2。请改用其中一个。"),
    (r"^Invalid input for (\w+): missing required field '([^']*)'; send (.*)\.$",
     r"Invalid input for \1: missing required field '\2'; send \3.",
     r"\1 的输入无效：缺少必填字段 '\2'；请发送 \3。"),
    (r"^Invalid input for (\w+): field '([^']*)' must be of type (\w+), got (.*)\.$",
     r"Invalid input for \1: field '\2' must be of type \3, got \4.",
     r"\1 的输入无效：字段 '\2' 的类型必须是 \3，收到的是 \4。"),
    (r"^Invalid input for (\w+): unexpected field\(s\) in the input; the valid fields are: (.*)\.$",
     r"Invalid input for \1: unexpected field(s) in the input; the valid fields are: \2.",
     r"\1 的输入无效：输入里有多余的字段；有效字段是：\2。"),
    (r"^Unknown city '([^']*)'\. Did you mean: ([^?]*)\? Call get_weather again with one of these names\.$",
     r"Unknown city '\1'. Did you mean: \2? Call get_weather again with one of these names.",
     r"未知城市 '\1'。你是不是指：\2？请用其中一个名字再调用 get_weather。"),
    (r"^(\w+) did not answer within ([\d.]+) s and was abandoned; try again$",
     r"\1 did not answer within \2 s and was abandoned; try again.",
     r"\1 在 \2 秒内没有响应，已放弃；请再试一次。"),
    (r"^(\w+) is temporarily unavailable; try again$",
     r"\1 is temporarily unavailable; try again.",
     r"\1 暂时不可用；请再试一次。"),
    (r"^\[truncated: (\d+) of (\d+) characters shown\]$",
     r"[truncated: \1 of \2 characters shown; the rest was cut. Ask for less output.]",
     r"[已截断：只显示了 \2 个字符中的前 \1 个；其余被删掉了。请请求更少的输出。]"),
]


def hint(text: str, lang: str = "en") -> str:
    """``text`` as a readable hint in ``lang`` (``"en"`` or ``"zh"``); unknown wordings are returned as they are."""
    for pattern, en, zh in _RULES:
        if re.match(pattern, text, flags=re.S):
            return re.sub(pattern, zh if lang == "zh" else en, text, flags=re.S)
    return text
