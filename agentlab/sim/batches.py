"""The Message Batches API on the simulator: create, retrieve, list, results (JSONL), cancel, delete.

What the API documents (https://platform.claude.com/docs/en/build-with-claude/batch-processing and the
API reference, https://platform.claude.com/docs/en/api/creating-message-batches): a batch holds 1 to
100,000 requests ``{custom_id, params}`` in a body of at most 256 MB; each ``params`` is a Messages
request, validated only when the batch is processed, so an invalid one comes back as an ``errored``
result while the others succeed; processing may take up to 24 hours, after which what is left
expires; results, as JSON Lines of ``{custom_id, result: {type: succeeded|errored|canceled|expired}}``,
can be downloaded for 29 days after creation; a batch in progress can be canceled (it is then
``canceling`` until it ends); a batch can be deleted only once it has ended.

What the simulator assumes where the API says nothing exact: a batch is processed at once when it
is created, each request as ``POST /v1/messages`` would answer it, and it ends ``queue_s`` plus its
slowest request's simulated latency later, on the simulator's clock (a ``SimClock`` in tests, so no
test waits). A cancel before the end cancels every request. Error wordings are this simulator's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import httpx2

from agentlab.sim.errors import SimAPIError, invalid

MAX_REQUESTS = 100_000
"""Most requests in one batch (documented)."""
MAX_BATCH_BYTES = 256 * 1024 * 1024
"""Largest batch-creation body: 256 MB (documented; read here as MiB)."""
EXPIRES_S = 24 * 3600.0
"""A batch not finished this long after creation expires (documented: 24 hours)."""
RESULTS_KEPT_S = 29 * 24 * 3600.0
"""Results can be downloaded this long after creation (documented: 29 days)."""
QUEUE_S = 30.0
"""Seconds a simulated batch waits before its requests run: a stand-in, the API documents none
(most batches end within an hour, it says)."""
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""What a ``custom_id`` may be: 1 to 64 letters, digits, ``_`` or ``-`` (the API reference's schema)."""
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)
"""The date simulated clock second 0 stands for (bodies carry no wall-clock time)."""


@dataclass
class SimBatch:
    """One batch and its results, as the simulator keeps it."""

    id: str
    """``msgbatch_...``, from the simulator's request counter."""
    created: float
    """Clock seconds at creation."""
    ends: float
    """Clock seconds at which processing ends (earlier if canceled)."""
    results: list[dict]
    """One ``{custom_id, result}`` per request, in request order."""
    canceled: float | None = None
    """Clock seconds at which a cancel was asked for, if one was."""
    counts: dict = field(default_factory=dict)
    """The request counts once ended: succeeded, errored, canceled, expired."""


