"""The simulated agent on the task variants a fixed workflow did not foresee.

``CarefulAgent`` hands over to ``adaptive_agent`` when the request offers ``get_itinerary`` or
``get_forecast`` (see ``roles.role_for``). It does what a careful agent would with them:

- the task mentions a flight or trip and ``get_itinerary`` is offered: ask for it first, and treat
  the destination it returns as one more city to compare (a city the user never typed);
- the task says "if it rains": after the temperatures, ask ``get_forecast`` for each city whose
  reading says rain, and add tomorrow's forecast to the answer;
- otherwise, exactly ``CarefulAgent``'s steps (a misspelt city is retried from "Did you mean").

Independent calls go in one turn, as the recorded real models make them (every city's ``get_weather``;
the corrected names after "Did you mean" errors; each rainy city's ``get_forecast``); one call per turn
when the request sets ``tool_choice`` ``disable_parallel_tool_use`` or the model was made with
``parallel=False``. ``get_itinerary`` comes first, alone: the cities to look up depend on it. Every
number it writes comes from a tool result in the conversation.
"""

from __future__ import annotations

import json
import re

from agentlab.sim.models.city_task import compare_text, gave_up, read_results
from agentlab.sim.models.reading import cities_in, exchanges, text_of, tool_uses
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
    asked_itinerary, dests, conditions, forecasts = _extras(messages)
    if "get_itinerary" in tools and not asked_itinerary and re.search(r"flight|trip|itinerar", task, re.I):
        return _call("get_itinerary", {}, "First I'll look up where your flight goes.")
    res = read_results(messages)
    temps, retry, failed, saved = res.temps, res.retry, res.failed, res.saved
    cities = [c for c in cities_in(task) + dests]
    pending = list(dict.fromkeys(retry.get(c, c) for c in cities if retry.get(c, c) not in temps and c not in failed))
    if failed:
        return Reply([{"type": "text", "text": gave_up(failed, False, res.retried)}])
    many = parallel and not (request.get("tool_choice") or {}).get("disable_parallel_tool_use")
    if pending:
        batch = pending if many else pending[:1]
        return _calls("get_weather", batch, f"Let me look up the weather in {', '.join(batch)}.")
    if not temps:
        return Reply([{"type": "text", "text": "I need two or more cities to compare."}])
    rainy = (
        [c for c, cond in conditions.items() if "rain" in cond.casefold()]
        if re.search(r"if it rains", task, re.I)
        else []
    )
    todo = [c for c in rainy if c not in forecasts]
    if todo and "get_forecast" in tools:
        batch = todo if many else todo[:1]
        return _calls("get_forecast", batch, f"It is raining in {' and '.join(batch)}; let me check tomorrow.")
    answer = compare_text(temps)
    for city, fc in forecasts.items():
        answer += f" Tomorrow in {city}: {fc.get('temp_c', '?'):g}°C, {fc.get('condition', 'unknown')}."
    wants_note = "save_note" in tools and re.search(r"note|save", task, re.I)
    if wants_note and not saved:
        return Reply([{"type": "tool_use", "name": "save_note", "input": {"text": answer}}])
    return Reply([{"type": "text", "text": answer + (" I saved a note with this." if saved else "")}])
