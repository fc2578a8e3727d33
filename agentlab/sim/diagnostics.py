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

- ``model_changed``; ``system_changed``, ``tools_changed``; ``messages_changed`` when an earlier message was
  altered, reordered or removed rather than appended to; ``unavailable`` when model, system and tools match but
  another field that shapes the prompt differs (``tool_choice``, ``thinking``, ``context_management``,
  ``output_config``, ``output_format``, the set of betas); ``previous_message_not_found`` for an id it never kept
  (unknown, or sent without ``diagnostics``). The last two carry no token count. Diagnostics never fails a request.
- ``cache_missed_input_tokens``: about how many input tokens could have been read from the cache had the prefix
  matched: here the previous request's estimated tokens from the first differing block on.

Stand-ins (neither the docs nor any public recording says): the blocks are compared in the prompt's own order
(tools, system, messages, as ``caching.py`` reads them), ``cache_control`` left out of the comparison, and the
other fields before the messages; fingerprints are kept for the simulator's life (the newest ``KEEP``), never
expire, and a comparison is never still pending (the API may answer ``{"cache_miss_reason": null}``).
No public recording of a real ``diagnostics`` answer was found (searched: the client libraries' cassettes).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from agentlab.sim.caching import request_blocks
from agentlab.sim.errors import invalid

KEEP = 10_000
"""Most fingerprints kept (the oldest go first): a stand-in for the API's "short period" of retention."""
ORDER = ("tools", "system", "messages")
"""The prompt's parts in the order the API reads them (docs: "tools → system → messages")."""
SHAPING = ("tool_choice", "thinking", "context_management", "output_config", "output_format")
"""Request fields that shape the prompt: a change in one of them (or in the betas) is ``unavailable``."""


@dataclass(frozen=True)
class Fingerprint:
    """What is kept of one request: hashes and token estimates, never its text (as the docs say of the API's)."""

    model: str
    """The model asked for."""
    blocks: tuple[tuple[str, bytes, int], ...]
    """Each block in prompt order: ``(section, digest of its content without cache_control, estimated tokens)``."""
    shaping: bytes
    """A digest of the other fields that shape the prompt, and of the betas."""


def asked(body: dict) -> tuple[bool, str | None]:
    """Whether the request opts in, and the id it names; a malformed ``diagnostics`` is a 400 that says the fix."""
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
    """``body``'s fingerprint (``memo``: the cache's per-block token counts, shared), its blocks compared as the
    cache compares them (``caching.request_blocks``: text given as a string is the text block it stands for)."""
    tools = len(body.get("tools") or [])
    system = body.get("system")
    systems = 0 if not system else 1 if isinstance(system, str) else len(system)
    blocks = tuple(
        (
            "tools" if i < tools else "system" if i < tools + systems else "messages",
            hashlib.sha256(b.key).digest(),
            b.tokens,
        )
        for i, b in enumerate(request_blocks(body, memo))
    )
    shaping = json.dumps(
        [body.get(k) for k in SHAPING] + [sorted(b.strip() for b in betas.split(",") if b.strip())],
        sort_keys=True,
        default=str,
    )
    return Fingerprint(str(body.get("model")), blocks, hashlib.sha256(shaping.encode()).digest())


def miss_reason(before: Fingerprint | None, now: Fingerprint) -> dict | None:
    """The ``diagnostics`` object comparing ``now`` with ``before`` (``None`` when nothing diverged)."""
    if before is None:
        return {"cache_miss_reason": {"type": "previous_message_not_found"}}
    if before.model != now.model:
        return _changed("model_changed", before, 0)
    for i, (section, digest, _) in enumerate(before.blocks):
        if i >= len(now.blocks) or now.blocks[i][:2] != (section, digest):
            if section == "messages" and before.shaping != now.shaping:
                return {"cache_miss_reason": {"type": "unavailable"}}
            here = section if i >= len(now.blocks) else min(section, now.blocks[i][0], key=ORDER.index)
            return _changed(f"{here}_changed", before, i)  # of two parts at odds, the earlier one in the prompt changed
    if before.shaping != now.shaping:
        return {"cache_miss_reason": {"type": "unavailable"}}
    return None  # the new request only appended to the old one


def _changed(kind: str, before: Fingerprint, at: int) -> dict:
    missed = sum(tokens for _, _, tokens in before.blocks[at:])
    return {"cache_miss_reason": {"type": kind, "cache_missed_input_tokens": missed}}


class Diagnostics:
    """The simulator's fingerprints, by the id of the reply each request got."""

    def __init__(self) -> None:
        self.kept: dict[str, Fingerprint] = {}
        """Fingerprints by message id, oldest first (at most ``KEEP``)."""

    def answer(self, body: dict, betas: str, message: dict, memo: dict[bytes, int]) -> None:
        """Set ``message["diagnostics"]`` if ``body`` opts in, keeping its fingerprint under the message's id."""
        opted, previous = asked(body)
        if not opted:
            return
        now = fingerprint(body, betas, memo)
        said = miss_reason(self.kept.get(previous), now) if previous is not None else None
        self.kept[message["id"]] = now
        while len(self.kept) > KEEP:  # bounded: drops the oldest, one at a time
            del self.kept[next(iter(self.kept))]
        message["diagnostics"] = said
