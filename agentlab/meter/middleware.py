"""Token and cost accounting as SDK client middleware, so *any* code using the client is metered.

``Meter`` sits in the client's ``middleware=`` chain and records every ``POST /v1/messages``:
its usage, stop reason, round-trip time and where its input went (:mod:`agentlab.meter.breakdown`). It
does O(1) work per call (no walk over the growing history), so metering does not itself get slower
as a conversation grows. It is thread-safe: parallel workflows may share one client.

Conversations. Several conversations may interleave on one client (sub-agents, parallel runs). A
call *continues* a conversation when it re-sends a reply the Meter saw: its last assistant message
(before the newest user message) matches an earlier response (by its ``tool_use`` ids, or its text)
and its first message is that conversation's first message.

Re-prefill: the part of a call's input that was already sent or generated before. For call k that
continues call j, it is everything call j sent (``input_tokens`` + cache reads + cache writes) plus
what it generated, but never more than call k's own input: ``min(in_k, in_j + out_j)``. It is shown
as fixed overhead re-sent (tool prompt, tool definitions, system, task) plus history re-sent.

Cost comes from genai-prices with the full message usage (cache reads and writes are billed apart
from ``input_tokens``); a model with no known price costs ``None``, never 0.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

from anthropic import Middleware
from anthropic.types import Message

from agentlab.api.wire import LATENCY_HEADER, SIM_HEADER
from agentlab.live.compat import NOT_REPORTED, cache_reported, marks_cache, no_token_counting, say
from agentlab.live.costs import add_call, add_count
from agentlab.meter.breakdown import count_prefixes, from_counts, from_header
from agentlab.meter.conversations import fingerprint, first_key, resent_reply, tool_names
from agentlab.meter.latency import latency_of
from agentlab.meter.record import CallRecord
from agentlab.meter.stream import Attempt, record_attempt, tap_stream
from agentlab.meter.usage import Usage
from agentlab.trace import current_trace

CHECK_PARTS_ENV = "AGENTLAB_CHECK_PARTS"
"""When set (the test suite sets it), every simulated call checks that its parts add up to ``input_tokens``."""


class PartsMismatch(AssertionError):
    """A simulated call whose input parts do not add up to its ``input_tokens``."""


class Meter(Middleware):
    """Client middleware that records every Messages API call in ``calls``.

    Args:
        count_tokens: Split each call's input with free ``count_tokens`` calls on its prefixes (up
            to five per call; see :mod:`agentlab.meter.breakdown`) when the response brings no split of
            its own (the simulator's does). Needs ``client``.
        client: The client used for those counts (``connect`` sets it).
    """

    def __init__(self, count_tokens: bool = False, client: Any = None) -> None:
        self.calls: list[CallRecord] = []
        self.attempts: list[Attempt] = []
        """Every HTTP attempt, failed ones and the SDK's retries included."""
        self.count_tokens = count_tokens
        self.client = client
        self.check_parts = bool(os.environ.get(CHECK_PARTS_ENV))
        self._lock = threading.Lock()
        self._replies: dict[tuple[str, str], tuple[int, Usage]] = {}  # (first message, reply) -> (conversation, usage)
        self._conversations = 0
        self._by_id: dict[str, CallRecord] = {}  # message id -> its record (record_of)
        self._counted: tuple[str | None, dict | None] = (None, None)  # the last body counted, and its counts
        self.count_errors = 0
        """``count_tokens`` calls that failed (their calls were metered without a split)."""
        self.count_warned = 0
        """Of those, the ones the server answered with an error status (the first is said on stderr)."""
        self.no_counting = False
        """True once the server answered ``count_tokens`` with 404/405/501: it has none, so no more are sent."""
        self.cache_warned = False
        """True once a call that marked ``cache_control`` came back without cache fields (said once)."""
        self.live_path = False
        """True when this Meter's client goes live once a key is set (``connect()`` in auto or live mode):
        its calls are added to the process tally of what a live run sends (``agentlab.live.costs``)."""
        self.live_model: str | None = None
        """The model its client was asked for by name (``None``: the default, the live default when live)."""

    def handle(self, request, call_next):  # type: ignore[override]
        if request.method.lower() != "post" or not str(request.url).rstrip("/").endswith("/v1/messages"):
            if self.live_path and str(request.url).split("?")[0].rstrip("/").endswith("/v1/messages/count_tokens"):
                add_count(self.live_model)  # free, but a live key sends it: the live-cost table counts it
            return call_next(request)
        body = request.json if isinstance(request.json, dict) else {}
        msgs = body.get("messages") or []
        first = first_key(msgs)
        resent = resent_reply(msgs)
        counts = self._counts(body)  # live parts: counted *before* the paid call, never inside or after it
        t0 = time.perf_counter()
        response = call_next(request)
        wall = time.perf_counter() - t0
        retry = record_attempt(self, request, response, wall)
        if retry or not response.http_response.is_success:  # faults and retries go into the run's trace too
            trace = current_trace()
            if trace is not None:
                a = self.attempts[-1]
                trace.event("api_attempt", status=a.status, retry=a.retry, error_type=a.error_type)
        if not response.http_response.is_success:
            return response
        headers = response.http_response.headers
        if request.stream:  # metered when its message_stop passes by, as the caller reads the stream
            tap_stream(
                response,
                lambda s: self._record(
                    body,
                    first,
                    resent,
                    headers,
                    s["model"],
                    s["usage"],
                    s["stop_reason"],
                    s["content"],
                    time.perf_counter() - t0,
                    retry,
                    counts,
                    message_id=s.get("id"),
                ),
            )
            return response
        msg = response.parse()  # the SDK caches this parse and hands the same Message to the caller
        if not hasattr(msg, "usage"):  # a caller that asked for raw JSON (cast_to=object, dict...)
            msg = Message.model_validate(response.http_response.json())
        self._record(  # the SDK's objects as they are: _record reads a few fields, no dump of the reply needed
            body,
            first,
            resent,
            headers,
            msg.model,
            msg.usage,
            msg.stop_reason,
            msg.content,
            wall,
            retry,
            counts,
            message_id=msg.id,
        )
        return response

    def _counts(self, body: dict) -> dict | None:
        """``count_tokens`` prefix counts for ``body`` (once per body: an SDK retry of the paid call reuses
        them), or ``None`` when not counting or a count failed."""
        if not self.count_tokens or self.client is None or self.no_counting:
            return None
        key = json.dumps(body, sort_keys=True, default=str)
        with self._lock:
            if self._counted[0] == key:
                return self._counted[1]
        counts = count_prefixes(self.client, body, self._count_failed)
        with self._lock:
            self._counted = (key, counts)
        return counts

    def _count_failed(self, error: Exception) -> None:
        """Say once per Meter, in one line, that count_tokens failed and parts go unsplit; a server with no
        such endpoint (a local Anthropic-compatible one) is asked no more. The paid call goes ahead either way."""
        self.count_errors += 1
        status = getattr(error, "status_code", None)
        if status is None:  # no network, a timeout: the paid call that follows says so itself
            return
        self.count_warned += 1
        where = getattr(self.client, "base_url", "the server")
        if no_token_counting(error):
            with self._lock:
                first, self.no_counting = not self.no_counting, True
            if first:
                say(
                    f"agentlab: the server at {where} has no token counting (count_tokens answered HTTP {status}); "
                    "input tokens are the usage the server reports, not split into parts (Turn.breakdown is None), "
                    "and the run goes on"
                )
        elif self.count_warned == 1:
            print(
                f"agentlab: count_tokens failed (HTTP {status}) at {where}; "
                "calls go ahead, but their input is not split into parts",
                file=sys.stderr,
            )

    def record_batched(self, body: dict, message: Any, batch_id: str, seconds: float, estimated: bool) -> None:
        """Record one request of a Message Batch and its succeeded ``message`` (an SDK ``Message``) as a call:
        ``seconds`` from the batch's creation to its end (a simulated batch's on the simulator's clock),
        ``estimated`` when the simulator answered. No input split: a batch result carries none."""
        msgs = body.get("messages") or []
        content = [b.model_dump(mode="json", exclude_none=True) for b in message.content]
        headers = {SIM_HEADER: "true", LATENCY_HEADER: f"{seconds * 1000:.1f}"} if estimated else {}
        self._record(
            body,
            first_key(msgs),
            resent_reply(msgs),
            headers,
            message.model,
            message.usage.model_dump(),
            message.stop_reason,
            content,
            0.0 if estimated else seconds,
            False,
            batch=batch_id,
            message_id=message.id,
        )

    def _record(
        self,
        body: dict,
        first: str,
        resent: Any,
        headers: Any,
        model: str,
        raw_usage: Any,
        stop_reason: str | None,
        content: list[Any],
        wall: float,
        retry: bool,
        counts: dict | None = None,
        batch: str | None = None,
        message_id: str | None = None,
    ) -> None:
        """Append one call's :class:`CallRecord`, with its conversation, re-prefill and input parts."""
        tokens = Usage.from_api(raw_usage)
        total = tokens.prompt_total
        cached = cache_reported(raw_usage)
        if not cached and not self.cache_warned and marks_cache(body):
            self.cache_warned = True
            say(
                f"agentlab: the server at {getattr(self.client, 'base_url', 'base_url')} reports no cache reads or "
                f"writes (its usage has no cache fields: it ignores cache_control); caching figures show as "
                f"'{NOT_REPORTED}', not as 0 tokens saved"
            )
        estimated = SIM_HEADER in headers  # the simulator's answer: only it sends the split and latency headers
        parts = from_header(headers, total) if estimated else None
        if parts is None and counts is not None:  # live: the counts made before the call
            parts = from_counts(counts, body, total)
        if parts is not None and parts.source == "simulator" and self.check_parts and parts.residual:
            raise PartsMismatch(
                f"simulated input parts {parts.parts()} add up to {parts.parts_total}, "
                f"but usage reports {total} input tokens"
            )
        with self._lock:
            prev = self._replies.get((first, fingerprint(resent))) if resent is not None else None
            if prev is None:
                self._conversations += 1
            conversation = prev[0] if prev else self._conversations
            self._replies[(first, fingerprint(content))] = (conversation, tokens)
            record = CallRecord(
                model=model,
                usage=tokens.as_api(),
                stop_reason=stop_reason,
                wall_s=wall,
                continues=prev is not None,
                estimated=estimated,
                tool_calls=tool_names(content),
                reprefill=tokens.reprefill_after(prev[1] if prev else None),
                conversation=conversation,
                thread=threading.get_ident(),
                breakdown=parts,
                retry=retry,
                sim_latency_s=latency_of(headers) if estimated else None,
                cache_reported=cached,
                batch=batch,
                message_id=message_id,
            )
            record.tokens = tokens  # the Usage just read: the loop, the budget and the run read it, not usage again
            self.calls.append(record)
            if message_id:
                self._by_id[message_id] = record
        if self.live_path:
            add_call(self.live_model, tokens, batch is not None)

    def record_of(self, message_id: str) -> CallRecord | None:
        """The record of the call whose reply had this ``id``; ``None`` if this Meter did not see it."""
        return self._by_id.get(message_id)

    def mark(self) -> int:
        """A position in ``calls``; ``agentlab.run.turns_of(meter, mark)`` gives the calls made since as ``Turn`` s."""
        return len(self.calls)

    def estimated(self, since: int = 0) -> bool:
        """True when any call since ``since`` was answered by the simulator (estimated tokens)."""
        return any(c.estimated for c in self.calls[since:])

    def own_calls(self, since: int = 0, any_conversation: bool = False) -> list[CallRecord]:
        """The calls since ``since`` made by this thread in the conversation of its first such call
        (in any conversation with ``any_conversation=True``: a history rewritten by compaction starts a new one).

        ``run_agent`` uses it so a run's turns are its own even when other conversations share the client.
        """
        me = threading.get_ident()
        mine = [c for c in self.calls[since:] if c.thread == me]
        return [c for c in mine if any_conversation or c.conversation == mine[0].conversation] if mine else []


def meter_of(client: Any) -> Meter:
    """The :class:`Meter` in ``client``'s middleware; a clear error if there is none."""
    for m in getattr(client, "middleware", ()):
        if isinstance(m, Meter):
            return m
    raise LookupError(
        "this client has no agentlab Meter in its middleware; make it with agentlab.connect(), "
        "or pass middleware=[agentlab.Meter()] to anthropic.Anthropic(...)"
    )
