"""Prompt caching on the harness side: where to put the breakpoints, and what caching saves.

The API caches a prompt *prefix* up to a ``cache_control`` breakpoint (at most 4 per request); the
next request that starts with the same prefix reads it at a fraction of the input price
(``cache_read_input_tokens``) instead of paying for it again. Writing it costs more than plain
input (1.25x for 5 minutes, 2x for 1 hour, by genai-prices' tables), so caching pays only when a
prefix is read again, and not at all for a prefix shorter than the model's minimum cacheable length.

An agent loop is the case it was made for: every turn re-sends the whole history. Breakpoints that
work for a loop (:func:`with_cache_breakpoints`):

1. on the last tool definition: the tools (and the hidden tool-use prompt) never change;
2. on the last system block, if there is a system prompt;
3. on the last block of the last message: the growing history. Next turn, this prefix is still
   there, a few blocks back, and the API finds it (it looks back up to 20 blocks per breakpoint).

The conversation itself is never modified: the markers go on copies, so old messages never carry
stale breakpoints (which would soon pass the limit of 4).
"""

from __future__ import annotations

from typing import Any

TTLS = ("5m", "1h")
"""The cache lifetimes the API offers."""


def _marked(block: Any, ttl: str) -> dict:
    block = {"type": "text", "text": block} if isinstance(block, str) else dict(block)
    block["cache_control"] = {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}
    return block


def with_cache_breakpoints(
    messages: list[dict], tools: list[dict] | None = None, system: Any = None, ttl: str | bool = "5m"
) -> dict[str, Any]:
    """Request keyword arguments (``messages``, ``tools``, ``system``) with three breakpoints placed for a loop.

    ``ttl`` is ``"5m"`` (default; ``True`` means the same) or ``"1h"``. The inputs are not changed.
    """
    ttl = "5m" if ttl is True else ttl
    if ttl not in TTLS:
        raise ValueError(f"with_cache_breakpoints(ttl={ttl!r}): ttl must be '5m' or '1h' (or True for '5m')")
    out: dict[str, Any] = {}
    if tools:
        out["tools"] = [*tools[:-1], _marked(tools[-1], ttl)]
    if system:
        blocks = [system] if isinstance(system, str) else list(system)
        out["system"] = [*blocks[:-1], _marked(blocks[-1], ttl)]
    if messages:
        last = messages[-1]
        content = last["content"]
        blocks = [content] if isinstance(content, str) else list(content)
        out["messages"] = [*messages[:-1], {**last, "content": [*blocks[:-1], _marked(blocks[-1], ttl)]}]
    else:
        out["messages"] = messages
    return out
