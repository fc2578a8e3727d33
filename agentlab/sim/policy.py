"""Policies: what the simulated model "decides" to write for a request.

A policy is any callable ``policy(request: dict) -> Reply``: it gets the parsed Messages API request
body and returns content blocks. The simulator wraps them into a real API response (ids, usage,
stop reason). Three are provided:

- ``CarefulAgent`` (``models/careful.py``): acts as a careful agent would on the course's tasks.
- ``FunctionModel(fn)``: your function writes the reply, like pydantic-ai's ``FunctionModel``.
- ``ScriptedModel([...])``: an exact script of replies; running past its end is a clear error.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from agentlab.sim.errors import SimAPIError


@dataclass
class Reply:
    """What the simulated model writes for one request."""

    content: list[dict]
    """Content blocks (``{"type": "text", ...}`` / ``{"type": "tool_use", "name", "input"}``); ids are filled in."""
    stop_reason: str | None = None
    """``None`` means: ``"tool_use"`` if a block asks for a tool, else ``"end_turn"``."""


@runtime_checkable
class Policy(Protocol):
    """Anything that maps a request body to a :class:`Reply`.

    The simulator (``server.py``, through ``respond.build_message``) calls it once per Messages API
    request, after validating the request and applying any ``context_management`` edits, with the body
    as the model sees it; it wraps what comes back (via :func:`as_reply`) into a real API response.
    """

    def __call__(self, request: dict) -> Reply: ...


def as_reply(value: Any) -> Reply:
    """Accept a Reply, a string (one text block), a block dict, or a list of blocks/strings."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"a policy must return a Reply, a string or a list of content blocks, got {type(value).__name__}"
        )
    blocks = [{"type": "text", "text": b} if isinstance(b, str) else dict(b) for b in value]
    for b in blocks:
        if b.get("type") == "tool_use" and not isinstance(b.get("name"), str):
            raise ValueError(f"a tool_use block needs a 'name' (str); got {b!r}")
        if b.get("type") == "tool_use":
            b.setdefault("input", {})
    return Reply(blocks)


class FunctionModel:
    """A policy backed by your function ``fn(messages, info) -> blocks``.

    ``messages`` is the request's message list; ``info`` is the whole request body (``tools``,
    ``system``, ``max_tokens``...). Return a string, a list of blocks, or a :class:`Reply`.
    """

    def __init__(self, fn: Callable[[list[dict], dict], Any]) -> None:
        self.fn = fn

    def __call__(self, request: dict) -> Reply:
        return as_reply(self.fn(request.get("messages", []), request))


class ScriptExhausted(SimAPIError):
    """The script has no reply left for this request."""


class ScriptedModel:
    """A policy that replies with ``script[0]``, then ``script[1]``, ... exactly, whatever was asked."""

    def __init__(self, script: Sequence[Any]) -> None:
        self.script = [as_reply(s) for s in script]
        self.position = 0
        self._lock = threading.Lock()  # calls from parallel threads each take the next reply once

    def __call__(self, request: dict) -> Reply:
        with self._lock:
            if self.position >= len(self.script):
                raise ScriptExhausted(
                    "api_error",
                    f"ScriptedModel: the script has {len(self.script)} replies and request "
                    f"{self.position + 1} arrived. Add replies to the script, or lower max_turns.",
                )
            reply = self.script[self.position]
            self.position += 1
        return reply
