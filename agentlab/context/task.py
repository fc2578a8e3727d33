"""The long task of the context-engineering lab: a temperature report over many cities.

The agent looks up every city (``get_weather`` with a 7-day forecast, a few hundred tokens per
result, as real weather APIs answer) and reports the warmest, the coldest and the mean. Its answer
is checked by code against ``data/weather.json`` (:func:`check_report`). With 30 cities the plain
agent's last calls carry about 19,000 input tokens (simulator estimate), past the window we
configure (:data:`WINDOW_TOKENS`), so context pressure is real.

Planted facts (:data:`PLANTED`) are strings put in the conversation at known places; after a
compaction :func:`surviving_facts` says which are still in the window. It tests *our* summariser
(``agentlab.sim.models.context_agent.summary_text``), not a model.

The task is asked in the notebook's language (the zh-CN edition in Chinese, the cities by their Chinese
names); the simulated model answers in the task's language and :func:`check_report` reads either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentlab.views.i18n import task_language
from agentlab.weather import chinese_name, city_names, lookup, weather_table

WINDOW_TOKENS = 12_000
"""The context window we configure for the lab (tokens per call): the plain agent on 30 cities passes it."""
DEFAULT_CITIES = 30
"""Cities in the lab's report task."""
TASK = (
    "Task: Report on these {n} cities: {cities}. Give the warmest, the coldest and the mean temperature."
    "\nNote: the report is for Ms. Chen, who reads it on Friday."
)
"""The prompt: the task line, then a second line (a planted fact a summary may drop)."""
TASK_ZH = (
    "任务：为这 {n} 个城市写一份报告：{cities}。给出最暖和的城市、最冷的城市和平均气温。"
    "\n备注：这份报告是给陈女士的，她周五读。"
)
"""The same prompt in Chinese, the cities by their Chinese names."""


@dataclass(frozen=True)
class Planted:
    """A fact placed in the conversation, to see whether it is still in the window later."""

    label: str
    """What the fact is, for the table."""
    needle: str
    """The text whose presence in the window means the fact survived."""
    where: str
    """Where it was planted: ``"task line"``, ``"task note"``, ``"tool result"``."""
    needle_zh: str = ""
    """The same fact as the Chinese task and answers write it (empty: the same text as ``needle``)."""


PLANTED = (
    Planted(
        "what the report must give",
        "the warmest, the coldest and the mean",
        "task line",
        "最暖和的城市、最冷的城市和平均气温",
    ),
    Planted("who reads the report", "Ms. Chen", "task note", "陈女士"),
    Planted("Paris's temperature", "Paris: 18.5°C", "tool result (then the agent's note)", "巴黎：18.5°C"),
    Planted("Paris's condition", '"condition": "sunny"', "tool result"),
    Planted("Paris's Monday forecast", '"day": "Mon"', "tool result"),
)
"""Facts whose survival after compaction we count (Paris is the task's first city)."""


def report_cities(n: int = DEFAULT_CITIES) -> list[str]:
    """The first ``n`` cities of the bundled data (English names)."""
    names = city_names()
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= len(names):
        raise ValueError(
            f"report_cities(n={n!r}): n must be a whole number from 2 to {len(names)} (cities in the data)"
        )
    return names[:n]


def report_task(cities: list[str], lang: str | None = None) -> str:
    """The report prompt for ``cities``, in English (``"en"``), Chinese (``"zh"``, the cities by their
    Chinese names) or, with ``None``, the notebook's language (:func:`agentlab.views.i18n.language`)."""
    if isinstance(cities, str) or not cities:
        raise ValueError(f"report_task(cities={cities!r}): pass a list of city names, e.g. ['Paris', 'Oslo']")
    if task_language(lang, "report_task") == "zh":
        return TASK_ZH.format(n=len(cities), cities="、".join(chinese_name(c) for c in cities))
    return TASK.format(n=len(cities), cities=", ".join(cities))


def expected_report(cities: list[str]) -> dict[str, Any]:
    """The right answer, from the data: warmest, coldest, mean (1 decimal)."""
    temps = {c: lookup(c)["temp_c"] for c in cities}
    return {
        "warmest": max(temps, key=temps.get),
        "coldest": min(temps, key=temps.get),
        "mean": round(sum(temps.values()) / len(temps), 1),
    }


_FIELDS = {
    "warmest": re.compile(r"Warmest:\s*([^(.]+?)\s*\("),
    "coldest": re.compile(r"Coldest:\s*([^(.]+?)\s*\("),
    "mean": re.compile(r"Mean:\s*(-?\d+(?:\.\d+)?)\s*°C"),
}
_FIELDS_ZH = {
    "warmest": re.compile(r"最暖和[:：]\s*([^（(。]+?)\s*[（(]"),
    "coldest": re.compile(r"最冷[:：]\s*([^（(。]+?)\s*[（(]"),
    "mean": re.compile(r"平均[:：]\s*(-?\d+(?:\.\d+)?)\s*°C"),
}
"""The same fields as a Chinese answer writes them (``最暖和：巴黎（18.5°C）``)."""


def _english(name: str | None) -> str | None:
    """The data's English name for a city named in either language (巴黎 -> Paris); others as written."""
    rec = weather_table().get(name.casefold()) if name else None
    return rec["name"] if rec is not None else name


def check_report(text: str, cities: list[str]) -> dict[str, Any]:
    """Compare an answer with the data: each field read from ``text`` (or None) and whether all three are right.
    The answer may be in English or Chinese and name the cities in either language."""
    want = expected_report(cities)
    got: dict[str, Any] = {}
    for key, rx in _FIELDS.items():
        m = rx.search(text or "") or _FIELDS_ZH[key].search(text or "")
        got[key] = (float(m.group(1)) if key == "mean" else m.group(1).strip()) if m else None
    ok = (
        _english(got["warmest"]) == want["warmest"]
        and _english(got["coldest"]) == want["coldest"]
        and got["mean"] is not None
        and abs(got["mean"] - want["mean"]) < 0.05
    )
    return {"correct": ok, "expected": want, "got": got}


def window_text(messages: list[dict]) -> str:
    """Every text, tool input and tool result in ``messages``, as one string (what is in the window)."""
    import json

    parts: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for b in content or []:
            if b.get("type") == "text":
                parts.append(b.get("text", ""))
            elif b.get("type") == "tool_use":
                parts.append(json.dumps(b.get("input"), ensure_ascii=False))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                parts.append(c if isinstance(c, str) else json.dumps(c, ensure_ascii=False))
    return "\n".join(parts)


def surviving_facts(messages: list[dict]) -> dict[str, bool]:
    """For each planted fact, whether its text (as the English or the Chinese run writes it) is in ``messages``."""
    text = window_text(messages)
    return {p.label: p.needle in text or (p.needle_zh or p.needle) in text for p in PLANTED}
