"""Server-side message threads (beta ``message-threads-2026-08-12``), as the SDK's tool runner uses them.

The installed SDK's tool runner sends ``thread: {"type": "create"}`` with the whole history on its
first turn, then ``thread: {"type": "continue", "previous_message_id": <the last reply's id>}`` with only
the new messages (the tool results), and without ``system`` and ``tools``, which the server keeps from
the thread (see ``anthropic/lib/threads/_thread_state.py``). The simulator keeps each thread's history
in memory (the most recent ``LIMIT`` replies) and rebuilds the full request before validating it, so a
continued thread is checked and answered exactly like the same conversation sent in full.

An unknown ``previous_message_id`` is answered with ``error.details.error_code = "thread_not_found"``,
which the SDK recovers from by replaying the whole history under a new thread. So is a thread left
unused for more than ``TTL_SECONDS`` on the simulator's clock: the docs say a thread expires 5 minutes
after its last request (https://platform.claude.com/docs/en/build-with-claude/message-threads, as quoted
by https://dev.to/gabrielanhaia/claudes-api-now-holds-your-agents-conversation-for-5-minutes-keep-your-own-copy-3a1e;
the page's body was not retrievable here, its header says contents are deleted within 1 hour of last use).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

from agentlab.sim.errors import SimAPIError, invalid

LIMIT = 2048
"""Replies kept as possible continuation points (oldest dropped first)."""
CREATE_ONLY = ("system", "tools")
"""Fields a ``continue`` takes from the thread and may not repeat."""
TTL_SECONDS = 300.0
"""A thread unused this long (seconds, on the simulator's clock) is gone: continuing it is ``thread_not_found``."""


class Threads:
    """The simulator's store of message threads."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._replies: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        self.clock: Callable[[], float] = clock or time.monotonic
        """Seconds; a thread's lifetime (``TTL_SECONDS``) runs on it."""

    def expand(self, body: dict) -> dict:
        """The full request a threaded ``body`` stands for (``body`` itself when it has no thread)."""
        thread = body.get("thread")
        if thread is None:
            return body
        if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
            # Reconstructed, not quoted: same tag error form as the quoted one for tools.
            raise invalid(
                "thread: Input tag found using 'type' does not match any of the expected tags: 'continue', 'create'"
            )
        if thread["type"] == "create":
            return body
        for field in CREATE_ONLY:
            if field in body:
                # Reconstructed, not quoted: the rule is in the SDK (CREATE_ONLY_FIELDS).
                raise invalid(f"{field}: cannot be set when continuing a thread; it is taken from the thread")
        key = str(thread.get("previous_message_id"))
        with self._lock:
            saved = self._replies.get(key)
            if saved is not None and self.clock() - saved["at"] > TTL_SECONDS:  # expired: as if never kept
                del self._replies[key]
                saved = None
        if saved is None:
            # Reconstructed, not quoted; the error_code is the one the SDK recovers from.
            raise SimAPIError(
                "not_found_error",
                f"thread: no message thread ends at message {thread.get('previous_message_id')}",
                details={"error_code": "thread_not_found"},
            )
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        full = {**body, "messages": saved["messages"] + messages}
        full.update({f: saved[f] for f in CREATE_ONLY if f in saved})
        return full

    def remember(self, full: dict, reply: dict) -> None:
        """Keep ``reply`` as a point a later ``continue`` may start from (only for threaded requests)."""
        if full.get("thread") is None:
            return
        entry = {f: full[f] for f in CREATE_ONLY if f in full}
        entry["messages"] = [*full["messages"], {"role": "assistant", "content": reply["content"]}]
        with self._lock:
            entry["at"] = self.clock()  # the thread's last request, from which its lifetime runs
            self._replies[reply["id"]] = entry
            while len(self._replies) > LIMIT:
                self._replies.popitem(last=False)
