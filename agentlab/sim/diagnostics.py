"""Cache diagnostics: why a request could not reuse the previous one's cached prefix (``diagnostics`` in the request).

A request that carries ``"diagnostics": {"previous_message_id": ...}`` opts in: its fingerprint is kept under the
id of the reply it gets. A later request naming that id as ``previous_message_id`` is compared with it, and its
reply says where the two first differ: ``{"cache_miss_reason": {"type": ..., "cache_missed_input_tokens": N}}``.
That reply's ``diagnostics`` is ``null`` when the request named no previous message, or only appended to it.

A reply to a request that did not ask has no ``diagnostics`` key. The docs since it went GA say the field is then
``null``; the public recordings of 2026 traffic (anomalyco/opencode's, May 2026, ``tests/sim/test_wire_2026.py``),
made before, have no such key. The SDK reads both as ``None``; the simulator answers as recorded.

From the docs (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics, GA; no beta header needed)
and the installed SDK's types:

- ``model_changed`` (the model or ``speed``); ``system_changed``, ``tools_changed``; ``messages_changed`` when an earlier message was
  altered, reordered or removed rather than appended to; ``unavailable`` when model, system and tools match but
  another field that shapes the prompt differs (``tool_choice``, ``thinking``, ``context_management``,
  ``output_config``, ``output_format``, the set of betas); ``previous_message_not_found`` for an id it never kept
  (unknown, or sent without ``diagnostics``). The last two carry no token count. Diagnostics never fails a request.
- ``cache_missed_input_tokens``: an estimate of the input tokens after the point where the two diverged (the docs;
  the SDK: those "that would have been read from cache had the prefix matched"): here the previous request's
  estimated tokens from the first differing block on.

Stand-ins (neither the docs nor any public recording says): the blocks are compared in the prompt's own order
(tools, system, messages, as ``caching.py`` reads them), ``cache_control`` left out of the comparison, and the
other fields before the messages; fingerprints are kept for the simulator's life (the newest ``KEEP``), never
expire, and a comparison is never still pending (the API may answer ``{"cache_miss_reason": null}``); the prompt
compared is the one after any server-side context editing. The model is compared as sent, so a dated id and its
alias differ. A deferred tool (``defer_loading``) is no part of the prefix whether or not a ``tool_reference`` has
loaded it, as the docs say of the cache (``caching.request_blocks``).
No public recording of a real ``diagnostics`` answer was found (searched: the client libraries' cassettes).
"""

from __future__ import annotations

import hashlib
import json
import threading
from array import array
from dataclasses import dataclass

from agentlab.sim.caching import request_blocks
from agentlab.sim.errors import invalid

KEEP = 1_000
"""Most fingerprints kept (the oldest go first): a stand-in for the API's "short period" of retention."""
MEMO = 100_000
"""Most per-block token counts kept for reuse (then forgotten at once, as the prompt cache's are)."""
ORDER = ("tools", "system", "messages")
"""The prompt's parts in the order the API reads them (docs: "tools → system → messages")."""
SHAPING = ("tool_choice", "thinking", "context_management", "output_config", "output_format")
"""Request fields that shape the prompt: a change in one of them (or in the betas) is ``unavailable``."""


@dataclass(frozen=True)
class Fingerprint:
    """What is kept of one request: digests and token estimates, never its text (as the docs say of the API's)."""

    model: str
    """The model asked for, and its ``speed`` when the request set one (the SDK: "``model`` or ``speed`` differs")."""
    parts: tuple[int, int]
    """How many of ``digests`` are tools, then system blocks; the rest are message blocks."""
    digests: bytes
    """8 bytes a block, in prompt order: a digest of its content as the cache compares it (``caching.request_blocks``)."""
    tokens: array
    """Each block's estimated tokens, in the same order."""
    shaping: bytes
    """A digest of the other fields that shape the prompt, and of the betas."""

    def section(self, i: int) -> str:
        """``tools``, ``system`` or ``messages``: the part block ``i`` belongs to."""
        return ORDER[0] if i < self.parts[0] else ORDER[1] if i < sum(self.parts) else ORDER[2]

    def block(self, i: int) -> bytes:
        return self.digests[8 * i : 8 * i + 8]

    def __len__(self) -> int:
        return len(self.tokens)


