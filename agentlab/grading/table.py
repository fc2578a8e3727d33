"""The gradebook CSV: one row per student, written as students finish, readable back to resume.

Columns: student; for each exercise its points and its points possible (``1.1``, ``1.1 possible``);
total, possible, notes. Cells a student controls (the folder
name, the notes) that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return get a
leading ``'`` so a spreadsheet never reads them as a formula.

Every file the gradebook writes goes through ``write_file``: written whole into a fresh file beside its
place (``O_EXCL | O_NOFOLLOW``: never through a link someone planted), then renamed over it, so a link
standing at that name is replaced, not followed, and a reader never sees half a file.
"""

from __future__ import annotations

import csv
import io
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentlab.grading.report import fmt_points


@dataclass
class Row:
    """One student's line of the gradebook."""

    student: str
    """Submission folder name, or zip file name without ``.zip``."""
    points: dict[str, float]
    """Exercise id -> points earned, for every exercise of the instructor's tests."""
    total: float
    """Sum of ``points``."""
    possible: float
    """Points possible over all exercises."""
    notes: str
    """Short reasons for the points lost; empty for full marks (cut for the CSV cell)."""
    feedback: str = ""
    """The same reasons, never cut (the student's feedback file); empty for a row read back from a CSV."""
    timed_out: int = 0
    """Graded tests stopped at their time limit (or never run: the submission's whole budget was used up)."""


def columns(exercises: list[str]) -> list[str]:
    """The header: student, then each exercise's points and points possible, total, possible, notes."""
    return ["student", *(c for ex in exercises for c in (ex, f"{ex} possible")), "total", "possible", "notes"]


def write_file(path: Path, data: bytes) -> None:
    """``data`` as the whole of ``path``: into a fresh file beside it, never through a link, then renamed over it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_csv(path: Path, rows: list[Row], possible: dict[str, float]) -> None:
    """The whole table (``possible``: exercise id -> points possible, in column order), by ``write_file``."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(columns(list(possible)))
    for r in rows:
        writer.writerow(_cells(r, possible))
    write_file(path, text.getvalue().encode("utf-8"))


def _cells(r: Row, possible: dict[str, float]) -> list[str]:
    return [
        _cell(r.student),
        *(fmt_points(p) for ex, of in possible.items() for p in (r.points.get(ex, 0), of)),
        fmt_points(r.total),
        fmt_points(r.possible),
        _cell(r.notes),
    ]


def _cell(text: str) -> str:
    """Keep spreadsheets from reading a student-controlled cell as a formula."""
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text


def resumable(path: Path, exercises: list[str]) -> dict[str, Row]:
    """Rows of an earlier (maybe interrupted) run with the same columns; {} if none."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
            header = list(table[0]) if table else []
    except (OSError, ValueError):
        return {}
    if header != columns(exercises):
        return {}
    rows = {}
    for r in table:
        try:
            name = r["student"][1:] if r["student"].startswith("'") else r["student"]
            notes = r["notes"][1:] if r["notes"].startswith("'") else r["notes"]
            rows[name] = Row(
                name, {ex: float(r[ex]) for ex in exercises}, float(r["total"]), float(r["possible"]), notes
            )
        except (KeyError, ValueError):
            continue
    return rows


class CsvWriter:
    """Appends each finished row at once (flushed to disk), after the header and any resumed rows."""

    def __init__(self, path: Path, possible: dict[str, float], rows: list[Row]) -> None:
        self.path, self.possible, self.lock, self.rows = path, possible, threading.Lock(), list(rows)
        write_csv(path, rows, possible)

    def add(self, row: Row) -> None:
        text = io.StringIO(newline="")
        csv.writer(text).writerow(_cells(row, self.possible))
        with self.lock:
            self.rows.append(row)
            try:  # appended to the file write_csv made, never through a link put in its place since
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
            except OSError:  # gone, or a link now: the whole table again, in a file of its own
                write_csv(self.path, self.rows, self.possible)
                return
            with os.fdopen(fd, "wb") as f:
                f.write(text.getvalue().encode("utf-8"))
                f.flush()
                os.fsync(f.fileno())


class Progress:
    """One line per student starting and ending, with a running count and the time left; while a student's
    grading runs long, a line every ``every`` seconds saying so and what will stop it (``limits``)."""

    def __init__(self, total: int, say: Callable[[str], object], limits: str = "", every: float = 30.0) -> None:
        self.total, self.say, self.done, self.running = total, say, 0, 0
        self.limits, self.every = limits, every
        self.t0, self.started, self.lock = time.monotonic(), {}, threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._watch, name="gradebook-progress", daemon=True).start()

    def start(self, student: str) -> None:
        with self.lock:
            self.running += 1
            self.started[student] = time.monotonic()
            self.say(f"  start {student} ({self.running} running, {self.done}/{self.total} done)")

    def end(self, row: Row) -> None:
        with self.lock:
            self.running -= 1
            self.done += 1
            took = time.monotonic() - self.started.pop(row.student, self.t0)
            elapsed = time.monotonic() - self.t0
            left = elapsed / self.done * (self.total - self.done)
            plural = "s" if row.timed_out != 1 else ""
            stopped = f", {row.timed_out} test{plural} stopped at a time limit" if row.timed_out else ""
            self.say(
                f"[{self.done}/{self.total}] {row.student} ... {fmt_points(row.total)}/{fmt_points(row.possible)} "
                f"in {took:.1f} s{stopped}; about {_duration(left)} left"
            )

    def close(self) -> None:
        """Stop the long-run lines (the watcher thread ends at its next wake-up)."""
        self._closed.set()

    def _watch(self) -> None:
        while not self._closed.wait(self.every):  # ends with close(), or with the process (a daemon thread)
            with self.lock:
                now = time.monotonic()
                for student, since in self.started.items():
                    if now - since >= self.every:
                        self.say(f"  {student}: still grading after {_duration(now - since)}{self.limits}")


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
