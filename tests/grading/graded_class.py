"""Grade a small class of hand-written submissions through the gradebook, and read what their code reported.

A submission that wants to show what it saw inside the sandbox raises an error whose message starts
with a marker and carries JSON; the reason lands in the student's ``notes``, where ``evidence`` finds it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from agentlab.grading.gradebook import gradebook


def grade_class(course: Path, tmp: Path, students: dict[str, dict[str, str]]) -> dict[str, dict]:
    """Write each student's files (name -> module file -> text) under ``tmp``; grade them with one worker,
    in name order; the CSV rows by student."""
    klass = tmp / "class"
    for name, files in students.items():
        (klass / name).mkdir(parents=True)
        for rel, text in files.items():
            (klass / name / rel).write_text(text)
    out = tmp / "gradebook.csv"
    gradebook(klass, course, out, test_floor=3, jobs=1, progress=lambda s: None)
    return {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}


def evidence(rows: dict[str, dict], student: str, marker: str = "EVIDENCE ") -> dict:
    """The JSON a student's code put after ``marker`` in an error the grader reported."""
    notes = rows[student]["notes"]
    assert marker in notes, notes
    return json.loads(notes.split(marker, 1)[1].split(";")[0].removesuffix("..."))
