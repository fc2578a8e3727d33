"""The course task's tools: ``get_weather(city)`` over bundled data and ``save_note(text)``.

The weather is a fixed, made-up table (``data/weather.json``, degrees Celsius, >= 30 cities with
English and Chinese names) so every run is reproducible offline. It is not live data.
"""

from __future__ import annotations

import difflib
import json
import zlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentlab.sandbox import Folder, SandboxPathError
from agentlab.tools import Tool, ToolError, tool


@lru_cache(maxsize=1)
def weather_table() -> dict[str, dict]:
    """Every accepted city name (English and Chinese, lower-cased) mapped to its record."""
    raw = json.loads(resources.files("agentlab").joinpath("data/weather.json").read_text("utf-8"))
    table: dict[str, dict] = {}
    for rec in raw["cities"]:
        for n in rec["names"]:
            table[n.casefold()] = rec
    return table


def city_names(lang: str = "en") -> list[str]:
    """The cities in the data, by their English (``lang="en"``) or Chinese (``"zh"``) name."""
    idx = 0 if lang == "en" else 1
    seen = {id(r): r for r in weather_table().values()}
    return [r["names"][idx] for r in seen.values()]


def lookup(city: str) -> dict:
    """The weather record for ``city``; an unknown city raises ToolError naming close matches."""
    rec = weather_table().get(city.strip().casefold())
    if rec is not None:
        return {"city": rec["name"], "temp_c": rec["temp_c"], "condition": rec["condition"]}
    names = sorted({n for r in weather_table().values() for n in r["names"]})
    close = difflib.get_close_matches(city.strip(), names, n=3, cutoff=0.6)
    hint = f"Did you mean: {', '.join(close)}?" if close else f"Known cities include: {', '.join(names[:8])}, ..."
    raise ToolError(f"Unknown city '{city}'. {hint} Call get_weather again with one of these names.")


@tool
def get_weather(city: str) -> dict:
    """Get today's temperature (degrees Celsius) and conditions for a city.

    Args:
        city: The city's name, e.g. "Paris" or "上海".
    """
    return lookup(city)


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_CONDITIONS = ("sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy", "fog")


def forecast(rec: dict, days: int) -> list[dict]:
    """A made-up but stable ``days``-day forecast around a city's temperature (same city, same forecast)."""
    seed = zlib.crc32(rec["name"].encode("utf-8"))
    out = []
    for d in range(days):
        r = (seed >> (d % 24)) ^ (seed * (d + 7))
        high = rec["temp_c"] + (r % 7) - 3
        out.append(
            {
                "day": _DAYS[d % 7],
                "high_c": high,
                "low_c": high - 4 - (r >> 3) % 6,
                "condition": _CONDITIONS[(r >> 5) % len(_CONDITIONS)],
                "rain_chance_pct": (r >> 7) % 10 * 10,
                "wind_kmh": 5 + (r >> 9) % 30,
                "humidity_pct": 40 + (r >> 11) % 50,
                "uv_index": (r >> 13) % 9,
            }
        )
    return out


def make_get_weather(forecast_days: int = 0) -> Tool:
    """The ``get_weather`` tool; with ``forecast_days`` > 0 each result also carries a daily forecast.

    A forecast makes every result a few hundred tokens (about 60 per day by the simulator's estimate),
    as real weather APIs' answers are, so the conversation history grows fast.
    """
    if not isinstance(forecast_days, int) or not 0 <= forecast_days <= 14:
        raise ValueError(f"forecast_days must be a whole number from 0 to 14, got {forecast_days!r}")
    if forecast_days == 0:
        return get_weather

    @tool(name="get_weather")
    def get_weather_with_forecast(city: str) -> dict:
        """Get today's temperature (degrees Celsius) and conditions for a city, with a daily forecast.

        Args:
            city: The city's name, e.g. "Paris" or "上海".
        """
        today = lookup(city)
        return {**today, "forecast": forecast(weather_table()[city.strip().casefold()], forecast_days)}

    return get_weather_with_forecast


def make_save_note(notes_dir: str | Path) -> Tool:
    """A ``save_note`` tool that appends to ``notes.md`` inside ``notes_dir`` and nowhere else.

    The file is opened relative to the open folder without following a link, under the folder's lock
    (``agentlab.sandbox.Folder``): a ``notes.md`` swapped for a symlink or a hard link is refused, even
    mid-run, and concurrent notes are all kept."""
    box = Folder(notes_dir)

    @tool(name="save_note")
    def save_note(text: str) -> str:
        """Save a short note for the user. Appends the text to the notes file.

        Args:
            text: The note to save.
        """
        if not isinstance(text, str):
            raise ToolError(f'save_note(text={text!r}): text must be a string, e.g. "Paris is warmer".')
        try:
            box.append(["notes.md"], text.rstrip() + "\n", "notes.md")
        except SandboxPathError as e:
            raise ToolError(f"The notes file may point outside the notes folder; refusing to write: {e}") from None
        return f"Saved note ({len(text)} characters)."

    return save_note


def task_tools(notes_dir: str | Path, forecast_days: int = 0) -> list[Tool]:
    """The two tools of the city-temperature task, with notes kept in ``notes_dir``.

    ``forecast_days`` > 0 makes ``get_weather`` return a forecast too (see :func:`make_get_weather`).
    """
    return [make_get_weather(forecast_days), make_save_note(notes_dir)]


def city_task(cities: list[str], lang: str | None = None) -> str:
    """The course task's prompt for two or more cities, in English (``"en"``) or Chinese (``"zh"``).

    ``lang=None`` writes it in the notebook's language (:func:`agentlab.views.i18n.language`), so the
    same code cell asks in Chinese in the zh-CN edition. The Chinese task names each city the data
    knows by its Chinese name (``"Paris"`` -> 巴黎); a name the data does not know stays as written.
    """
    if isinstance(cities, str) or not all(isinstance(c, str) for c in cities):
        raise ValueError(
            f"city_task(cities={cities!r}): pass a list of city names, e.g. city_task(['Paris', 'London'])"
        )
    from agentlab.views.i18n import task_language

    lang = task_language(lang, "city_task")
    if len(cities) < 2:
        raise ValueError(f"the city task needs two or more cities, got {cities!r}")
    if lang == "zh":
        names = [chinese_name(c) for c in cities]
        return f"比较{'、'.join(names[:-1])}和{names[-1]}的温度，哪个更暖和？然后保存一条笔记。"
    listed = ", ".join(cities[:-1]) + f" or {cities[-1]}"
    return f"Which is warmer today, {listed}? Compare their temperatures, then save a note with the answer."


def name_in(city: str, lang: str) -> str:
    """``city`` as a task in ``lang`` names it: its Chinese name for ``"zh"`` (see :func:`chinese_name`), else as written."""
    return chinese_name(city) if lang == "zh" else city


def chinese_name(city: str) -> str:
    """The Chinese name the data gives ``city`` (``"Paris"`` -> 巴黎); an unknown name comes back as written."""
    rec = weather_table().get(city.strip().casefold())
    return rec["names"][1] if rec is not None and len(rec["names"]) > 1 else city
