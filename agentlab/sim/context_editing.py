"""Server-side context editing (``context_management``), the ``clear_tool_uses_20250919`` strategy.

What the API documents, and the simulator does (sources, read 2026-11-30:
https://platform.claude.com/docs/en/build-with-claude/context-editing, the installed SDK's
``anthropic/types/beta/beta_clear_tool_uses_20250919_edit_param.py`` and
``beta_context_management_response.py``):

- the request carries ``context_management: {"edits": [{"type": "clear_tool_uses_20250919", ...}]}``
  (beta header ``context-management-2025-06-27``); the edit runs on the server *before the prompt
  reaches the model*, and the client keeps its full history;
- ``trigger`` (``{"type": "input_tokens"|"tool_uses", "value": N}``, default 100,000 input tokens):
  when the prompt is past it, the oldest tool results are cleared first, keeping the newest
  ``keep`` tool uses (``{"type": "tool_uses", "value": N}``, default 3); ``exclude_tools`` are never
  cleared; ``clear_at_least`` (``{"type": "input_tokens", "value": N}``): nothing is changed unless
  at least that many tokens can be removed; ``clear_tool_inputs: true`` clears the calls' inputs too;
- the response reports ``context_management.applied_edits``:
  ``[{"type": "clear_tool_uses_20250919", "cleared_tool_uses": n, "cleared_input_tokens": t}]``, and
  ``usage.input_tokens`` counts the edited prompt; ``count_tokens`` counts it too and reports the
  count before the edits as ``context_management.original_input_tokens`` (the SDK's
  ``BetaCountTokensContextManagementResponse``).

What is ours, not the API's: the placeholder text (the docs say a placeholder tells the model the
result was removed, without quoting it), ``{}`` for a cleared input, token counts from our
estimator, and no check of the beta header (the API's wording for a missing header is not public).
The edited request is what a server-side thread remembers (``threads.py``), and a streamed
response does not carry ``context_management``.
``clear_thinking_20251015`` and ``compact_20260112`` are accepted by the validator and not simulated.
"""

from __future__ import annotations

import copy

from agentlab.api.tokens import estimate_input_tokens

PLACEHOLDER = "[tool result cleared by context editing]"
"""Text put in place of a cleared result (ours: the API's own wording is not documented)."""
DEFAULT_TRIGGER = {"type": "input_tokens", "value": 100_000}
"""The documented default trigger."""
DEFAULT_KEEP = {"type": "tool_uses", "value": 3}
"""The documented default: keep the newest three tool uses."""


def _uses(messages: list[dict]) -> list[tuple[int, int, dict]]:
    """Every ``tool_use`` block as (message index, block index, block), oldest first."""
    return [
        (i, j, b)
        for i, m in enumerate(messages)
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for j, b in enumerate(m["content"])
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]


def clear_tool_uses(body: dict, edit: dict) -> tuple[dict, dict | None]:
    """``body`` with one ``clear_tool_uses_20250919`` edit applied, and the applied-edit record (or None)."""
    trigger = edit.get("trigger") or DEFAULT_TRIGGER
    keep = (edit.get("keep") or DEFAULT_KEEP)["value"]
    at_least = (edit.get("clear_at_least") or {}).get("value", 0)
    exclude = set(edit.get("exclude_tools") or ())
    uses = _uses(body["messages"])
    before = estimate_input_tokens(body)
    seen = before if trigger["type"] == "input_tokens" else len(uses)
    if seen <= trigger["value"]:
        return body, None
    targets = [u for u in uses[: max(len(uses) - keep, 0)] if u[2].get("name") not in exclude]
    ids = {u[2].get("id") for u in targets}
    edited = copy.deepcopy(body)
    cleared = 0
    for m in edited["messages"]:
        if not isinstance(m.get("content"), list):
            continue
        for b in m["content"]:
            if b.get("type") == "tool_result" and b.get("tool_use_id") in ids and b.get("content") != PLACEHOLDER:
                b["content"] = PLACEHOLDER
                cleared += 1
            elif b.get("type") == "tool_use" and b.get("id") in ids and edit.get("clear_tool_inputs") is True:
                b["input"] = {}
    removed = before - estimate_input_tokens(edited)
    if cleared == 0 or removed < at_least:
        return body, None
    return edited, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": cleared, "cleared_input_tokens": removed}


def apply_context_management(body: dict) -> tuple[dict, list[dict] | None]:
    """The request as the model sees it after its ``context_management`` edits, and the applied edits.

    ``None`` for the edits when the request has no ``context_management`` (the response then has no
    such field either).
    """
    config = body.get("context_management")
    if not isinstance(config, dict):
        return body, None
    applied = []
    for edit in config.get("edits") or []:
        if isinstance(edit, dict) and edit.get("type") == "clear_tool_uses_20250919":
            body, record = clear_tool_uses(body, edit)
            if record:
                applied.append(record)
    return body, applied
