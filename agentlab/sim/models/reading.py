"""What the simulated models read in a transcript: text, cities, tool exchanges, errors.

Every simulated model (``careful``, ``adaptive``, ``roles``, ``react``, ``gullible``, ``context_agent``,
``misbehaving``) reads the request the same way, so the helpers live here once: the text of a
content value, the cities a task names (from the lab's weather data file, the names the simulated
model "knows"), each ``tool_use`` paired with its ``tool_result`` (:func:`exchanges`), and how a
careful model reads an error text.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Iterator

CJK = re.compile(r"[\u4e00-\u9fff]")
"""A Chinese character: a task with one is answered in Chinese."""
_LISTED = re.compile(r"(?:\b(?:or|and|vs\.?)\s+|,\s*|[和或、，]\s*)([A-Z][a-zA-Z-]+(?:\s[A-Z][a-zA-Z-]+)*)")
_NEAR_MISS = re.compile(r"(?<![A-Za-z0-9])[A-Z][a-z]+(?![A-Za-z0-9])")
"""A capitalised Latin word; bounded by non-Latin letters, so "比较Pariss和伦敦" still yields "Pariss"."""


def _latin_alnum(ch: str) -> bool:
    """True for an ASCII letter or digit: what may not touch a Latin city name (Chinese characters may)."""
    return ch.isascii() and ch.isalnum()


def text_of(content: Any) -> str:
    """The text of a content value: a string as it is, the text blocks of a list joined by spaces."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def is_chinese(text: str) -> bool:
    """True when ``text`` has a Chinese character."""
    return bool(CJK.search(text))


@lru_cache(maxsize=1)
def known_cities() -> tuple[str, ...]:
    """The city names the simulated model knows, lower-cased, English and Chinese: those of the lab's weather
    data (``agentlab/data/weather.json``).

    Read from the data file, not from the harness's ``weather`` module, so ``sim/`` imports nothing outside itself.
    """
    return tuple(dict.fromkeys(n.casefold() for rec in _cities() for n in rec["names"]))


@lru_cache(maxsize=1)
def _cities() -> list[dict]:
    """The city records of the lab's weather data, read once."""
    return json.loads(resources.files("agentlab").joinpath("data/weather.json").read_text("utf-8"))["cities"]


@lru_cache(maxsize=1)
def _chinese_names() -> dict[str, str]:
    return {n.casefold(): rec["names"][1] for rec in _cities() if len(rec["names"]) > 1 for n in rec["names"]}


def chinese_city(name: str) -> str:
    """The Chinese name the lab's weather data gives the city ``name`` (``"Paris"`` -> 巴黎, 巴黎 -> 巴黎); an
    unknown name comes back as written. A tool result names the city in English whatever it was asked."""
    return _chinese_names().get(name.strip().casefold(), name)


def cities_in(text: str) -> list[str]:
    """City names in ``text`` in order of appearance: known names, and capitalised near-misses as written."""
    return list(_cities_in(text))


@lru_cache(maxsize=1024)  # the task is re-read every turn; near-miss matching (difflib) is the costly part
def _cities_in(text: str) -> tuple[str, ...]:
    found: list[tuple[int, str]] = []
    lowered = text.casefold()
    names = sorted(known_cities(), key=len, reverse=True)
    taken = [False] * len(text)
    for name in names:
        for m in re.finditer(re.escape(name), lowered):
            s, e = m.span()
            ascii_word = name.isascii()
            if ascii_word and (
                (s > 0 and _latin_alnum(lowered[s - 1])) or (e < len(text) and _latin_alnum(lowered[e]))
            ):
                continue
            if not any(taken[s:e]):
                taken[s:e] = [True] * (e - s)
                found.append((s, text[s:e]))
    for m in _NEAR_MISS.finditer(text):  # a misspelt city is still a city the user asked about
        if not any(taken[m.start() : m.end()]) and difflib.get_close_matches(
            m.group().casefold(), names, n=1, cutoff=0.75
        ):
            found.append((m.start(), m.group()))
            taken[m.start() : m.end()] = [True] * (m.end() - m.start())
    for m in _LISTED.finditer(text):  # "..., Paris or Atlantis": a name in a list of places, known or not
        s, e = m.span(1)
        if not any(taken[s:e]):
            found.append((s, m.group(1)))
    return tuple(n for _, n in sorted(found))


