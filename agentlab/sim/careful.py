"""``CarefulAgent``: the simulated model's default policy for the course's tasks.

It reads the conversation and the offered tools the way a careful agent would:
for "which of X and Y is warmer, then save a note" it asks for ``get_weather`` once per city (one
per turn, or all in one turn when ``parallel=True`` and the request does not set
``disable_parallel_tool_use``), then ``save_note``, then ends its turn with text naming the warmer
city. Every number it writes comes from the tool results in the conversation, never from its own
data. A task it cannot do gets a short ``end_turn`` saying so.

Errors are read as a capable model reads them (``read_error``), in English or Chinese: an error
that says what to fix ("Did you mean: X?", a missing field, the valid tools) or to try again is acted
on once per distinct error text; a raw Python traceback gets at most one blind retry of the same
call. Then it gives up and says why (the error's last line), never inventing a number.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
import json
import math
import re
from functools import lru_cache

from ..weather import weather_table
from .policy import Reply

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LISTED = re.compile(r"(?:\b(?:or|and|vs\.?)\s+|,\s*)([A-Z][a-zA-Z-]+(?:\s[A-Z][a-zA-Z-]+)*)")
_TEMPS = re.compile(r"([^\s:;,，；。：、]+(?: [A-Z][\w-]*)*):\s*(-?\d+(?:\.\d+)?)\s*°C")


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def cities_in(text: str) -> list[str]:
    """City names in ``text`` in order of appearance: known names, and capitalised near-misses as written."""
    return list(_cities_in(text))


@lru_cache(maxsize=1024)  # the task is re-read every turn; near-miss matching (difflib) is the costly part
def _cities_in(text: str) -> tuple[str, ...]:
    found: list[tuple[int, str]] = []
    lowered = text.casefold()
    names = sorted(weather_table(), key=len, reverse=True)
    taken = [False] * len(text)
    for name in names:
        for m in re.finditer(re.escape(name), lowered):
            s, e = m.span()
            ascii_word = name.isascii()
            if ascii_word and ((s > 0 and lowered[s - 1].isalnum()) or (e < len(text) and lowered[e].isalnum())):
                continue
            if not any(taken[s:e]):
                taken[s:e] = [True] * (e - s)
                found.append((s, text[s:e]))
    for m in re.finditer(r"\b[A-Z][a-z]+\b", text):  # a misspelt city is still a city the user asked about
        if not any(taken[m.start():m.end()]) and difflib.get_close_matches(m.group().casefold(), names, n=1, cutoff=0.75):
            found.append((m.start(), m.group()))
            taken[m.start():m.end()] = [True] * (m.end() - m.start())
    for m in _LISTED.finditer(text):  # "..., Paris or Atlantis": a name in a list of places, known or not
        s, e = m.span(1)
        if not any(taken[s:e]):
            found.append((s, m.group(1)))
    return tuple(n for _, n in sorted(found))


class CarefulAgent:
    """The simulator's default policy (see the module docstring)."""

    def __init__(self, parallel: bool = False) -> None:
        self.parallel = parallel
        """Ask for every pending ``get_weather`` in one turn (unless the request disables it)."""

    def __call__(self, request: dict) -> Reply:
        if not request.get("tools") and "Action Input:" in str(request.get("system") or ""):
            from .react_policy import ReactWriter  # prompted for ReAct: write Thought / Action prose

            return ReactWriter()(request)
        from .roles import role_for  # what the request asks (system prompt, output schema, tools) picks a role

        role = role_for(request)
        if role is not None:
            return role(request)
        messages = request.get("messages", [])
        tools = {t.get("name") for t in request.get("tools") or []}
        task = _text_of(messages[0]["content"]) if messages else ""
        zh = bool(_CJK.search(task))
        choice = request.get("tool_choice") or {}
        if not tools or choice.get("type") == "none":
            return Reply([{"type": "text", "text": _no_tools_answer(task, zh)}])
        cities = cities_in(task)
        one_city = len(cities) == 1 and re.search(r"temperature|weather|温度|天气|气温", task, re.I)
        if "get_weather" not in tools or not (len(cities) >= 2 or one_city):
            return Reply([{"type": "text", "text": _cannot(zh, tools)}])
        temps, retry, failed, saved = _read_results(messages)
        pending = []
        for c in cities:
            c = retry.get(c, c)
            if c not in temps and c not in failed and c not in pending:
                pending.append(c)
        if failed:
            return Reply([{"type": "text", "text": _gave_up(failed, zh)}])
        if pending:
            many = self.parallel and not choice.get("disable_parallel_tool_use")
            batch = pending if many else pending[:1]
            intro = (f"我来查一下{'、'.join(batch)}的天气。" if zh else f"Let me look up the weather in {', '.join(batch)}.")
            return Reply([{"type": "text", "text": intro}] +
                         [{"type": "tool_use", "name": "get_weather", "input": {"city": c}} for c in batch])
        answer = compare_text(temps, zh)
        wants_note = "save_note" in tools and re.search(r"note|save|笔记|保存|记录", task, re.I)
        if wants_note and not saved:
            return Reply([{"type": "tool_use", "name": "save_note", "input": {"text": answer}}])
        done = " 我已保存笔记。" if zh and saved else (" I saved a note with this." if saved else "")
        return Reply([{"type": "text", "text": answer + done}])


_FIX = re.compile(r"Did you mean|你是不是指|missing required field|缺少必填字段|must be of type|类型必须是|"
                  r"Available tools|可用的工具|valid fields|有效字段|Ask for less|请求更少")
