"""``DescriptionReader``: a simulated model that reads tool descriptions before it calls a tool (notebook 08).

It does the city task ("which is warmer? then save a note") as ``city_steps`` does, except that it
does not know the weather tool's name or input in advance; it reads them from the ``tools`` list:

- **which tool**: the first tool whose name or description says it gives the weather or a
  temperature (``weather``, ``temperature``, ``Celsius``, ``°C``, 天气, 温度, 气温). A tool that says
  neither is not used: the model answers that its tools cannot do the task;
- **what input**: the tool's first required property (else its first property). When the tool's or
  that property's description shows an example value in quotes ("e.g. "Paris""), it writes the
  city's name as the example does. Without one it guesses how to phrase the input: with probability
  ``guess_wrong`` (seeded per city, so runs repeat exactly) a short phrase such as ``weather in Paris``,
  otherwise the bare name. After an error for a city it writes the bare name.

Nothing else in a description changes what it does (units, when to use the tool): it is a scripted
stand-in written so that an input format matters, not a measurement of how Claude reads tools.
"""

from __future__ import annotations

import hashlib
import re

from agentlab.sim.models.city_task import city_steps
from agentlab.sim.models.reading import cities_in, exchanges, is_chinese, text_of
from agentlab.sim.policy import Reply

NEEDS = re.compile(r"weather|temperature|celsius|°\s*C|天气|温度|气温", re.I)
"""Words that tell the model a tool gives what the city task needs."""
EXAMPLE = re.compile(r"(?:e\.g\.|for example|such as|例如|比如)\s*[:：,，]?\s*[\"'“‘「]", re.I)
"""An example value in quotes: what the model takes as the input's format."""
GUESSES = {"en": ("weather in {city}", "{city} temperature today"), "zh": ("{city}的天气", "{city}今天的气温")}
"""The phrases a wrong guess writes instead of the bare city name, by the task's language."""


class DescriptionReader:
    """Does the city task with whatever weather tool the request describes (see the module docstring)."""

    def __init__(self, guess_wrong: float = 0.5, seed: int = 0) -> None:
        if not 0.0 <= guess_wrong <= 1.0:
            raise ValueError(f"DescriptionReader(guess_wrong={guess_wrong!r}): give a fraction between 0 and 1")
        self.guess_wrong = guess_wrong
        """How often, with no example in the description, the first input for a city is a phrase, not the name."""
        self.seed = seed
        """Fixes which cities get a wrong guess (same seed, same run)."""

    def __call__(self, request: dict) -> Reply:
        tools = request.get("tools") or []
        messages = request.get("messages", [])
        task = text_of(messages[0]["content"]) if messages else ""
        spec = next((t for t in tools if NEEDS.search(f"{t.get('name', '')} {t.get('description', '')}")), None)
        if spec is None:  # no tool says it gives the weather: offer city_steps the tools without one
            others = [t for t in tools if t.get("name") != "get_weather"]
            return city_steps({**request, "tools": others})
        name, field, shown = _reading(spec)
        cities = cities_in(task)
        failed = {
            _city_of(str(ex.input.get(field, "")), cities)
            for ex in exchanges(messages)
            if ex.name == name and ex.is_error
        }
        native = [{"name": "get_weather"} if t is spec else t for t in tools]
        step = city_steps({**request, "tools": native, "messages": _as_native(messages, name, field, cities)})
        out = []
        for b in step.content:
            if b.get("type") == "tool_use" and b.get("name") == "get_weather":
                city = str(b["input"].get("city", ""))
                plain = shown or city in failed or self._draw(city) >= self.guess_wrong
                lang = "zh" if is_chinese(task) else "en"
                phrase = GUESSES[lang][int(self._draw(city, "which") * 2)]
                b = {**b, "name": name, "input": {field: city if plain else phrase.format(city=city)}}
            out.append(b)
        return Reply(out, step.stop_reason)

    def _draw(self, city: str, salt: str = "") -> float:
        """A number in [0, 1) fixed by the seed, the city and ``salt``."""
        h = hashlib.sha256(f"{self.seed}:{city}:{salt}".encode()).digest()
        return int.from_bytes(h[:8], "big") / 2**64


def _reading(spec: dict) -> tuple[str, str, bool]:
    """A tool definition as the model reads it: its name, the input property to fill, whether an example is shown."""
    schema = spec.get("input_schema") or {}
    props = schema.get("properties") or {}
    required = [r for r in schema.get("required") or [] if r in props]
    field = required[0] if required else next(iter(props), "city")
    prop = props.get(field) if isinstance(props.get(field), dict) else {}
    shown = bool(EXAMPLE.search(f"{spec.get('description', '')} {prop.get('description', '')}"))
    return str(spec.get("name", "")), field, shown


def _city_of(value: str, cities: list[str]) -> str:
    """The task's city an input names (``"weather in Paris"`` -> ``"Paris"``), else the input as it is."""
    low = value.casefold()
    return next((c for c in cities if c.casefold() in low), value)


def _as_native(messages: list[dict], name: str, field: str, cities: list[str]) -> list[dict]:
    """The transcript with calls to the described tool rewritten as ``get_weather(city=...)`` calls."""
    out = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "assistant" and isinstance(content, list):
            content = [
                {
                    **b,
                    "name": "get_weather",
                    "input": {"city": _city_of(str((b.get("input") or {}).get(field, "")), cities)},
                }
                if b.get("type") == "tool_use" and b.get("name") == name
                else b
                for b in content
            ]
        out.append({**m, "content": content})
    return out
