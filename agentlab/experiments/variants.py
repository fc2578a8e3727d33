"""Variants of the city task that a fixed workflow did not foresee, and a check of each outcome.

- ``misspelt``: the user typed "Pariss" (the weather tool answers "Did you mean: Paris?");
- ``itinerary``: a third city appears only in a tool result (``get_itinerary``: where the flight lands);
- ``rain``: "if it rains in either city, also check tomorrow" (``get_forecast``), a step that
  depends on what a tool returned.

Both sides get the same tools. The workflow is ``run_workflow`` as written (cities in, one note
out); the agent is ``run_agent``. ``check`` decides success from the saved note alone, the same way
for both. The itinerary and forecast are bundled, made-up data (``data/variants.json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentlab.tools import Tool, ToolError, tool
from agentlab.weather import get_weather, lookup, make_save_note


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


def variants() -> list[Variant]:
    """The variant set of the replacement experiment: two plain tasks, then three the workflow did not foresee."""
    return [
        Variant(
            "plain",
            "Which is warmer today, Paris or London? Compare their temperatures, then save a note with the answer.",
            ["Paris", "London"],
            ["Paris", "London"],
        ),
        Variant(
            "three cities",
            "Which is warmer today, Madrid, Oslo or Cairo? Compare their temperatures, then "
            "save a note with the answer.",
            ["Madrid", "Oslo", "Cairo"],
            ["Madrid", "Oslo", "Cairo"],
        ),
        Variant(
            "misspelt",
            "Which is warmer today, Pariss or London? Compare their temperatures, then save a note with the answer.",
            ["Pariss", "London"],
            ["Paris", "London"],
        ),
        Variant(
            "itinerary",
            "Which is warmer today: Paris, Rome, or the city my next flight lands in? Compare "
            "their temperatures, then save a note with the answer.",
            ["Paris", "Rome"],
            ["Paris", "Rome", "Lisbon"],
        ),
        Variant(
            "rain",
            "Which is warmer today, Berlin or Madrid? If it rains in either city, also check "
            "tomorrow's forecast for it. Then save a note with the answer.",
            ["Berlin", "Madrid"],
            ["Berlin", "Madrid"],
            ["Berlin"],
        ),
    ]


def check(variant: Variant, notes_dir: str | Path) -> tuple[bool, str]:
    """Did the run do the task? Reads the saved note: every required temperature, every forecast."""
    note = Path(notes_dir) / "notes.md"
    if not note.exists():
        return False, "no note was saved"
    text = note.read_text("utf-8")
    for city in variant.must_mention:
        t = lookup(city)["temp_c"]
        if city not in text or f"{t:g}°C" not in text:
            return False, f"the note does not give {city}'s temperature ({t:g}°C)"
    for city in variant.forecast_for:
        fc = variant_data()["forecast"][city]
        if "tomorrow" not in text.casefold() or f"{fc['temp_c']:g}°C" not in text:
            return False, f"the note does not give tomorrow's forecast for {city}"
    return True, "the note has every required figure"
