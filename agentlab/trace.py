"""One append-only JSONL trace per run, written as the run goes so a crash keeps what happened.

The file is flushed before every model call and every tool run, so even a hard kill loses at most
the events of the step in flight; an exception writes a ``stop`` event and closes the file.

Line 1 is a header ``{"format": "agentlab-trace", "version": 1, ...}``; every later line is one
event (``request``, ``response``, ``tool_call``, ``tool_result``, ``code_step``, ``stop``) and the last
line is always ``stop``. Events carry no wall-clock time, so two runs of the deterministic
simulator give byte-identical traces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

FORMAT = "agentlab-trace"
VERSION = 1
_encode = json.JSONEncoder(ensure_ascii=False).encode
_FLUSH_BEFORE = {"request", "tool_call", "code_step", "stop"}
"""Events after which the file is flushed: just before the slow or risky steps (a model call, a tool)."""


class TraceFormatError(ValueError):
    """A file that is not an agentlab trace, or a trace that breaks the format."""


class Trace:
    """Collects events in memory and, when given a path, appends each one to disk at once."""

    def __init__(self, path: str | Path | None = None, **header: Any) -> None:
        self.path = Path(path) if path is not None else None
        self.events: list[dict] = []
        self._fh = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8")
        self._write({"format": FORMAT, "version": VERSION, **header})

    def _write(self, record: dict) -> None:
        self.events.append(record)
        if self._fh is not None:
            self._fh.write(_encode(record) + "\n")
            if record.get("event", "stop") in _FLUSH_BEFORE:
                self._fh.flush()

    def event(self, kind: str, **fields: Any) -> None:
        """Append one event; refuses anything after ``stop``."""
        if self.stopped:
            raise TraceFormatError(f"event {kind!r} after the stop event; a trace ends at its stop")
        self._write({"event": kind, **fields})

    @property
    def stopped(self) -> bool:
        """True once the ``stop`` event is written."""
        return len(self.events) > 1 and self.events[-1].get("event") == "stop"

    def stop(self, reason: str, **fields: Any) -> None:
        """Write the closing ``stop`` event and close the file."""
        self.event("stop", reason=reason, **fields)
        self.close()

    def close(self) -> None:
        """Close the file (the in-memory events stay)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc is not None and not self.stopped:
            self.stop("error", error=f"{type(exc).__name__}: {exc}")
        self.close()


def read_trace(path: str | Path) -> list[dict]:
    """The events of a trace file (header first); a broken file raises TraceFormatError naming the line."""
    events = list(_lines(Path(path)))
    if not events or events[0].get("format") != FORMAT:
        raise TraceFormatError(f"{path}: line 1 is not an agentlab trace header ({{'format': '{FORMAT}', ...}})")
    if events[0].get("version") != VERSION:
        raise TraceFormatError(f"{path}: trace version {events[0].get('version')!r}, this agentlab reads version {VERSION}")
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
