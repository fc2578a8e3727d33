"""Which conversation a call belongs to: the keys the Meter matches a request on.

A call *continues* a conversation when it re-sends a reply the Meter saw (``resent_reply`` gives that
reply's content, ``fingerprint`` its identity) and its first message is that conversation's first
message (``first_key``). See :mod:`agentlab.meter.middleware` for how re-prefill follows from it.
"""

from __future__ import annotations

import json
from typing import Any

from agentlab.meter.usage import field_of


def fingerprint(content: Any) -> str:
    """What identifies one reply inside a later request: its tool_use ids, else its text.

    ``content`` is a string or a list of blocks, as dicts (a request) or SDK objects (a response).
    """
    if isinstance(content, str):
        return "t:" + content
    blocks = [(field_of(b, "type"), field_of(b, "id"), field_of(b, "text")) for b in content or []]
    ids = [i or "" for kind, i, _ in blocks if kind == "tool_use"]
    if ids:
        return "u:" + ",".join(ids)
    return "t:" + "".join(t or "" for kind, _, t in blocks if kind == "text")


def tool_names(content: list) -> tuple[str, ...]:
    """The names of the tools a reply asked for, in order (``content``: blocks as dicts or SDK objects)."""
    return tuple(field_of(b, "name") or "" for b in content if field_of(b, "type") == "tool_use")


def first_key(msgs: list) -> str:
    """The first message in one form: a string or its one text block, with or without the ``cache_control``
    breakpoint a caching harness moves from turn to turn, is the same conversation."""
    if not msgs:
        return ""
    first = msgs[0]
    content = first.get("content") if isinstance(first, dict) else None
    text, role = _only_text(content), first.get("role") if isinstance(first, dict) else None
    if text is not None and first.keys() <= {"role", "content"} and isinstance(role, str) and "\x00" not in role:
        return f"{role}\x00{text}"  # the common case, read every call: no JSON (which never has a raw NUL)
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if isinstance(content, list):
        first = {
            **first,
            "content": [
                {k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b for b in content
            ],
        }
    return json.dumps(first, sort_keys=True, ensure_ascii=False, default=str)


def _only_text(content: Any) -> str | None:
    """The text of ``content`` when it is a string or one text block (its ``cache_control`` aside), else ``None``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1:
        block = content[0]
        if isinstance(block, dict) and block.get("type") == "text" and block.keys() <= _TEXT_KEYS:
            text = block.get("text")
            return text if isinstance(text, str) else None
    return None


_TEXT_KEYS = {"type", "text", "cache_control"}


def resent_reply(msgs: list) -> Any:
    """The content of the last assistant message before the newest message, or None (a first call).
    A request ending in the assistant's turn (a ``pause_turn`` reply sent back) re-sends that one."""
    last = (
        len(msgs) - 1 if msgs and isinstance(msgs[-1], dict) and msgs[-1].get("role") == "assistant" else len(msgs) - 2
    )
    for i in range(last, -1, -1):  # from the end, without copying the history
        m = msgs[i]
        if isinstance(m, dict) and m.get("role") == "assistant":
            return m.get("content")
    return None
