"""Variants of the city task that a fixed workflow did not foresee, and a check of each outcome.

- ``misspelt``: the user typed "Pariss" (the weather tool answers "Did you mean: Paris?");
- ``itinerary``: a third city appears only in a tool result (``get_itinerary``: where the flight lands);
- ``rain``: "if it rains in either city, also check tomorrow" (``get_forecast``), a step that
  depends on what a tool returned.

Both sides get the same tools. The workflow is ``run_workflow`` as written (cities in, one note
out); the agent is ``run_agent``. ``check`` decides success from the saved note alone, the same way
for both. The itinerary and forecast are bundled, made-up data (``data/variants.json``). The tasks
are written in the notebook's language, as ``city_task`` writes the course task: the zh-CN edition
sends them in Chinese, with the cities as a Chinese user types them (the typo stays "Pariss").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentlab.tools import Tool, ToolError, tool
from agentlab.views.i18n import task_language
from agentlab.weather import chinese_name, city_task, get_weather, lookup, make_save_note, name_in


@lru_cache(maxsize=1)
def variant_data() -> dict:
    """The bundled itinerary, forecasts and support tickets."""
    return json.loads(resources.files("agentlab").joinpath("data/variants.json").read_text("utf-8"))


@tool
def get_itinerary() -> dict:
    """Get the user's next flight: flight number, origin, destination city and departure."""
    return dict(variant_data()["itinerary"])


@tool
def get_forecast(city: str) -> dict:
    """Get tomorrow's forecast (degrees Celsius and conditions) for a city.

    Args:
        city: The city's name, e.g. "Berlin".
    """
    name = lookup(city)["city"]  # the same names (and "Did you mean") as get_weather
    fc = variant_data()["forecast"].get(name)
    if fc is None:
        raise ToolError(
            f"No forecast for '{name}' in this demo data; forecasts exist for: {', '.join(variant_data()['forecast'])}."
        )
    return {"city": name, "day": "tomorrow", **fc}


def variant_tools(notes_dir: str | Path) -> list[Tool]:
    """Every tool the variants use: get_weather, save_note, get_itinerary, get_forecast."""
    return [get_weather, make_save_note(notes_dir), get_itinerary, get_forecast]


@dataclass
class Variant:
    """One version of the city task and what its note must contain."""

    name: str
    """Short id, e.g. ``"misspelt"``."""
    task: str
    """The prompt the agent gets."""
    cities: list[str]
    """The cities as the user typed them: what the fixed workflow gets."""
    must_mention: list[str]
    """Cities (canonical names) whose temperature the note must give."""
    forecast_for: list[str] = field(default_factory=list)
    """Cities whose tomorrow forecast the note must give."""
    lang: str = "en"
    """The task's language, ``"en"`` or ``"zh"``; the workflow writes its note in it too."""


def variants(lang: str | None = None) -> list[Variant]:
    """The variant set of the replacement experiment: two plain tasks, then three the workflow did not foresee.

    ``lang``: ``"en"``, ``"zh"``, or ``None`` for the notebook's language (as :func:`city_task`)."""
    lang = task_language(lang, "variants")
    t = _TASKS[lang]

    def typed(*cities: str) -> list[str]:  # the cities as a user of that language types them
        return [name_in(c, lang) for c in cities]

    return [
        Variant(
            "plain",
            city_task(["Paris", "London"], lang),
            typed("Paris", "London"),
            ["Paris", "London"],
            lang=lang,
        ),
        Variant(
            "three cities",
            city_task(["Madrid", "Oslo", "Cairo"], lang),
            typed("Madrid", "Oslo", "Cairo"),
            ["Madrid", "Oslo", "Cairo"],
            lang=lang,
        ),
        Variant("misspelt", t["misspelt"], ["Pariss", *typed("London")], ["Paris", "London"], lang=lang),
        Variant("itinerary", t["itinerary"], typed("Paris", "Rome"), ["Paris", "Rome", "Lisbon"], lang=lang),
        Variant("rain", t["rain"], typed("Berlin", "Madrid"), ["Berlin", "Madrid"], ["Berlin"], lang=lang),
    ]


_TASKS = {
    "en": {
        "misspelt": "Which is warmer today, Pariss or London? Compare their temperatures, then save a note with the answer.",
        "itinerary": "Which is warmer today: Paris, Rome, or the city my next flight lands in? Compare "
        "their temperatures, then save a note with the answer.",
        "rain": "Which is warmer today, Berlin or Madrid? If it rains in either city, also check "
        "tomorrow's forecast for it. Then save a note with the answer.",
    },
    "zh": {
        "misspelt": "比较 Pariss 和伦敦的温度，哪个更暖和？然后保存一条笔记。",
        "itinerary": "比较巴黎、罗马和我下一趟航班降落的城市的温度，哪个更暖和？然后保存一条笔记。",
        "rain": "比较柏林和马德里的温度，哪个更暖和？如果其中有城市在下雨，再查一下它明天的天气预报。然后保存一条笔记。",
    },
}
"""The three variant tasks ``city_task`` cannot write, by language."""


def check(variant: Variant, notes_dir: str | Path) -> tuple[bool, str]:
    """Did the run do the task? Reads the saved note: every required temperature, every forecast."""
    note = Path(notes_dir) / "notes.md"
    if not note.exists():
        return False, "no note was saved"
    text = note.read_text("utf-8")
    for city in variant.must_mention:
        t = lookup(city)["temp_c"]
        if (city not in text and chinese_name(city) not in text) or f"{t:g}°C" not in text:
            return False, f"the note does not give {name_in(city, variant.lang)}'s temperature ({t:g}°C)"
    for city in variant.forecast_for:
        fc = variant_data()["forecast"][city]
        if not re.search(r"tomorrow|明天", text, re.I) or f"{fc['temp_c']:g}°C" not in text:
            return False, f"the note does not give tomorrow's forecast for {name_in(city, variant.lang)}"
    return True, "the note has every required figure"