_AGAIN = re.compile(r"try again|再试")


def read_error(body: str) -> str:
    """How a careful model reads an ``is_error`` text: ``"traceback"`` (raw Python), ``"fix"`` (it says
    what to change), ``"retry"`` (it says to try again) or ``"opaque"`` (nothing to act on)."""
    if body.lstrip().startswith("Traceback (most recent call last)"):
        return "traceback"
    return "fix" if _FIX.search(body) else "retry" if _AGAIN.search(body) else "opaque"


def why_failed(body: str) -> str:
    """The part of an error worth repeating to the user: its last non-empty line, shortened."""
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else "no details"
    return last if len(last) <= 120 else last[:117] + "..."


def _read_results(messages: list[dict]) -> tuple[dict[str, float], dict[str, str], dict[str, str], bool]:
    """From the conversation: temperatures by city name, retries to make, failed cities (with why), note saved."""
    calls: dict[str, tuple[str, dict]] = {}
    temps: dict[str, float] = {}
    retry: dict[str, str] = {}
    failed: dict[str, str] = {}
    errors: dict[str, list[str]] = {}
    saved = False
    for msg in messages:
        if isinstance(msg.get("content"), str):
            continue
        for b in msg["content"]:
            if b.get("type") == "tool_use":
                calls[b["id"]] = (b["name"], b.get("input") or {})
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                name, inp = calls[b["tool_use_id"]]
                body = _text_of(b.get("content", "")) if not isinstance(b.get("content"), str) else b["content"]
                if name == "save_note":
                    saved = saved or not b.get("is_error")
                elif name == "get_weather":
                    asked = str(inp.get("city", ""))
                    temp = None if b.get("is_error") else _temperature(body)
                    if temp is not None:
                        temps[asked] = temp
                        continue
                    if not b.get("is_error"):  # unreadable: a failed lookup, never a made-up number
                        failed.setdefault(asked, "its result had no temperature I could read")
                        continue
                    seen = errors.setdefault(asked, [])
                    seen.append(body)
                    kind = read_error(body)
                    fix = re.search(r"(?:Did you mean:?|你是不是指：)\s*'?([^,?？'\n]+)", body)
                    if fix and asked not in retry.values():
                        retry[asked] = fix.group(1).strip()
                    elif kind == "retry" and seen.count(body) == 1:
                        continue  # acted on once: ask again for the same city
                    elif kind == "traceback" and len(seen) == 1:
                        continue  # one blind retry: a traceback does not say what to change
                    else:
                        failed[asked] = why_failed(body)
    for city in temps:
        failed.pop(city, None)
    return temps, retry, failed, saved


def _temperature(body: str) -> float | None:
    """The temperature a result states (JSON ``temp_c``, or a number written with °C); ``None`` if none."""
    try:
        value = float(json.loads(body)["temp_c"])
    except (ValueError, KeyError, TypeError):
        m = re.search(r"(-?\d+(?:\.\d+)?)\s*°\s*C", body)
        value = float(m.group(1)) if m else None
    return value if value is not None and math.isfinite(value) else None


def compare_text(temps: dict[str, float], zh: bool = False) -> str:
    """One sentence naming the warmest city, with every number from ``temps``."""
    ranked = sorted(temps.items(), key=lambda kv: -kv[1])
    (top, t), rest = ranked[0], ranked[1:]
    if not rest:  # one city: nothing to compare, just report it
        return f"{top}今天 {t:g}°C。" if zh else f"{top} is at {t:g}°C today."
    ties = [c for c, v in rest if v == t]
    if zh:
        if ties:
            return f"{'和'.join([top, *ties])}一样暖和，都是 {t:g}°C。"
        return f"{top}{'更' if len(rest) == 1 else '最'}暖和：{t:g}°C，" + "，".join(f"{c} {v:g}°C" for c, v in rest) + "。"
    if ties:
        return f"{' and '.join([top, *ties])} are equally warm at {t:g}°C."
    word = "warmer" if len(rest) == 1 else "the warmest"
    return f"{top} is {word} at {t:g}°C, compared with " + ", ".join(f"{c} at {v:g}°C" for c, v in rest) + "."


def _no_tools_answer(task: str, zh: bool) -> str:
    temps = {c: float(v) for c, v in _TEMPS.findall(task)}
    if temps:
        return compare_text(temps, zh)
    if re.fullmatch(r"\s*(hi|hello|hey|你好)[\s,.!，。！]*(claude)?[\s.!]*", task, re.I):
        return "你好！我能帮你比较城市的温度。" if zh else "Hello! I can compare the temperature of cities if you give me a weather tool."
    return "我没有可用的工具，无法完成这个任务。" if zh else "I can't do that: no tools were offered and I have no data of my own for it."


def _cannot(zh: bool, tools: set) -> str:
    offered = ", ".join(sorted(tools)) or "none"
    if zh:
        return f"我无法用现有的工具（{offered}）完成这个任务。"
    return f"I can't do this task with the tools I was given ({offered}); I need a weather tool and two or more cities."


def _gave_up(failed: dict[str, str], zh: bool) -> str:
    why = "; ".join(f"{c}: {w}" for c, w in failed.items())
    if zh:
        return f"我查不到{'、'.join(failed)}的天气，所以无法比较。错误：{why}"
    return f"I couldn't get the weather for {', '.join(failed)}, so I can't compare the temperatures. The error was: {why}"
