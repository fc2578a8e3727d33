"""Simulated models that end a turn with the rarer stop reasons, so the loop's handling of each can be seen.

- ``Refuser``: does the task like ``CarefulAgent`` for ``after`` replies, then answers with
  ``stop_reason: "refusal"`` and no content (the harness must not pass earlier text off as an answer).
- ``Pauser``: answers its first ``pauses`` replies with ``stop_reason: "pause_turn"``, as the API does
  when a server tool's loop (web search, say) reaches its iteration limit mid-turn; sent back as is,
  the turn resumes and the model then does the task like ``CarefulAgent``.
- ``Rambler``: does the task like ``CarefulAgent`` but adds a long "P.S." after its final answer; a
  request's ``stop_sequences`` (``RAMBLE_MARK``) cuts the reply there (``stop_reason: "stop_sequence"``).

``max_tokens`` needs no model of its own: any reply longer than the request's ``max_tokens`` is cut by
the simulator, and a tool call it cuts is dropped (``respond._cap``).

Scripted stand-ins: when Claude refuses or pauses is not how these are written. Every one is deterministic.
"""

from __future__ import annotations

from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.policy import Policy, Reply

RAMBLE_MARK = "\n\nP.S."
"""Where the ``Rambler``'s afterthought begins: the stop sequence that cuts it off."""
PAUSED_TEXT = "Searching the web for the forecasts (the search is still running)."
"""What a ``Pauser`` writes in each paused turn."""


def _replies(request: dict) -> int:
    """How many assistant messages the request's history holds (the model's replies so far)."""
    return sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")


def _whole(owner: str, name: str, value: object, what: str) -> int:
    """``value`` if it is a whole number >= 0, else the ValueError naming the field and the fix."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{owner}({name}={value!r}): give a whole number >= 0 of {what}")
    return value


class Refuser:
    """Does the task like ``policy`` for ``after`` replies, then refuses: no content, ``stop_reason: "refusal"``."""

    def __init__(self, after: int = 1, policy: Policy | None = None) -> None:
        self.after = _whole("Refuser", "after", after, "replies before the refusal")
        self.policy = policy if policy is not None else CarefulAgent()

    def __call__(self, request: dict) -> Reply:
        if _replies(request) >= self.after:
            return Reply([], stop_reason="refusal")
        return self.policy(request)


class Pauser:
    """Pauses its first ``pauses`` replies (``pause_turn``), then answers like ``policy`` (the paused text unseen)."""

    def __init__(self, pauses: int = 2, policy: Policy | None = None) -> None:
        self.pauses = _whole("Pauser", "pauses", pauses, "paused replies")
        self.policy = policy if policy is not None else CarefulAgent()

    def __call__(self, request: dict) -> Reply:
        paused = [m for m in request.get("messages", []) if m.get("role") == "assistant" and _is_paused(m)]
        if len(paused) < self.pauses:  # a server tool call left without its result: the turn goes on later
            call = {
                "type": "server_tool_use",
                "id": f"srvtoolu_sim_{len(paused):04d}",
                "name": "web_search",
                "input": {"query": "weather forecast"},
            }
            return Reply([{"type": "text", "text": PAUSED_TEXT}, call], stop_reason="pause_turn")
        kept = [m for m in request.get("messages", []) if not (m.get("role") == "assistant" and _is_paused(m))]
        return self.policy({**request, "messages": kept})  # the resumed turn: the inner model never sees the pause


def _is_paused(message: dict) -> bool:
    """True for an assistant message that is one of the ``Pauser``'s paused turns."""
    content = message.get("content")
    return isinstance(content, list) and any(
        b.get("type") == "text" and b.get("text") == PAUSED_TEXT for b in content if isinstance(b, dict)
    )


class Rambler:
    """Like ``policy``, but a final answer (no tool call) goes on with ``RAMBLE_MARK`` and an afterthought."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy if policy is not None else CarefulAgent()

    def __call__(self, request: dict) -> Reply:
        reply = self.policy(request)
        if any(b.get("type") == "tool_use" for b in reply.content):
            return reply
        text = " ".join(b["text"] for b in reply.content if b.get("type") == "text")
        ramble = (
            RAMBLE_MARK
            + " While I am here, a few words on climate, seasons and packing lists"
            + ", and more" * 20
            + "."
        )
        return Reply([{"type": "text", "text": text + ramble}], stop_reason=reply.stop_reason)
