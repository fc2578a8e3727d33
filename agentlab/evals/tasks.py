"""The eval's task set: the course's city task and its siblings, each with an answer code can check.

Every task asks which of its cities is warmest and to save a note with the answer. A trial succeeds when the
notes file holds a note that gives each city with its own temperature (the first number after its name,
°C or ℃, as the weather data has it) and names the warmest city as the warmest: the city named last before
the first word of warmth ("warmer", "warmest", "更暖和", "最暖和"), or the first city named when there is
none. The check reads the note the tools wrote, never the model's last words: a run that says "I saved the
note" and saved nothing fails.

The rule fits how a careful answer is usually written ("Paris is warmer at 18.5°C, compared with London at
15°C"). A live model's note written another way ("London is cooler than Paris") can fail it: read a live
run's failures before counting them as the model's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentlab.weather import city_task, name_in, weather_table


@dataclass(frozen=True)
class EvalTask:
    """One task of the set."""

    id: str
    """A short name, the ``task`` column of the results."""
    cities: tuple[str, ...]
    """The cities it compares, by their English names in ``agentlab/data/weather.json``."""
    lang: str = "en"
    """The language the task is asked in (``"en"`` or ``"zh"``)."""

    @property
    def prompt(self) -> str:
        return city_task(list(self.cities), self.lang)

    def temperatures(self) -> dict[str, float]:
        return {c: float(weather_table()[c.casefold()]["temp_c"]) for c in self.cities}


TASKS = (
    EvalTask("paris-london", ("Paris", "London")),
    EvalTask("tokyo-sydney-cairo", ("Tokyo", "Sydney", "Cairo")),
    EvalTask("oslo-madrid", ("Oslo", "Madrid")),
    EvalTask("berlin-rome-lisbon", ("Berlin", "Rome", "Lisbon")),
    EvalTask("shanghai-beijing-zh", ("Shanghai", "Beijing"), "zh"),
)
"""The course's city task and four siblings: two or three cities, one asked in Chinese."""


_WARMTH = re.compile(r"warm(?:er|est)|更暖和|最暖和|更暖|最暖")
_TEMP = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:°C|℃)")


def check(task: EvalTask, notes_dir: str | Path) -> str | None:
    """``None`` when the trial succeeded, else why it failed (one short phrase, the ``why`` column)."""
    notes = Path(notes_dir) / "notes.md"
    text = notes.read_text("utf-8") if notes.is_file() else ""
    if not text.strip():
        return "no note saved"
    temps = task.temperatures()
    where = {c: text.find(name_in(c, task.lang)) for c in temps}
    if min(where.values()) < 0:
        return "a city missing from the note"
    warmth = _WARMTH.search(text)
    before = [c for c, at in where.items() if warmth is None or at < warmth.start()]
    claimed = max(before, key=where.get) if warmth is not None and before else min(where, key=where.get)
    if claimed != max(temps, key=temps.get):
        return "names the wrong city as warmest"
    for city, at in where.items():
        given = _TEMP.search(text, at + len(name_in(city, task.lang)))
        if given is None or float(given.group(1)) != temps[city]:
            return "a temperature missing or wrong"
    return None
