"""The city task's steps as a careful agent takes them: what ``CarefulAgent`` writes for "which is warmer?".

For "which of X and Y is warmer, then save a note" it asks for ``get_weather`` once per city (all
in one turn, as the real models in pydantic-ai's recorded cassettes call independent tools; one per
turn when the request sets ``tool_choice`` ``disable_parallel_tool_use`` or ``parallel=False``), then
``save_note``, then ends its turn with text naming the warmer city. Every number it writes comes from the tool results in the conversation, never from its own
data. A task it cannot do gets a short ``end_turn`` saying so. Errors are read by meaning
(``reading.read_error``): a transient one ("temporarily unavailable", "timed out", "try again") is
retried with the same city up to ``reading.retry_limit("retry")`` times (3, from ``data/profiles.json``,
where the recorded real retries and the stand-in bound are sourced), a "Did you mean" once with the
corrected name, a raw traceback once blindly; a not-found or forbidden error is not retried. Then it
gives up and says why (the error's last line) and how often it retried. With a task budget
(``budgets.py``) it looks up one city per turn, and when the countdown is under two more lookups at
their cost so far, it stops looking up, answers with the cities it has and names the ones it skipped. With ``output_config.effort`` below the
model's default it writes no preamble or confirmation (two levels below: a short answer, the warmest city
only, and every lookup in one turn even when ``parallel=False``); above
it, it says it checked its numbers (two above: after a second lookup of the warmest city). How this model
is written, not how Claude behaves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentlab.sim.budgets import budget_left, loop_tokens
from agentlab.sim.effort import effort_steps
from agentlab.sim.models.reading import (
    cities_in,
    exchanges,
    is_chinese,
    read_error,
    retry_limit,
    temperature,
    text_of,
    why_failed,
)
from agentlab.sim.policy import Reply

_TEMPS = re.compile(r"([^\s:;,，；。：、]+(?: [A-Z][\w-]*)*):\s*(-?\d+(?:\.\d+)?)\s*°C")


def city_steps(request: dict, parallel: bool = True) -> Reply:
    """The next step of the city task for this request (see the module docstring)."""
    messages = request.get("messages", [])
    tools = {t.get("name") for t in request.get("tools") or []}
    task = text_of(messages[0]["content"]) if messages else ""
    zh = is_chinese(task)
    choice = request.get("tool_choice") or {}
    if not tools or choice.get("type") == "none":
        return Reply([{"type": "text", "text": _no_tools_answer(task, zh)}])
    cities = cities_in(task)
    one_city = len(cities) == 1 and re.search(r"temperature|weather|温度|天气|气温", task, re.I)
    if "get_weather" not in tools or not (len(cities) >= 2 or one_city):
        return Reply([{"type": "text", "text": _cannot(zh, tools)}])
    res = read_results(messages)
    temps, retry, failed, saved = res.temps, res.retry, res.failed, res.saved
    pending = []
    for c in cities:
        c = retry.get(c, c)
        if c not in temps and c not in failed and c not in pending:
            pending.append(c)
    if failed:
        return Reply([{"type": "text", "text": gave_up(failed, zh, res.retried)}])
    left = budget_left(request)  # a task budget's countdown (budgets.py), None without one
    if pending and temps and left is not None and left < 2 * loop_tokens(messages, request.get("model")) / len(temps):
        return _wrap_up(temps, pending, saved, "save_note" in tools and NOTE_ASKED.search(task), left, zh)
    effort = effort_steps(request)  # output_config.effort against the model's default (effort.py)
    if pending:
        # with a task budget it paces itself, one lookup per turn, so it can read the countdown after each
        many = (parallel or effort <= -2) and not choice.get("disable_parallel_tool_use") and left is None
        batch = pending if many else pending[:1]
        intro = f"我来查一下{'、'.join(batch)}的天气。" if zh else f"Let me look up the weather in {', '.join(batch)}."
        said = [] if effort < 0 else [{"type": "text", "text": intro}]
        return Reply(said + [{"type": "tool_use", "name": "get_weather", "input": {"city": c}} for c in batch])
    top = max(temps, key=temps.get) if temps else ""
    if (
        effort >= 2
        and top
        and sum(ex.name == "get_weather" and ex.input.get("city") == top for ex in exchanges(messages)) < 2
    ):
        again = (
            f"我再查一次{top}，核对决定结果的那个数字。"
            if zh
            else f"Let me look up {top} once more to check the deciding number."
        )
        return Reply(
            [{"type": "text", "text": again}, {"type": "tool_use", "name": "get_weather", "input": {"city": top}}]
        )
    # two levels below the default: the short answer, the warmest city only (every lookup is one turn anyway)
    answer = (compare_text(temps, zh, short=effort <= -2)) + (_CHECKED[zh] if effort >= 1 else "")
    wants_note = "save_note" in tools and NOTE_ASKED.search(task)
    if wants_note and not saved:
        return Reply([{"type": "tool_use", "name": "save_note", "input": {"text": answer}}])
    done = "我已保存笔记。" if zh and saved else (" I saved a note with this." if saved else "")
    return Reply([{"type": "text", "text": answer + ("" if effort < 0 else done)}])


_CHECKED = {False: " I checked each number against its tool result.", True: "我已把每个数字与对应的工具结果核对过。"}


def _wrap_up(
    temps: dict[str, float], pending: list[str], saved: bool, wants_note: object, left: int, zh: bool
) -> Reply:
    """Too little budget left for two more lookups (at what each has cost so far): answer with what it has,
    naming the cities it did not check, and save that partial answer when a note was asked for."""
    answer = compare_text(temps, zh) + (
        f"（为了不超出任务预算，我没有查{'、'.join(pending)}；还剩 {left} 个 token。）"
        if zh
        else f" (I did not check {', '.join(pending)}, to stay within the task budget: {left} tokens left.)"
    )
    if wants_note and not saved:
        return Reply([{"type": "tool_use", "name": "save_note", "input": {"text": answer}}])
    return Reply(
        [
            {
                "type": "text",
                "text": answer + ("我已保存笔记。" if zh and saved else " I saved a note with this." if saved else ""),
            }
        ]
    )


@dataclass
class Results:
    """What the conversation so far says about the city task's lookups (:func:`read_results`)."""

    temps: dict[str, float] = field(default_factory=dict)
    """Temperatures by the city name asked for."""
    retry: dict[str, str] = field(default_factory=dict)
    """Corrected names to ask for instead, by the name that failed ("Pariss" -> "Paris")."""
    failed: dict[str, str] = field(default_factory=dict)
    """Cities given up on, with why (the error's last line)."""
    saved: bool = False
    """A ``save_note`` call succeeded."""
    retried: dict[str, int] = field(default_factory=dict)
    """Retries of the same call made for each city given up on (the final answer says how many)."""


