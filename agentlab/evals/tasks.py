"""The eval's task set: the course's city task and its siblings, each with an answer code can check.

Every task asks which of its cities is warmest and to save a note with the answer. A trial succeeds when
the notes file holds a note that names every city's temperature as the weather data gives it and names
the warmest city first. The check reads the note the tools wrote, never the model's last words: a run that
says "I saved the note" and saved nothing fails.

The rule fits how a careful answer is usually written ("Paris is warmer at 18.5°C, compared with London at
15°C"). A live model's note written another way ("London is cooler than Paris") fails it: read a live
run's failures before counting them as the model's.
"""

from __future__ import annotations

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


def check(task: EvalTask, notes_dir: str | Path) -> str | None:
    """``None`` when the trial succeeded, else why it failed (one short phrase, the ``why`` column)."""
    notes = Path(notes_dir) / "notes.md"
    text = notes.read_text("utf-8") if notes.is_file() else ""
    if not text.strip():
        return "no note saved"
    temps = task.temperatures()
    named = sorted((text.find(name_in(c, task.lang)), c) for c in temps if name_in(c, task.lang) in text)
    if len(named) < len(temps):
        return "a city missing from the note"
    if any(f"{t:g}°C" not in text for t in temps.values()):
        return "a temperature missing or wrong"
    if named[0][1] != max(temps, key=temps.get):
        return "names the wrong city as warmest"
    return None