class Batches:
    """The batch endpoints of one simulator. ``answer(params, n)`` answers one request's ``params`` as
    ``POST /v1/messages`` would: ``(200, {"message", "seconds"})`` or ``(status, error envelope)``,
    without moving the clock."""

    def __init__(
        self,
        answer: Callable[[Any, httpx2.Request], tuple[int, dict]],
        clock_of: Callable[[], Callable[[], float]],
        queue_s: float = QUEUE_S,
    ) -> None:
        self.answer = answer
        """Answers one request's params (the simulator's Messages endpoint)."""
        self.clock_of = clock_of
        """Gives the simulator's clock now (it may be swapped for a ``SimClock``): batches end on it."""
        self.queue_s = queue_s
        """Seconds a batch waits before its requests run (``QUEUE_S``)."""
        self.offset = 0.0
        """Seconds waited on a clock that cannot be moved (``wait``)."""
        self.batches: dict[str, SimBatch] = {}
        """Every batch not deleted, in creation order."""

    def now(self) -> float:
        """Seconds on the simulator's clock, plus any waited on a clock that cannot be moved."""
        return self.clock_of()() + self.offset

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass: a ``SimClock`` moves on; for any other clock the batches
        alone see the time pass (nothing sleeps)."""
        clock = self.clock_of()
        if hasattr(clock, "advance"):
            clock.advance(seconds)  # type: ignore[attr-defined]
        else:
            self.offset += seconds

    def handle(self, method: str, path: str, request: httpx2.Request, n: int, seed: str) -> tuple[int, Any]:
        """``(status, JSON body)`` for one batch endpoint; a ``SimAPIError`` for an invalid call."""
        parts = path.split("/")[4:]  # after /v1/messages/batches
        if not parts and method == "POST":
            return 200, self._create(request, n, seed)
        if not parts and method == "GET":
            return 200, self._list(request)
        batch = self._find(parts[0]) if parts else None
        if batch is not None and len(parts) == 1 and method == "GET":
            return 200, self._view(batch)
        if batch is not None and len(parts) == 1 and method == "DELETE":
            if self._status(batch) != "ended":
                raise invalid(
                    f"Batch {batch.id} cannot be deleted while it is {self._status(batch)}; cancel it first, "
                    "then delete it once it has ended."
                )
            del self.batches[batch.id]
            return 200, {"id": batch.id, "type": "message_batch_deleted"}
        if batch is not None and parts[1:] == ["cancel"] and method == "POST":
            if self._status(batch) == "in_progress":
                batch.canceled = self.now()
                batch.ends = min(batch.ends, batch.canceled + 1.0)
            return 200, self._view(batch)
        if batch is not None and parts[1:] == ["results"] and method == "GET":
            return 200, self._results(batch)
        raise SimAPIError(
            "not_found_error",
            f"Not found: {method} {path} (the simulator serves POST and GET "
            "/v1/messages/batches, GET and DELETE /v1/messages/batches/{id}, POST .../cancel, GET .../results)",
        )

    def _create(self, request: httpx2.Request, n: int, seed: str) -> dict:
        if len(request.content) > MAX_BATCH_BYTES:
            raise SimAPIError(
                "request_too_large",
                f"Batch body is {len(request.content)} bytes; at most 256 MB "
                f"({MAX_BATCH_BYTES} bytes) in one batch: split the requests into several batches.",
            )
        try:
            body = json.loads(request.content or b"null")
        except ValueError as e:
            raise invalid(f"The request body is not valid JSON: {e}") from None
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not 1 <= len(requests) <= MAX_REQUESTS:
            got = f"{len(requests)} requests" if isinstance(requests, list) else f"{type(requests).__name__}"
            raise invalid(f"requests: expected a list of 1 to {MAX_REQUESTS} items {{custom_id, params}}, got {got}.")
        seen: set[str] = set()
        for i, item in enumerate(requests):
            cid = item.get("custom_id") if isinstance(item, dict) else None
            if not isinstance(cid, str) or not CUSTOM_ID.fullmatch(cid):
                raise invalid(f"requests.{i}.custom_id: {cid!r} is not 1 to 64 letters, digits, '_' or '-'.")
            if cid in seen:
                raise invalid(
                    f"requests.{i}.custom_id: {cid!r} is used twice; each request's custom_id must be unique in its batch."
                )
            if "params" not in item:
                raise invalid(f"requests.{i}.params: Field required (the Messages request to run).")
            seen.add(cid)
        now = self.now()
        results, slowest = [], 0.0
        for item in requests:  # bounded: at most MAX_REQUESTS
            result, seconds = self._run(item["params"], request)
            results.append({"custom_id": item["custom_id"], "result": result})
            slowest = max(slowest, seconds)
        batch = SimBatch(
            f"msgbatch_sim_{n:06d}_{seed[:12]}", now, now + min(self.queue_s + slowest, EXPIRES_S), results
        )
        if self.queue_s + slowest > EXPIRES_S:  # not done within 24 hours: every request expires
            batch.results = [{"custom_id": r["custom_id"], "result": {"type": "expired"}} for r in results]
        self.batches[batch.id] = batch
        return self._view(batch)

    def _run(self, params: Any, request: httpx2.Request) -> tuple[dict, float]:
        """One request's result and its simulated seconds; invalid params give an ``errored`` result."""
        refused = _batch_only_rule(params)
        if refused is not None:
            return {"type": "errored", "error": invalid(refused).envelope(None)}, 0.0  # type: ignore[arg-type]
        status, body = self.answer(params, request)
        if status != 200:
            return {"type": "errored", "error": body}, 0.0
        message = body["message"]
        if isinstance(message.get("usage"), dict):
            message["usage"]["service_tier"] = "batch"  # billed at the batch rate
        return {"type": "succeeded", "message": message}, body["seconds"]

    def _find(self, batch_id: str) -> SimBatch | None:
        if batch_id not in self.batches:
            raise SimAPIError(
                "not_found_error", f"No Message Batch with id {batch_id!r} (it never existed, or was deleted)."
            )
        return self.batches[batch_id]

    def _status(self, batch: SimBatch) -> str:
        if self.now() >= batch.ends:
            return "ended"
        return "canceling" if batch.canceled is not None else "in_progress"

    def _final(self, batch: SimBatch) -> list[dict]:
        """The results as they stand once ended: a canceled batch's requests all canceled."""
        if batch.canceled is not None:
            return [{"custom_id": r["custom_id"], "result": {"type": "canceled"}} for r in batch.results]
        return batch.results

    def _view(self, batch: SimBatch) -> dict:
        status = self._status(batch)
        counts = {k: 0 for k in ("processing", "succeeded", "errored", "canceled", "expired")}
        if status == "ended":
            for r in self._final(batch):
                counts[r["result"]["type"]] += 1
        else:
            counts["processing"] = len(batch.results)
        archived = self.now() >= batch.created + RESULTS_KEPT_S
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "created_at": _iso(batch.created),
            "expires_at": _iso(batch.created + EXPIRES_S),
            "ended_at": _iso(batch.ends) if status == "ended" else None,
            "cancel_initiated_at": _iso(batch.canceled) if batch.canceled is not None else None,
            "archived_at": _iso(batch.created + RESULTS_KEPT_S) if archived else None,
            "results_url": f"/v1/messages/batches/{batch.id}/results" if status == "ended" else None,
        }

    def _results(self, batch: SimBatch) -> bytes:
        if self._status(batch) != "ended":
            raise invalid(
                f"Batch {batch.id} is still {self._status(batch)}: its results can be downloaded once "
                "processing_status is 'ended' (poll GET /v1/messages/batches/{id})."
            )
        if self.now() >= batch.created + RESULTS_KEPT_S:
            raise SimAPIError(
                "not_found_error",
                f"The results of batch {batch.id} are no longer available: results are "
                "kept 29 days after a batch is created.",
            )
        return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in self._final(batch))

    def _list(self, request: httpx2.Request) -> dict:
        query = request.url.params
        try:
            limit = int(query.get("limit", 20))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 1000:
            raise invalid(f"limit: expected a whole number from 1 to 1000, got {query.get('limit')!r}.")
        newest = list(reversed(self.batches.values()))
        after = query.get("after_id")
        if after is not None:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = [self._view(b) for b in newest[:limit]]
        return {
            "data": page,
            "has_more": len(newest) > limit,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
        }


def _batch_only_rule(params: Any) -> str | None:
    """What a batch refuses that ``POST /v1/messages`` takes, or ``None``: ``max_tokens: 0`` (documented: cache
    pre-warming is not supported in a batch) and ``stream`` (results come as a file once the batch ends)."""
    if not isinstance(params, dict):
        return None
    if params.get("max_tokens") == 0:
        return "max_tokens: 0 (cache pre-warming) is not supported in a Message Batch; give max_tokens of at least 1."
    if params.get("stream"):
        return "stream: not supported in a Message Batch; its results are downloaded once the batch has ended."
    return None


def _iso(seconds: float) -> str:
    """Simulated clock seconds as an RFC 3339 time (``EPOCH`` + seconds)."""
    return (EPOCH + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")