def asked(body: dict) -> tuple[bool, str | None]:
    """Whether the request opts in, and the id it names; a malformed ``diagnostics`` is a 400 that says the fix
    (reconstructed, not quoted: the API's wording for these is not recorded)."""
    d = body.get("diagnostics")
    if d is None:
        return False, None
    if not isinstance(d, dict) or any(k != "previous_message_id" for k in d):
        extra = next((k for k in d if k != "previous_message_id"), None) if isinstance(d, dict) else None
        raise invalid(
            f"diagnostics.{extra}: Extra inputs are not permitted"
            if extra
            else f'diagnostics: expected an object {{"previous_message_id": "msg_..." or null}}, got {d!r}'
        )
    previous = d.get("previous_message_id")
    if previous is not None and not isinstance(previous, str):
        raise invalid(f"diagnostics.previous_message_id: expected a message id string or null, got {previous!r}")
    return True, previous


def fingerprint(body: dict, betas: str, memo: dict[bytes, int]) -> Fingerprint:
    """``body``'s fingerprint (``memo``: per-block token counts, shared with the prompt cache)."""
    if len(memo) > MEMO:  # bounded, as the prompt cache bounds it
        memo.clear()
    blocks = request_blocks(body, memo)
    system = body.get("system")
    parts = (len(body.get("tools") or []), 0 if not system else 1 if isinstance(system, str) else len(system))
    shaping = [body.get(k) for k in SHAPING] + [sorted(b.strip() for b in betas.split(",") if b.strip())]
    return Fingerprint(
        f"{body.get('model')} {body.get('speed') or ''}",
        parts,
        b"".join(hashlib.blake2b(b.key, digest_size=8).digest() for b in blocks),
        array("l", (b.tokens for b in blocks)),
        hashlib.sha256(json.dumps(shaping, sort_keys=True, default=str).encode()).digest(),
    )


def miss_reason(before: Fingerprint | None, now: Fingerprint) -> dict | None:
    """The ``diagnostics`` object comparing ``now`` with ``before`` (``None`` when nothing diverged)."""
    if before is None:
        return {"cache_miss_reason": {"type": "previous_message_not_found"}}
    if before.model != now.model:
        return _changed("model_changed", before, 0)
    for i in range(len(before)):  # bounded: one step a block of the earlier request
        if i >= len(now) or now.block(i) != before.block(i) or now.section(i) != before.section(i):
            here = before.section(i) if i >= len(now) else min(before.section(i), now.section(i), key=ORDER.index)
            if here == "messages" and before.shaping != now.shaping:
                break  # model, tools and system match; another field that shapes the prompt differs
            return _changed(f"{here}_changed", before, i)  # of two parts at odds, the earlier one in the prompt changed
    if before.shaping != now.shaping:
        return {"cache_miss_reason": {"type": "unavailable"}}
    return None  # the new request only appended to the old one


def _changed(kind: str, before: Fingerprint, at: int) -> dict:
    return {"cache_miss_reason": {"type": kind, "cache_missed_input_tokens": sum(before.tokens[at:])}}


class Diagnostics:
    """The simulator's fingerprints, by the id of the reply each request got."""

    def __init__(self) -> None:
        self.kept: dict[str, Fingerprint] = {}
        """Fingerprints by message id, oldest first (at most ``KEEP``)."""
        self._lock = threading.Lock()

    def answer(self, body: dict, betas: str, message: dict, memo: dict[bytes, int]) -> None:
        """Set ``message["diagnostics"]`` if ``body`` opts in, keeping its fingerprint under the message's id.
        The fingerprint is built outside the lock, so concurrent requests do not wait on each other's."""
        opted, previous = asked(body)
        if not opted:
            return
        now = fingerprint(body, betas, memo)
        with self._lock:
            before = self.kept.get(previous) if previous is not None else None
            self.kept[message["id"]] = now
            while len(self.kept) > KEEP:  # bounded: drops the oldest, one at a time
                del self.kept[next(iter(self.kept))]
        message["diagnostics"] = miss_reason(before, now) if previous is not None else None