NOTE_ASKED = re.compile(r"note|save|笔记|保存|记录", re.I)
"""A task that asks for a note, in English or Chinese (the city-task agents save one only then)."""
_DID_YOU_MEAN = re.compile(r"(?:Did you mean:?|你是不是指：)\s*'?([^,?？'\n]+)")


def read_results(messages: list[dict]) -> Results:
    """From the conversation: temperatures, corrected names to ask for, cities given up on (with why), note
    saved. Errors are read by meaning (``reading.read_error``, bounds from ``reading.retry_limit``): a
    transient one is retried with the same city up to the bound, a named fix once with the corrected name,
    a raw traceback once blindly; not found, forbidden or anything else is not retried."""
    out = Results()
    errors: dict[str, list[str]] = {}
    for ex in exchanges(messages):
        if ex.name == "save_note":
            out.saved = out.saved or not ex.is_error
        elif ex.name == "get_weather":
            asked, body = str(ex.input.get("city", "")), ex.body
            temp = None if ex.is_error else temperature(body)
            if temp is not None:
                out.temps[asked] = temp
                continue
            if not ex.is_error:  # unreadable: a failed lookup, never a made-up number
                out.failed.setdefault(asked, "its result had no temperature I could read")
                continue
            seen = errors.setdefault(asked, [])
            seen.append(body)
            kind = read_error(body)
            fix = _DID_YOU_MEAN.search(body)
            if fix and asked not in out.retry.values():
                out.retry[asked] = fix.group(1).strip()  # the fix named: ask for the corrected city instead
            elif kind in ("retry", "traceback") and len(seen) <= retry_limit(kind):
                continue  # transient (or a blind retry of a traceback): ask again for the same city
            else:
                out.failed[asked] = why_failed(body)
                out.retried[asked] = len(seen) - 1
    for city in out.temps:
        out.failed.pop(city, None)
    return out


