"""One append-only JSONL trace per run, written as the run goes so a crash keeps what happened.

The file is flushed before every model call and every tool run, so even a hard kill loses at most
the events of the step in flight; an exception writes a ``stop`` event and closes the file.

Line 1 is a header ``{"format": "agentlab-trace", "version": 1, ...}``; every later line is one
event, ``{"event": <kind>, <fields>...}``, of a kind in :data:`EVENTS` (which says what each kind
means and the fields it always carries), and the last line is always ``stop``. Events carry no
wall-clock time, so two runs of the deterministic simulator give byte-identical traces.

With ``AGENTLAB_CHECK_TRACE=1`` in the environment (the test suite sets it) every event is checked
against :data:`EVENTS` as it is written: an unknown kind or a missing field raises at once, in the
code that wrote it. Without it nothing is checked.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

FORMAT = "agentlab-trace"
VERSION = 1
_encode = json.JSONEncoder(ensure_ascii=False).encode
_FLUSH_BEFORE = {"request", "response", "tool_call", "code_step", "stop"}
"""Events after which the file is flushed: just before the slow or risky steps (a model call, a tool),
and after a reply (a workflow's code step runs next and writes its event only once it has run)."""
OTLP_ENV = "AGENTLAB_OTLP"
"""An OTLP receiver's address: every run's trace (an agent's, a workflow's) is also sent there as spans as it goes
(:mod:`agentlab.otel`)."""
CHECK_TRACE_ENV = "AGENTLAB_CHECK_TRACE"
"""When set (the test suite sets it), every event written is checked against :data:`EVENTS`."""


class TraceFormatError(ValueError):
    """A file that is not an agentlab trace, or a trace that breaks the format."""


@dataclass(frozen=True)
class EventKind:
    """One kind of trace event: what it records and the fields it carries."""

    meaning: str
    """One line: what happened when this event was written."""
    fields: tuple[str, ...]
    """The fields every event of this kind carries (besides ``event``); checked under ``AGENTLAB_CHECK_TRACE``."""
    optional: tuple[str, ...] = ()
    """Fields some writers add (a workflow's ``step``, a guard's figures on ``stop``); documented, not checked."""


EVENTS: dict[str, EventKind] = {
    "request": EventKind(
        "the harness is about to call the model: the run's call number, how many messages it sends",
        ("turn", "messages"),
        ("step", "structured"),
    ),
    "response": EventKind(
        "the model's reply: its content blocks as the API returned them, stop_reason, usage "
        "(stop_details: what the API said of a refusal, when it said anything; diagnostics: why the prompt cache "
        "missed, when the request asked; batch_id: the Message Batch that answered it)",
        ("turn", "stop_reason", "content", "usage"),
        ("step", "stop_details", "diagnostics", "batch_id"),
    ),
    "tool_call": EventKind(
        "the harness runs a tool the model asked for (id: its tool_use block's; a ReAct action has none)",
        ("turn", "name", "input"),
        ("id",),
    ),
    "tool_result": EventKind(
        "what that tool returned, sent back to the model", ("turn", "content", "is_error"), ("id",)
    ),
    "code_step": EventKind(
        "your code ran a tool or function on its own, no model asked: its input and result",
        ("name", "input", "content", "is_error"),
        ("step",),
    ),
    "parse_error": EventKind("a ReAct reply was neither a well-formed action nor a final answer", ("turn", "error")),
    "step_failed": EventKind(
        "a workflow step did not succeed (a rejected gate, a timeout, a guard)", ("step", "status", "error")
    ),
    "blocked": EventKind(
        "a defence refused a tool call before it ran; its tool_result is the refusal",
        ("turn", "id", "name", "defence", "reason"),
    ),
    "marked": EventKind(
        "a tool result was marked as data (spotlighting) before the model saw it", ("turn", "id", "mode", "content")
    ),
    "context_cleared": EventKind(
        "the harness replaced old tool results with a placeholder before a call",
        ("turn", "tokens_before", "cleared_tool_results"),
    ),
    "context_edited": EventKind(
        "the API reported clearing old tool results (context_management)", ("turn", "applied_edits")
    ),
    "compaction": EventKind(
        "the history was summarised into one message, or the summary was over budget (refused)",
        ("turn",),
        ("tokens_before", "messages_before", "summary_tokens", "summary", "refused", "output_tokens", "limit"),
    ),
    "api_attempt": EventKind(
        "an HTTP attempt at the model failed (an API error, an injected fault), or came as the SDK's "
        "retry of one: its status, the API's error type, whether it was a retry",
        ("status", "retry"),
        ("error_type",),
    ),
    "stop": EventKind(
        "the run ended, and why (a guard's name, value seen and limit when the harness stopped it)",
        ("reason",),
        ("turns", "final_text", "detail", "steps", "guard", "observed", "limit", "signal", "error", "parse_failures"),
    ),
}
"""Every kind of trace event, by name: what it means and the fields it always carries."""


def check_event(kind: str, fields: dict) -> None:
    """Refuse (TraceFormatError) an event of a kind not in :data:`EVENTS` or without one of its fields."""
    spec = EVENTS.get(kind)
    if spec is None:
        raise TraceFormatError(
            f"unknown trace event kind {kind!r}; the kinds are {', '.join(EVENTS)}. "
            "A new kind goes into agentlab.trace.EVENTS with its meaning and fields"
        )
    missing = [f for f in spec.fields if f not in fields]
    if missing:
        raise TraceFormatError(
            f"trace event {kind!r} is missing the field {missing[0]!r} (it has "
            f"{', '.join(fields) or 'no fields'}); every {kind!r} event carries "
            f"{', '.join(spec.fields)} (agentlab.trace.EVENTS)"
        )


def check_trace(events: list[dict]) -> None:
    """Refuse (TraceFormatError) a trace's events that break the format: header first, every event of a
    known kind with its fields, one ``stop`` and it last."""
    if not events or events[0].get("format") != FORMAT:
        raise TraceFormatError(
            f"check_trace: the first record is not an agentlab trace header ({{'format': '{FORMAT}', ...}})"
        )
    for n, e in enumerate(events[1:], start=2):
        fields = {k: v for k, v in e.items() if k != "event"}
        try:
            check_event(e.get("event"), fields)
        except TraceFormatError as err:
            raise TraceFormatError(f"record {n}: {err}") from None
    kinds = [e["event"] for e in events[1:]]
    if kinds.count("stop") != 1 or kinds[-1] != "stop":
        raise TraceFormatError(f"check_trace: a trace ends with exactly one stop event; its kinds are {kinds}")


_open = threading.local()  # per thread: the traces inside a ``with Trace(...)`` block, innermost last


def current_trace() -> "Trace | None":
    """The innermost trace this thread is running inside (``with Trace(...)``) and not yet stopped, if any.

    How code below the loop (the meter's failed and retried attempts) writes into the run's trace."""
    for trace in reversed(getattr(_open, "stack", [])):
        if not trace.stopped:
            return trace
    return None


class Trace:
    """Collects events in memory and, when given a path, appends each one to disk at once.

    Thread-safe (one lock per trace: a signal or exit handler may write ``stop`` from another thread).
    Text that UTF-8 cannot encode (a lone surrogate from a tool) is written as a JSON ``\\uXXXX``
    escape, so the line stays valid JSON and reads back as the same string."""

    def __init__(self, path: str | Path | None = None, otlp: str | None = None, **header: Any) -> None:
        """``otlp``: an OTLP receiver's address, to which every record also goes as spans as it is written
        (:mod:`agentlab.otel`); a run's trace (one whose header has a ``kind``) defaults to ``$AGENTLAB_OTLP``."""
        self.path = Path(path) if path is not None else None
        self.events: list[dict] = []
        self._fh = None
        self._check = bool(os.environ.get(CHECK_TRACE_ENV))
        self._lock = threading.RLock()
        self._sink: Callable[[dict], None] | None = None
        env = os.environ.get(OTLP_ENV) if "kind" in header else None
        if otlp or env:
            from agentlab.otel import live_sink  # only here: OpenTelemetry is an optional extra

            self._sink = live_sink(otlp) if otlp else live_sink(env, from_env=True)
        if self.path is not None:
            if not self.path.parent.is_dir():  # a stat; mkdir(exist_ok=True) raised and caught inside, ~30 µs a run
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8", errors="backslashreplace")
        self._write({"format": FORMAT, "version": VERSION, **header})

    def _write(self, record: dict) -> None:
        with self._lock:
            self.events.append(record)
            if self._fh is not None:
                self._fh.write(_encode(record) + "\n")
                if record.get("event", "stop") in _FLUSH_BEFORE:
                    self._fh.flush()
            if self._sink is not None:
                self._sink(record)

    def event(self, kind: str, **fields: Any) -> None:
        """Append one event; refuses anything after ``stop`` (and, when checking, one that breaks :data:`EVENTS`)."""
        with self._lock:
            if self.stopped:
                raise TraceFormatError(f"event {kind!r} after the stop event; a trace ends at its stop")
            if self._check:
                check_event(kind, fields)
            self._write({"event": kind, **fields})

    @property
    def stopped(self) -> bool:
        """True once the ``stop`` event is written."""
        return len(self.events) > 1 and self.events[-1].get("event") == "stop"

    def stop(self, reason: str, **fields: Any) -> None:
        """Write the closing ``stop`` event and close the file."""
        with self._lock:
            self.event("stop", reason=reason, **fields)
            self.close()

    def close(self) -> None:
        """Close the file (the in-memory events stay)."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __enter__(self) -> "Trace":
        _open.stack = [*getattr(_open, "stack", []), self]
        return self

    def carried(self, fn: Callable[[], T]) -> Callable[[], T]:
        """``fn`` wrapped so that in whichever thread runs it (a parallel step's worker) this trace is the
        current one: the meter's failed and retried attempts made there are written here too."""

        def run() -> T:
            _open.stack = [*getattr(_open, "stack", []), self]
            try:
                return fn()
            finally:
                self.leave()

        return run

    def leave(self) -> None:
        """Stop being this thread's current trace (the file stays open: a guard may still write the stop)."""
        _open.stack = [t for t in getattr(_open, "stack", []) if t is not self]

    def __exit__(self, exc_type, exc, tb) -> None:
        self.leave()
        with self._lock:
            if exc is not None and not self.stopped:
                self.stop("error", error=f"{type(exc).__name__}: {exc}")
            self.close()


def read_trace(path: str | Path) -> list[dict]:
    """The events of a trace file (header first); a broken file raises TraceFormatError naming the line."""
    events = list(_lines(Path(path)))
    if not events or events[0].get("format") != FORMAT:
        raise TraceFormatError(f"{path}: line 1 is not an agentlab trace header ({{'format': '{FORMAT}', ...}})")
    if events[0].get("version") != VERSION:
        raise TraceFormatError(
            f"{path}: trace version {events[0].get('version')!r}, this agentlab reads version {VERSION}"
        )
    return events


def _lines(path: Path) -> Iterator[dict]:
    # JSON Lines ends records with "\n" only; str.splitlines would also split inside model text at
    # U+2028, U+2029, U+0085 and other separators that json.dumps(ensure_ascii=False) leaves unescaped.
    lines = path.read_text("utf-8").split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the empty string after the final newline
    for n, line in enumerate(lines, start=1):
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            raise TraceFormatError(f"{path}:{n}: not JSON ({e.msg}); the run may have been cut off here") from None
