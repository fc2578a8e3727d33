"""A student's feedback in the student's language: the exercise tests' messages, English in the tests, shown in
Chinese to a zh-CN student. The language is picked as the notebooks pick theirs
(:func:`agentlab.views.i18n.language`: ``AGENTLAB_LANG``, else a working directory under ``zh-CN``).

The table (``data/i18n/zh-CN/feedback.json``) maps each message as its test writes it, an f-string's
values written ``{}``, to its Chinese. A failing test's message is matched against those templates and its
values carried over; a message with no entry stays English. ``tests/grading/test_feedback.py`` holds every
message in ``exercises/tests`` to an entry, so a new test message without its Chinese fails the suite.
"""

from __future__ import annotations

import functools
import json
import re
import string
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "data" / "i18n" / "zh-CN" / "feedback.json"


def student_language() -> tuple[str, ValueError | None]:
    """The student's language, ``"zh-CN"`` or ``"en"``, and the error of an ``AGENTLAB_LANG`` the lab has no text
    for (then English: a typo must not cost the student the grade's report; ``render`` says so once)."""
    from agentlab.views.i18n import language

    try:
        return language(), None
    except ValueError as unknown:
        return "en", unknown


def in_language(message: str) -> str:
    """``message`` in the student's language (unchanged in English, or when the table has no entry for it)."""
    if student_language()[0] != "zh-CN":
        return message
    for pattern, chinese in _patterns():
        found = pattern.match(message)
        if found:
            return chinese.format(*found.groups()) + message[found.end() :]
    return message


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(regex of an English template, its Chinese), the templates with the most fixed text first, so that a
    short one ("got {}") cannot take a message a longer one fits. A match ends where pytest's own ``assert``
    explanation starts, or at the end."""
    table = json.loads(TABLE.read_text("utf-8"))["messages"]
    parsed = []
    for english, chinese in table.items():
        parts = list(string.Formatter().parse(english))
        regex = "".join(re.escape(text) + ("(.*?)" if field is not None else "") for text, field, _, _ in parts)
        fixed = sum(len(text) for text, _, _, _ in parts)
        parsed.append((fixed, re.compile(regex + r"(?=\nassert\b|\Z)", re.S), chinese))
    return tuple((pattern, chinese) for _, pattern, chinese in sorted(parsed, key=lambda p: -p[0]))
