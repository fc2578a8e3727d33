"""The simulated agent on the task variants a fixed workflow did not foresee.

``CarefulAgent`` hands over to ``adaptive_agent`` when the request offers ``get_itinerary`` or
``get_forecast`` (see ``roles.role_for``). It does what a careful agent would with them:

- the task mentions a flight or trip and ``get_itinerary`` is offered: ask for it first, and treat
  the destination it returns as one more city to compare (a city the user never typed);
- the task says "if it rains": after the temperatures, ask ``get_forecast`` for each city whose
  reading says rain, and add tomorrow's forecast to the answer;
- otherwise, exactly ``CarefulAgent``'s steps (a misspelt city is retried from "Did you mean").

A task written in Chinese (航班 for the flight, 下雨 for rain) gets its sentences and its answer in
Chinese, every city by its Chinese name (tool results name cities in English).

Independent calls go in one turn, as the recorded real models make them (every city's ``get_weather``;
the corrected names after "Did you mean" errors; each rainy city's ``get_forecast``); one call per turn
when the request sets ``tool_choice`` ``disable_parallel_tool_use`` or the model was made with
``parallel=False``. ``get_itinerary`` comes first, alone: the cities to look up depend on it. Every
number it writes comes from a tool result in the conversation.
"""

from __future__ import annotations

import json
import re

from agentlab.sim.models.city_task import NOTE_ASKED, compare_text, gave_up, read_results
from agentlab.sim.models.reading import chinese_city, cities_in, exchanges, is_chinese, text_of, tool_uses
from agentlab.sim.policy import Reply


def _extras(messages: list[dict]) -> tuple[bool, list[str], dict[str, str], dict[str, dict]]:
    """Itinerary asked, destinations found, condition by city asked, forecast by city."""
    asked_itinerary = any(b.get("name") == "get_itinerary" for b in tool_uses(messages))
    dests, conditions, forecasts = [], {}, {}
    for ex in exchanges(messages):
        if ex.is_error:
            continue
        try:
            body = json.loads(ex.body)
        except (ValueError, TypeError):
            continue
        if ex.name == "get_itinerary" and body.get("destination"):
            dests.append(body["destination"])
        elif ex.name == "get_weather":
            conditions[body.get("city", ex.input.get("city", ""))] = str(body.get("condition", ""))
        elif ex.name == "get_forecast":
            forecasts[ex.input.get("city", "")] = body
    return asked_itinerary, dests, conditions, forecasts


def _call(name: str, inp: dict, why: str) -> Reply:
    return Reply([{"type": "text", "text": why}, {"type": "tool_use", "name": name, "input": inp}])


def _calls(name: str, cities: list[str], why: str) -> Reply:
    """One turn asking ``name`` for each of ``cities`` (parallel ``tool_use`` blocks after one sentence)."""
    return Reply(
        [{"type": "text", "text": why}] + [{"type": "tool_use", "name": name, "input": {"city": c}} for c in cities]
    )


def adaptive_agent(request: dict, parallel: bool = True) -> Reply:
    """One agent turn on a city-task variant (see the module docstring); ``parallel=False``: one call per turn."""
    messages = request.get("messages", [])
    tools = {t.get("name") for t in request.get("tools") or []}
    task = text_of(messages[0]["content"]) if messages else ""
    zh = is_chinese(task)
    say, name = (_ZH, chinese_city) if zh else (_EN, str)
    asked_itinerary, dests, conditions, forecasts = _extras(messages)
    if "get_itinerary" in tools and not asked_itinerary and re.search(r"flight|trip|itinerar|航班|行程", task, re.I):
        return _call("get_itinerary", {}, say["flight"])
    res = read_results(messages)
    temps, retry, failed, saved = res.temps, res.retry, res.failed, res.saved
    cities = [c for c in cities_in(task) + dests]
    pending = list(dict.fromkeys(retry.get(c, c) for c in cities if retry.get(c, c) not in temps and c not in failed))
    if failed:
        return Reply([{"type": "text", "text": gave_up(failed, zh, res.retried)}])
    many = parallel and not (request.get("tool_choice") or {}).get("disable_parallel_tool_use")
    if pending:
        batch = pending if many else pending[:1]
        return _calls("get_weather", batch, say["weather"].format(say["list"].join(map(name, batch))))
    if not temps:
        return Reply([{"type": "text", "text": say["none"]}])
    rainy = (
        [c for c, cond in conditions.items() if "rain" in cond.casefold()]
        if re.search(r"if it rains|下雨", task, re.I)
        else []
    )
    todo = [c for c in rainy if c not in forecasts]
    if todo and "get_forecast" in tools:
        batch = todo if many else todo[:1]
        return _calls("get_forecast", batch, say["rain"].format(say["and"].join(map(name, batch))))
    answer = compare_text({name(c): t for c, t in temps.items()}, zh)
    for city, fc in forecasts.items():
        cond = fc.get("condition", "unknown")
        answer += say["tomorrow"].format(name(city), fc.get("temp_c", "?"), _SKY.get(cond, cond) if zh else cond)
    wants_note = "save_note" in tools and NOTE_ASKED.search(task)
    if wants_note and not saved:
        return Reply([{"type": "tool_use", "name": "save_note", "input": {"text": answer}}])
    return Reply([{"type": "text", "text": answer + (say["saved"] if saved else "")}])


_EN = {
    "flight": "First I'll look up where your flight goes.",
    "weather": "Let me look up the weather in {}.",
    "none": "I need two or more cities to compare.",
    "list": ", ",
    "and": " and ",
    "rain": "It is raining in {}; let me check tomorrow.",
    "tomorrow": " Tomorrow in {}: {:g}°C, {}.",
    "saved": " I saved a note with this.",
}
_ZH = {
    "flight": "我先查一下你的航班飞往哪里。",
    "weather": "我来查一下{}的天气。",
    "none": "我需要两个或更多城市才能比较。",
    "list": "、",
    "and": "和",
    "rain": "{}在下雨；我查一下明天的天气。",
    "tomorrow": "明天{}：{:g}°C，{}。",
    "saved": "我已保存笔记。",
}
"""What the agent says, by the task's language."""
_SKY = {"sunny": "晴", "clear": "晴朗", "cloudy": "多云", "light rain": "小雨", "thunderstorms": "雷阵雨"}
"""The forecast data's conditions in Chinese; one the table lacks stays as the tool wrote it."""