def compare_text(temps: dict[str, float], zh: bool = False, short: bool = False) -> str:
    """One sentence naming the warmest city, with every number from ``temps``; ``short``: the warmest
    city (and any tied with it) only, not the others' temperatures."""
    ranked = sorted(temps.items(), key=lambda kv: -kv[1])
    (top, t), rest = ranked[0], ranked[1:]
    if not rest:  # one city: nothing to compare, just report it
        return f"{top}今天 {t:g}°C。" if zh else f"{top} is at {t:g}°C today."
    ties = [c for c, v in rest if v == t]
    if short and not ties:
        return (
            f"{top}{'更' if len(rest) == 1 else '最'}暖和：{t:g}°C。"
            if zh
            else f"{top} is {'warmer' if len(rest) == 1 else 'the warmest'} at {t:g}°C."
        )
    if zh:
        if ties:
            return f"{'和'.join([top, *ties])}一样暖和，都是 {t:g}°C。"
        return (
            f"{top}{'更' if len(rest) == 1 else '最'}暖和：{t:g}°C，"
            + "，".join(f"{c} {v:g}°C" for c, v in rest)
            + "。"
        )
    if ties:
        return f"{' and '.join([top, *ties])} are equally warm at {t:g}°C."
    word = "warmer" if len(rest) == 1 else "the warmest"
    return f"{top} is {word} at {t:g}°C, compared with " + ", ".join(f"{c} at {v:g}°C" for c, v in rest) + "."


def _no_tools_answer(task: str, zh: bool) -> str:
    temps = {c: float(v) for c, v in _TEMPS.findall(task)}
    if temps:
        return compare_text(temps, zh)
    if re.fullmatch(r"\s*(hi|hello|hey|你好)[\s,.!，。！]*(claude)?[\s.!]*", task, re.I):
        return (
            "你好！我能帮你比较城市的温度。"
            if zh
            else "Hello! I can compare the temperature of cities if you give me a weather tool."
        )
    return (
        "我没有可用的工具，无法完成这个任务。"
        if zh
        else "I can't do that: no tools were offered and I have no data of my own for it."
    )


def _cannot(zh: bool, tools: set) -> str:
    offered = ", ".join(sorted(tools)) or "none"
    if zh:
        return f"我无法用现有的工具（{offered}）完成这个任务。"
    return f"I can't do this task with the tools I was given ({offered}); I need a weather tool and two or more cities."


def gave_up(failed: dict[str, str], zh: bool, retried: dict[str, int] | None = None) -> str:
    """The final answer when a lookup failed for good: which cities, the error, and how often each was retried."""
    why = "; ".join(f"{c}: {w}" for c, w in failed.items())
    tries = {c: n for c, n in (retried or {}).items() if n and c in failed}
    if zh:
        again = "".join(f"我把{c}重试了 {n} 次，仍然失败，所以放弃了。" for c, n in tries.items())
        return f"我查不到{'、'.join(failed)}的天气，所以无法比较。{again}错误：{why}"
    again = "".join(
        f" I retried {c} {n} time{'s' if n > 1 else ''} and it still failed, so I gave up." for c, n in tries.items()
    )
    return (
        f"I couldn't get the weather for {', '.join(failed)}, so I can't compare the temperatures.{again} "
        f"The error was: {why}"
    )