@dataclass(frozen=True)
class Exchange:
    """One ``tool_use`` of the transcript and the ``tool_result`` that answered it."""

    name: str
    """The tool asked for."""
    input: dict
    """The arguments asked for (``{}`` when none)."""
    result: dict
    """The ``tool_result`` block."""
    id: str | None = None
    """The ``tool_use`` id the result answers."""
    at: int = 0
    """Where the result is: the index in ``messages`` of the message that carries it."""

    @property
    def body(self) -> str:
        """The result's text (a string content as it is, text blocks joined)."""
        return text_of(self.result.get("content", ""))

    @property
    def is_error(self) -> bool:
        """True when the result was sent with ``is_error``."""
        return bool(self.result.get("is_error"))


def _blocks(messages: list[dict]) -> Iterator[tuple[int, dict]]:
    """Every content block of the transcript as ``(index of its message, block)``, in order."""
    for at, msg in enumerate(messages):
        content = msg.get("content")
        if isinstance(content, list):
            yield from ((at, b) for b in content if isinstance(b, dict))


def tool_uses(messages: list[dict]) -> Iterator[dict]:
    """Every ``tool_use`` block of the transcript, in order, answered or not."""
    return (b for _, b in _blocks(messages) if b.get("type") == "tool_use")


def exchanges(messages: list[dict]) -> Iterator[Exchange]:
    """Each ``tool_result`` in the transcript with the ``tool_use`` it answers, in order (unanswered calls and
    results with no matching call are skipped; :func:`tool_uses` lists every call)."""
    calls: dict[str, tuple[str, dict]] = {}
    for at, b in _blocks(messages):
        if b.get("type") == "tool_use":
            calls[b.get("id")] = (b.get("name"), b.get("input") or {})
        elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
            name, inp = calls[b["tool_use_id"]]
            yield Exchange(name, inp, b, b["tool_use_id"], at)


_FIX = re.compile(
    r"Did you mean|你是不是指|missing required field|缺少必填字段|must be of type|类型必须是|"
    r"Available tools|可用的工具|valid fields|有效字段|Ask for less|请求更少"
)
_FINAL = re.compile(
    r"not found|no such|does not exist|doesn't exist|forbidden|permission denied|not allowed|refus|"
    r"impossible|not supported|^Unknown city|No forecast for|不存在|找不到|禁止|拒绝|无权|不支持|^未知城市|没有 '",
    re.I | re.M,
)
_TRANSIENT = re.compile(
    r"try again|timed? ?out|did not answer within|unavailable|rate.?limit|overloaded|temporar|"
    r"再试|超时|没有响应|暂时|不可用|限流|过载",
    re.I,
)


def read_error(body: str) -> str:
    """How a careful model reads an ``is_error`` text, by what it says: ``"traceback"`` (raw Python: not read
    by meaning), ``"fix"`` (it says what to change), ``"final"`` (not found, forbidden, impossible: retrying
    cannot help), ``"retry"`` (transient: timed out, unavailable, rate limited, try again) or ``"opaque"``."""
    if body.lstrip().startswith("Traceback (most recent call last)"):
        return "traceback"
    if _FIX.search(body):
        return "fix"
    return "final" if _FINAL.search(body) else "retry" if _TRANSIENT.search(body) else "opaque"


@lru_cache(maxsize=1)
def _retry_data() -> dict:
    raw = json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))
    return raw["error_retries"]


def retry_limit(kind: str) -> int:
    """How many times a careful model retries after an error of this :func:`read_error` kind: ``retry``
    (transient) the same call up to ``error_retries.transient`` times, ``fix`` with the corrected argument
    ``error_retries.fix`` times, ``traceback`` blindly ``error_retries.traceback`` times, anything else never
    (``data/profiles.json``; its sources say which figure is recorded and which is a stand-in)."""
    data = _retry_data()
    return int({"retry": data["transient"], "fix": data["fix"], "traceback": data["traceback"]}.get(kind, 0))


def retry_source() -> str:
    """Where the transient-retry bound comes from (the ``sources`` text ``error_retries.transient_source`` names)."""
    raw = json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))
    return raw["sources"][raw["error_retries"]["transient_source"]]


def why_failed(body: str) -> str:
    """The part of an error worth repeating to the user: its last non-empty line, shortened."""
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else "no details"
    return last if len(last) <= 120 else last[:117] + "..."


def temperature(body: str) -> float | None:
    """The temperature a result states (JSON ``temp_c``, or a number written with °C); ``None`` if none."""
    try:
        value = float(json.loads(body)["temp_c"])
    except (ValueError, KeyError, TypeError):
        m = re.search(r"(-?\d+(?:\.\d+)?)\s*°\s*C", body)
        value = float(m.group(1)) if m else None
    return value if value is not None and math.isfinite(value) else None
