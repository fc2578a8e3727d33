"""Server-side message threads (beta ``message-threads-2026-08-12``), as the SDK's tool runner uses them.

The installed SDK's tool runner sends ``thread: {"type": "create"}`` with the whole history on its
first turn, then ``thread: {"type": "continue", "previous_message_id": <the last reply's id>}`` with only
the new messages (the tool results), and without ``system`` and ``tools``, which the server keeps from
the thread (see ``anthropic/lib/threads/_thread_state.py``). The simulator keeps each thread's history
in memory (the most recent ``LIMIT`` replies) and rebuilds the full request before validating it, so a
continued thread is checked and answered exactly like the same conversation sent in full.

An unknown ``previous_message_id`` is answered with ``error.details.error_code = "thread_not_found"``,
which the SDK recovers from by replaying the whole history under a new thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from agentlab.sim.errors import SimAPIError, invalid

LIMIT = 2048
"""Replies kept as possible continuation points (oldest dropped first)."""
CREATE_ONLY = ("system", "tools")
"""Fields a ``continue`` takes from the thread and may not repeat."""


class Threads:
    """The simulator's store of message threads."""

    def __init__(self) -> None:
        self._replies: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def expand(self, body: dict) -> dict:
        """The full request a threaded ``body`` stands for (``body`` itself when it has no thread)."""
        thread = body.get("thread")
        if thread is None:
            return body
        if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
            # Reconstructed, not quoted: same tag error form as the quoted one for tools.
            raise invalid("thread: Input tag found using 'type' does not match any of the expected tags: 'continue', 'create'")
        if thread["type"] == "create":
            return body
        for field in CREATE_ONLY:
            if field in body:
                # Reconstructed, not quoted: the rule is in the SDK (CREATE_ONLY_FIELDS).
                raise invalid(f"{field}: cannot be set when continuing a thread; it is taken from the thread")
        with self._lock:
            saved = self._replies.get(str(thread.get("previous_message_id")))
        if saved is None:
            # Reconstructed, not quoted; the error_code is the one the SDK recovers from.
            raise SimAPIError("not_found_error", f"thread: no message thread ends at message {thread.get('previous_message_id')}",
                              details={"error_code": "thread_not_found"})
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
            self._replies[reply["id"]] = entry
            while len(self._replies) > LIMIT:
                self._replies.popitem(last=False)
