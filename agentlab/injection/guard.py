"""The data-flow guard: refuse a call whose arguments carry text that came from an untrusted result.

Taint tracking on strings, kept simple enough to read in one sitting:

- every successful result of a tool in ``untrusted`` is remembered (its text, and the string
  values inside it when it is JSON);
- before a call runs, every string in its input is compared with what was remembered: a run of at
  least ``min_chars`` characters that appears in both makes the argument *tainted*, and the call is
  refused, naming the argument, the tool the text came from, and the shared text.

What it catches: an attacker's address, link or sentence copied into a call. What it cannot catch:
a call whose arguments hold only trusted data (the user's key read from a trusted tool, or no
arguments at all), even when the *decision* to make that call came from the attacker. That is
control flow, and this guard sees only data flow. What it costs: a benign task that is *meant* to
pass untrusted text on (quote a web page in a note) is refused too. Both are counted in the matrix.

Shorter runs than ``min_chars`` (city names, numbers) pass: a lower threshold blocks more, benign
calls included. The real design this simplifies (capabilities on every value, a policy per tool)
is CaMeL's; see ``agentlab/data/injection_published.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agentlab.injection.gates import result_text
from agentlab.injection.world import UNTRUSTED

DEFAULT_MIN_CHARS = 12
"""Shortest shared run of characters that counts as carried content."""


def strings_in(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string inside ``value`` (dicts and lists walked), as ``(field path, string)``."""
    if isinstance(value, str):
        return [(path or "input", value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in strings_in(v, f"{path}[{i}]")]
    return []


def shared_run(arg: str, text: str, min_chars: int) -> str | None:
    """The longest run of ``arg`` that also appears in ``text``, if one is ``min_chars`` or longer."""
    best = None
    i = 0
    while i + min_chars <= len(arg):
        if arg[i : i + min_chars] in text:
            end = i + min_chars
            while end < len(arg) and arg[i : end + 1] in text:
                end += 1
            if best is None or end - i > len(best):
                best = arg[i:end]
            i = end
        else:
            i += 1
    return best


def carries_taint(
    tool_input: Any, sources: list[tuple[str, str]], min_chars: int = DEFAULT_MIN_CHARS
) -> tuple[str, str, str] | None:
    """The first tainted argument as ``(field, source tool, shared text)``, or ``None``.

    ``sources`` holds ``(tool name, text)`` for every untrusted result seen so far."""
    if not isinstance(min_chars, int) or isinstance(min_chars, bool) or min_chars < 1:
        raise ValueError(f"min_chars={min_chars!r}: give a whole number of characters >= 1, e.g. 12")
    for where, arg in strings_in(tool_input):
        for tool_name, text in sources:
            run = shared_run(arg, text, min_chars)
            if run is not None:
                return where, tool_name, run
    return None


@dataclass
class DataFlowGuard:
    """A gate (see ``gates.py``): refuses calls whose string arguments carry untrusted text."""

    untrusted: frozenset[str] = UNTRUSTED
    """Tools whose results are untrusted."""
    min_chars: int = DEFAULT_MIN_CHARS
    """Shortest shared run of characters that taints an argument."""
    name: str = "data-flow guard"
    """The defence's name in traces and reports."""
    sources: list[tuple[str, str]] = field(default_factory=list)
    """``(tool, text)`` of every untrusted result seen in this run."""

    def __post_init__(self) -> None:
        if not isinstance(self.min_chars, int) or isinstance(self.min_chars, bool) or self.min_chars < 1:
            raise ValueError(
                f"DataFlowGuard(min_chars={self.min_chars!r}): give a whole number of characters >= 1, "
                f"e.g. {DEFAULT_MIN_CHARS}"
            )
        self.untrusted = frozenset(self.untrusted)

    def check(self, block: dict) -> str | None:
        hit = carries_taint(block.get("input"), self.sources, self.min_chars)
        if hit is None:
            return None
        where, source, run = hit
        shown = run if len(run) <= 60 else run[:57] + "..."
        return (
            f"argument '{where}' of {block['name']} carries {len(run)} characters read from an untrusted "
            f"result of {source}: {shown!r}"
        )

    def observe(self, block: dict, result: dict) -> None:
        if block.get("name") not in self.untrusted or result.get("is_error"):
            return
        text = result_text(result)
        self.sources.append((block["name"], text))
        try:
            decoded = json.loads(text)
        except ValueError:
            return
        self.sources += [(block["name"], s) for _, s in strings_in(decoded) if s not in text]
