"""Prompt caching as the Messages API does it, on an injectable clock.

A request is read as one ordered list of blocks, in the order the API builds its prompt: tools,
then system, then messages (docs: "tools → system → messages"). A ``cache_control`` breakpoint on
a block (at most 4 per request) asks for the prefix ending at that block to be cached; a top-level
``cache_control`` (automatic caching) puts one more on the last block of the last message. Then:

- **read**: the longest prefix that is cached, unexpired, and ends at a breakpoint or at most
  ``lookback_blocks - 1`` blocks before one, is read (``cache_read_input_tokens``) and its lifetime
  starts again;
- **write**: each breakpoint after that point whose prefix reaches the model's minimum cacheable
  length is written (``cache_creation_input_tokens``, split by lifetime into
  ``cache_creation.ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``); a shorter one is
  silently not cached, as the API does;
- ``input_tokens`` is what is left: the tokens after the last breakpoint, and all of them when
  nothing could be cached. The three always add up to the request's estimated total.

Lifetimes (5 minutes, 1 hour) run on the ``now`` passed in, seconds on any clock: the simulator
passes its own ``clock()``, tests pass a :class:`SimClock`. Nothing sleeps. Facts and sources:
``data/caching.json``. Entries are keyed by model and the prefix's content (``cache_control``
itself excluded), so a changed tool list or system prompt misses, as it does on the API. Text sent as a string is
the text block it stands for. A deferred tool (``defer_loading``) is no part of the prefix: once a ``tool_reference``
loads it, its definition counts where that reference sits, so loading one keeps the cache (docs:
https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from agentlab.api.tokens import (
    MESSAGE_FRAME,
    REQUEST_FRAME,
    SYSTEM_FRAME,
    content_tokens,
    deferred,
    hidden_prompt_tokens,
    referenced_tools,
    tool_def_tokens,
    tool_prompt_overhead,
)
from agentlab.sim.clock import SimClock  # noqa: F401  (re-exported: the cache's lifetimes run on it in tests and sweeps)
from agentlab.sim.errors import invalid


@lru_cache(maxsize=1)
def caching_facts() -> dict:
    """``data/caching.json``: minimum lengths per model, lifetimes, limits, sources."""
    return json.loads(resources.files("agentlab.sim").joinpath("data/caching.json").read_text("utf-8"))


def min_cacheable_tokens(model: str) -> tuple[int, str]:
    """The model's minimum cacheable prompt length and whether that figure is ``documented`` or ``assumed``."""
    facts = caching_facts()
    row = facts["min_cacheable_tokens"].get(model, facts["fallback"])
    return row["tokens"], row["status"]


@dataclass
class _Block:
    tokens: int
    key: bytes
    ttl: str | None  # the breakpoint's lifetime, None when the block carries no breakpoint


def _strip(block: object) -> object:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _ttl(block: object, where: str) -> str | None:
    cc = block.get("cache_control") if isinstance(block, dict) else None
    if cc is None:
        return None
    ttl = cc.get("ttl", "5m") if isinstance(cc, dict) else None
    if not isinstance(cc, dict) or cc.get("type") != "ephemeral" or ttl not in caching_facts()["ttl_seconds"]:
        raise invalid(
            f'{where}.cache_control: expected {{"type": "ephemeral"}} with optional "ttl": "5m" or "1h", got {cc!r}'
        )
    return ttl


def request_blocks(body: dict, memo: dict[bytes, int] | None = None) -> list[_Block]:
    """The request as ordered blocks (tools, system, message content) with estimated tokens and breakpoints.

    ``memo`` (a digest of each block's content -> tokens) saves re-counting the blocks a growing conversation
    sends again; callers bound its size.
    """
    memo = {} if memo is None else memo
    out: list[_Block] = []
    model = str(body.get("model", ""))
    per_model = model.encode() + b"|"  # the same text costs more tokens on a model with a larger tokenizer factor

    def add(part: object, frame: int, count, where: str) -> None:
        key = _key(part)
        seen = hashlib.sha256(per_model + key).digest()  # the memo keeps digests, never the prompt's text
        tokens = memo.get(seen)
        if tokens is None:
            tokens = memo[seen] = count()
        out.append(_Block(frame + tokens, key, _ttl(part[1] if isinstance(part, tuple) else part, where)))

    lead = REQUEST_FRAME  # framing and the hidden tool-use prompt sit before everything else
    tools = body.get("tools") or []
    if tools:
        lead += tool_prompt_overhead(body.get("model", ""), body.get("tool_choice"), deferred=deferred(tools))[0]
    lead += hidden_prompt_tokens(body)  # thinking, JSON outputs, task_budget: hidden prompts, before everything too
    refs = referenced_tools(body) if tools else set()
    # A deferred tool is no part of the prefix: once a tool_reference loads it, its definition is "appended inline"
    # there and "the prefix is untouched" (docs: tool-use-with-prompt-caching), so its tokens go with that block.
    waiting = {
        t.get("name"): t for t in tools if isinstance(t, dict) and t.get("defer_loading") and t.get("name") in refs
    }
    for i, t in enumerate(tools):
        later = isinstance(t, dict) and bool(t.get("defer_loading"))
        add(
            ("deferred", t) if later else t,
            lead * (i == 0),
            lambda t=t, later=later: 0 if later else tool_def_tokens(t, model=model),
            f"tools.{i}",
        )
    lead = 0 if tools else lead
    system = body.get("system")
    if system:
        for i, b in enumerate([system] if isinstance(system, str) else list(system)):
            add(
                b,
                lead + SYSTEM_FRAME if i == 0 else 0,
                lambda b=b: content_tokens([b] if isinstance(b, dict) else b, model=model),
                f"system.{i}",
            )
            lead = 0
    for m, msg in enumerate(body.get("messages") or []):
        content = msg.get("content", "")
        for i, b in enumerate(([content] if isinstance(content, str) else list(content)) or [""]):
            add(
                (msg.get("role"), b),
                lead + MESSAGE_FRAME if i == 0 else 0,
                lambda b=b: content_tokens(b if isinstance(b, str) else [b], model=model),
                f"messages.{m}.content.{i}",
            )
            lead = 0
            if waiting and isinstance(b, dict):  # the deferred tools this block loads, each counted once
                for name in referenced_tools({"messages": [{"content": [b]}]}) & waiting.keys():
                    out[-1].tokens += tool_def_tokens(waiting.pop(name), model=model)
    return out


