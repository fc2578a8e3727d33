"""Clearing old tool results: in the harness (:class:`ClearToolResults`) or by the API (:class:`ServerClearing`).

Old tool results are usually the bulk of an agent's history and are rarely needed again once the
agent has used them. Clearing replaces the content of all but the newest ``keep`` results with a
short placeholder; the ``tool_use`` blocks and their ids stay, so every ``tool_use`` is still
answered by its ``tool_result`` and the request stays valid.

- :class:`ClearToolResults` does it in the harness, to the kept history itself: input tokens per
  call fall back each time the trigger fires (a sawtooth), and what was cleared is gone for good.
- :class:`ServerClearing` asks the API to do it: the request carries ``context_management`` with
  the ``clear_tool_uses_20250919`` edit and the beta header ``context-management-2025-06-27``; the
  client keeps the full history, the server edits the prompt before the model reads it, and the
  response's ``context_management.applied_edits`` says what it cleared. The simulator applies it
  (``agentlab/sim/context_editing.py``, where the documented and the assumed parts are listed).
  Source (read 2026-11-30): https://platform.claude.com/docs/en/build-with-claude/context-editing
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BETA_HEADER = "context-management-2025-06-27"
"""The beta header that turns context editing on (the SDK lists it in ``AnthropicBetaParam``)."""
EDIT_TYPE = "clear_tool_uses_20250919"
"""The edit's ``type`` in ``context_management.edits``."""
PLACEHOLDER = "[cleared: this tool result was removed to save context]"
"""What the harness puts in place of a cleared result (our wording)."""


def clear_tool_results(
    messages: list[dict], keep: int, placeholder: str = PLACEHOLDER, exclude_tools: tuple[str, ...] = ()
) -> tuple[list[dict], int]:
    """A new history with all but the newest ``keep`` tool results replaced by ``placeholder``; and how many were cleared.

    ``messages`` is not changed. Results of ``exclude_tools`` are never cleared; one already cleared
    is not counted again.
    """
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise ValueError(f"clear_tool_results(keep={keep!r}): keep must be a whole number >= 0")
    names = {
        b["id"]: b["name"]
        for m in messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use"
    }
    order = [
        b["tool_use_id"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    old = set(order[: max(len(order) - keep, 0)])
    out, cleared = [], 0
    for m in messages:
        if m["role"] != "user" or not isinstance(m["content"], list):
            out.append(m)
            continue
        blocks = []
        for b in m["content"]:
            if (
                b.get("type") == "tool_result"
                and b["tool_use_id"] in old
                and b.get("content") != placeholder
                and names.get(b["tool_use_id"]) not in exclude_tools
            ):
                b = {**b, "content": placeholder}
                cleared += 1
            blocks.append(b)
        out.append({**m, "content": blocks})
    return out, cleared


@dataclass
class ClearToolResults:
    """Clear old tool results in the harness: ``run_agent(..., context=ClearToolResults(...))``."""

    trigger_tokens: int = 8_000
    """Clear before a call when the previous call's prompt + output passed this many tokens."""
    keep: int = 3
    """Newest tool results kept whole."""
    exclude_tools: tuple[str, ...] = ()
    """Tools whose results are never cleared (e.g. a memory tool)."""
    events: list[dict] = field(default_factory=list)
    """One record per clearing: turn, tokens before, results cleared."""
    _last: Any = field(default=None, repr=False)
    """The previous call's ``usage`` (what the trigger reads); ``None`` before the first call and after a cut."""

    def before_call(self, client: Any, model: str, messages: list[dict], tr: Any, turn: int) -> tuple[list[dict], dict]:
        u = self._last
        if u is None or u.input_tokens + (u.cache_read_input_tokens or 0) + u.output_tokens <= self.trigger_tokens:
            return messages, {}
        edited, n = clear_tool_results(messages, self.keep, exclude_tools=self.exclude_tools)
        if n:
            record = {"turn": turn, "tokens_before": u.input_tokens + u.output_tokens, "cleared_tool_results": n}
            self.events.append(record)
            tr.event("context_cleared", **record)
        return edited, {}

    def after_call(self, reply: Any, tr: Any, turn: int) -> None:
        self._last = reply.usage


def api_edit(
    trigger_tokens: int = 100_000, keep: int = 3, clear_at_least: int | None = None, exclude_tools: tuple[str, ...] = ()
) -> dict:
    """One ``clear_tool_uses_20250919`` edit in the API's shape (defaults: the documented ones)."""
    edit: dict = {
        "type": EDIT_TYPE,
        "trigger": {"type": "input_tokens", "value": trigger_tokens},
        "keep": {"type": "tool_uses", "value": keep},
    }
    if clear_at_least is not None:
        edit["clear_at_least"] = {"type": "input_tokens", "value": clear_at_least}
    if exclude_tools:
        edit["exclude_tools"] = list(exclude_tools)
    return edit


@dataclass
class ServerClearing:
    """Let the API clear old tool results: sends ``context_management`` and the beta header with every call."""

    trigger_tokens: int = 8_000
    """The edit's trigger (input tokens of the full prompt)."""
    keep: int = 3
    """Newest tool uses kept."""
    clear_at_least: int | None = None
    """Edit only when at least this many tokens can be removed."""
    applied: list[dict] = field(default_factory=list)
    """Each call's ``context_management.applied_edits`` as the server reported them, with the turn."""

    def request_fields(self) -> dict:
        """What every call adds: the edit in ``extra_body`` and the beta header in ``extra_headers``."""
        edit = api_edit(self.trigger_tokens, self.keep, self.clear_at_least)
        return {
            "extra_body": {"context_management": {"edits": [edit]}},
            "extra_headers": {"anthropic-beta": BETA_HEADER},
        }

    def before_call(self, client: Any, model: str, messages: list[dict], tr: Any, turn: int) -> tuple[list[dict], dict]:
        return messages, self.request_fields()  # the client keeps the full history: the server edits its copy

    def after_call(self, reply: Any, tr: Any, turn: int) -> None:
        cm = getattr(reply, "context_management", None)
        edits = (cm.get("applied_edits") if isinstance(cm, dict) else getattr(cm, "applied_edits", None)) or []
        edits = [e if isinstance(e, dict) else e.model_dump() for e in edits]
        if edits:
            self.applied.append({"turn": turn, "applied_edits": edits})
            tr.event("context_edited", turn=turn, applied_edits=edits)
