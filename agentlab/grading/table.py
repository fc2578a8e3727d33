"""The gradebook CSV: one row per student, written as students finish, readable back to resume.

Columns: student; for each exercise its points and its points possible (``1.1``, ``1.1 possible``);
total, possible, notes. Cells a student controls (the folder
name, the notes) that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return get a
leading ``'`` so a spreadsheet never reads them as a formula.
"""

from __future__ import annotations

import csv
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


def columns(exercises: list[str]) -> list[str]:
    """The header: student, then each exercise's points and points possible, total, possible, notes."""
    return ["student", *(c for ex in exercises for c in (ex, f"{ex} possible")), "total", "possible", "notes"]


def write_csv(path: Path, rows: list[Row], possible: dict[str, float]) -> None:
    """The whole table (``possible``: exercise id -> points possible, in column order); written, then moved in place."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(columns(list(possible)))
        for r in rows:
            writer.writerow(_cells(r, possible))
    os.replace(tmp, path)


def _cells(r: Row, possible: dict[str, float]) -> list[str]:
    return [_cell(r.student), *(fmt_points(p) for ex, of in possible.items() for p in (r.points.get(ex, 0), of)),
            fmt_points(r.total), fmt_points(r.possible), _cell(r.notes)]


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
            rows[name] = Row(name, {ex: float(r[ex]) for ex in exercises}, float(r["total"]), float(r["possible"]), notes)
        except (KeyError, ValueError):
            continue
    return rows


class CsvWriter:
    """Appends each finished row at once (flushed to disk), after the header and any resumed rows."""

    def __init__(self, path: Path, possible: dict[str, float], rows: list[Row]) -> None:
        self.path, self.possible, self.lock = path, possible, threading.Lock()
        write_csv(path, rows, possible)

    def add(self, row: Row) -> None:
        with self.lock, open(self.path, "a", newline="", encoding="utf-8") as f:
            csv.writer(f).writerow(_cells(row, self.possible))
            f.flush()
            os.fsync(f.fileno())


class Progress:
    """One line per student starting and ending, with a running count and the time left."""

    def __init__(self, total: int, say: Callable[[str], object]) -> None:
        self.total, self.say, self.done, self.running = total, say, 0, 0
        self.t0, self.started, self.lock = time.monotonic(), {}, threading.Lock()

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
            self.say(f"[{self.done}/{self.total}] {row.student} ... {fmt_points(row.total)}/{fmt_points(row.possible)} "
                     f"in {took:.1f} s; about {_duration(left)} left")


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