def _has_breakpoint(body: dict) -> bool:
    """True when any tool, system block or message block carries ``cache_control`` (O(blocks), no JSON)."""
    system = body.get("system")
    parts = [*(body.get("tools") or []), *(system if isinstance(system, list) else [])]
    parts += [b for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"]]
    return any(isinstance(p, dict) and "cache_control" in p for p in parts)


def _key(part: object) -> bytes:
    """The block's content as the cache compares it: without ``cache_control``, and text given as a string the same
    as the one text block it stands for (the loop's moving breakpoint turns the one into the other)."""
    if isinstance(part, tuple):
        part = [part[0], _strip(_as_block(part[1]))]
    return json.dumps(_strip(_as_block(part)), sort_keys=True, ensure_ascii=False).encode()


def _as_block(content: object) -> object:
    return {"type": "text", "text": content} if isinstance(content, str) else content


class PromptCache:
    """The simulator's cache store: prefix digest -> (tokens, expiry time, lifetime)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[int, float, str]] = {}
        """Live cache entries by prefix digest: ``(prefix tokens, expires at, "5m" or "1h")``."""
        self.memo: dict[bytes, int] = {}
        """Estimated tokens per block content already counted (a conversation re-sends the same blocks)."""

    def apply(self, body: dict, total_input_tokens: int, now: float) -> dict:
        """The ``usage`` input fields for ``body`` at time ``now``, reading and writing this cache.

        ``total_input_tokens`` is the request's whole estimated input; the returned
        ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` equals it.
        """
        no_cache = {"input_tokens": total_input_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        auto = body.get("cache_control")
        if auto is None and not _has_breakpoint(body):
            return no_cache
        if len(self.memo) > 100_000:  # bounded: a long-lived server forgets old blocks
            self.memo.clear()
        blocks = request_blocks(body, self.memo)
        if auto is not None and blocks:
            last = blocks[-1]
            if last.ttl is None:  # automatic caching: a breakpoint on the last cacheable block
                last.ttl = _ttl({"cache_control": auto}, "cache_control")
        marks = [i for i, b in enumerate(blocks) if b.ttl is not None]
        facts = caching_facts()
        if len(marks) > facts["max_breakpoints"]:
            raise invalid(
                f"A maximum of {facts['max_breakpoints']} blocks with cache_control may be provided. "
                f"Found {len(marks)}. (Top-level cache_control adds one on the last block.) Remove some."
            )
        ttls = [blocks[i].ttl for i in marks]
        if "1h" in ttls and "5m" in ttls[: len(ttls) - ttls[::-1].index("1h")]:
            raise invalid(
                "cache_control: a ttl='1h' breakpoint must not come after a ttl='5m' one "
                f"(got {ttls} in prompt order: tools, system, messages). Put the 1h breakpoints first."
            )
        digests, prefix, h = [], [], hashlib.sha256(body.get("model", "").encode())
        running = 0
        for b in blocks:
            h.update(b.key)
            running += b.tokens
            digests.append(h.copy().hexdigest())
            prefix.append(running)
        model_min = min_cacheable_tokens(body.get("model", ""))[0]
        look = facts["lookback_blocks"]
        read_at = -1
        for m in marks:
            for j in range(m, max(-1, m - look), -1):
                entry = self.entries.get(digests[j])
                if entry is not None and entry[1] > now and j > read_at:
                    read_at = j
                    break
        read = prefix[read_at] if read_at >= 0 else 0
        if read_at >= 0:
            tokens, _, ttl = self.entries[digests[read_at]]
            self.entries[digests[read_at]] = (tokens, now + facts["ttl_seconds"][ttl], ttl)
        written = {"5m": 0, "1h": 0}
        upto = read
        for m in marks:
            if m <= read_at or prefix[m] < model_min:
                continue
            ttl = blocks[m].ttl
            written[ttl] += prefix[m] - upto
            upto = prefix[m]
            self.entries[digests[m]] = (prefix[m], now + facts["ttl_seconds"][ttl], ttl)  # type: ignore[index]
        creation = written["5m"] + written["1h"]
        return {
            "input_tokens": max(0, total_input_tokens - read - creation),
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": written["5m"], "ephemeral_1h_input_tokens": written["1h"]},
        }

    def expire(self, now: float) -> int:
        """Drop entries whose lifetime is over at ``now``; returns how many were dropped."""
        dead = [k for k, (_, until, _) in self.entries.items() if until <= now]
        for k in dead:
            del self.entries[k]
        return len(dead)
