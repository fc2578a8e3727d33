"""``VariedAgent``: the careful agent with a seed, so repeated trials of one task differ as real runs do.

A real model does not take the same path every time: it calls independent tools together or one by one,
mistypes an argument now and then, words its answer differently, and sometimes says it is done when it is
not. ``VariedAgent(seed)`` takes ``CarefulAgent``'s reply and, with the rates in :class:`Rates`, changes it
in one of those ways. Every draw is fixed by the seed, the conversation's first message and the request's
position in it, so the same seed gives the same run, whatever else shares the simulator; ``CarefulAgent``
itself (every default run) stays deterministic and untouched.

The rates are **stand-ins, not measurements**. The recorded real runs bundled with agentlab
(``agentlab/data/real_runs/``, pydantic-ai's cassettes) hold one turn with two independent tools to call, and
it asked for both at once: one observation, no rate. The other variations have no recorded source at all. A
result that depends on them holds for this scripted model only. A mistyped city drops a Latin-script name's
last letter, so the Chinese task (two-character names) never gets one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.reading import cities_in, is_chinese, text_of
from agentlab.sim.policy import Reply


@dataclass(frozen=True)
class Rates:
    """How often each variation happens, per chance to happen (stand-ins: see the module docstring)."""

    one_at_a_time: float = 0.25
    """A turn that asks for several tools asks for only the first (the rest in later turns): more turns."""
    typo: float = 0.1
    """A ``get_weather`` call's city loses its last letter: the tool answers "Did you mean", one more turn."""
    claims_done: float = 0.08
    """Instead of calling ``save_note``, the reply ends the run saying the note is saved: a failure only a
    check of the outcome sees, since the text says it succeeded."""
    wrong_city: float = 0.04
    """The note names the wrong city as the warmest (the agent's ``save_note``, and a workflow's written note)."""

    def __post_init__(self) -> None:
        for name, rate in vars(self).items():
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
                raise ValueError(f"Rates({name}={rate!r}): a rate is a number from 0 to 1, e.g. {name}=0.1")


OPENINGS = {"en": ("", "Done. ", "Here is what I found. ", "All set. "), "zh": ("", "好的。", "查到了。", "完成了。")}
"""Words the final answer may start with, by the task's language: wording varies, the outcome does not."""


class VariedAgent:
    """``CarefulAgent`` with seeded variation (see the module docstring)."""

    def __init__(self, seed: int, rates: Rates | None = None, parallel: bool = True) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"VariedAgent(seed={seed!r}): give a whole number; the same seed gives the same run")
        self.seed, self.rates, self.inner = seed, rates or Rates(), CarefulAgent(parallel)

    def _draw(self, request: dict, what: str) -> random.Random:
        n = len(request.get("messages") or [])
        return random.Random(f"{self.seed}|{_first_text(request)}|{n}|{what}")

    def __call__(self, request: dict) -> Reply:
        reply = self.inner(request)
        blocks = [dict(b) for b in reply.content]
        calls = [b for b in blocks if b.get("type") == "tool_use"]
        r = self.rates
        if len(calls) > 1 and self._draw(request, "one_at_a_time").random() < r.one_at_a_time:
            blocks = [b for b in blocks if b.get("type") != "tool_use" or b is calls[0]]
            calls = calls[:1]
        for i, call in enumerate(calls):
            city = (call.get("input") or {}).get("city")
            if call.get("name") == "get_weather" and isinstance(city, str) and len(city) > 3:
                if not _after_error(request) and self._draw(request, f"typo{i}").random() < r.typo:
                    call["input"] = {**call["input"], "city": city[:-1]}
            if call.get("name") == "save_note":
                if self._draw(request, "claims_done").random() < r.claims_done:
                    return Reply([{"type": "text", "text": "I saved the note: " + _said(call)}])
                if self._draw(request, "wrong_city").random() < r.wrong_city:
                    call["input"] = {**call["input"], "text": swap_warmest(_said(call))}
        if reply.stop_reason in (None, "end_turn") and not calls:
            openings = OPENINGS["zh" if is_chinese(_first_text(request)) else "en"]
            opening = openings[self._draw(request, "wording").randrange(len(openings))]
            blocks = [
                {**b, "text": opening + b["text"]} if b.get("type") == "text" else b for b in blocks[:1]
            ] + blocks[1:]
            if _is_note_writer(request) and self._draw(request, "wrong_city").random() < r.wrong_city:
                blocks = [{**b, "text": swap_warmest(b["text"])} if b.get("type") == "text" else b for b in blocks]
        return Reply(blocks, None if reply.stop_reason in (None, "tool_use") else reply.stop_reason)


def _after_error(request: dict) -> bool:
    """True when the last message carries a tool error: the retry after "Did you mean" is never mistyped."""
    last = (request.get("messages") or [{}])[-1]
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("is_error") for b in content)


def _said(call: dict) -> str:
    return str((call.get("input") or {}).get("text", ""))


def _first_text(request: dict) -> str:
    first = (request.get("messages") or [{}])[0]
    return text_of(first.get("content", "")) if isinstance(first, dict) else ""


def _is_note_writer(request: dict) -> bool:
    """A workflow's one writing call: no tools, asked for a note saying which city is warmest."""
    text = _first_text(request)
    return not request.get("tools") and ("which city is warmest" in text or "哪个城市最暖和" in text)


def swap_warmest(text: str) -> str:
    """``text`` with the first city it names (the careful agent names the warmest first) and the next one
    swapped: a note that names the wrong city as the warmest. Unchanged when it names fewer than two."""
    named = cities_in(text)
    if len(named) < 2:
        return text
    first, second = named[0], named[1]
    return text.replace(first, "\0").replace(second, first).replace("\0", second)
