"""Grade a class: run the instructor's exercise tests on every submission and write a CSV.

First the instructor's own solutions are graded the same way (the baseline): that fixes the
exercise columns and the points possible, and warns if a solution loses points. Then each
submission runs in its own throw-away folder and process (see ``agentlab.grading.sandbox`` for
what that isolation does and does not do). A submission that does not import, loops, crashes
or floods the output still gets a row: 0 for what failed, and the reason in ``notes``.
"""

from __future__ import annotations

import csv
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentlab.grading.report import GradeReport, fmt_points
from agentlab.grading.sandbox import RunResult, prepare, run_tests
from agentlab.grading.submissions import MODULE, Submission, SubmissionError, copy_modules, find_submissions

NOTES_MAX = 1000
"""Longest ``notes`` cell, in characters."""


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
    """Short reasons for the points lost; empty for full marks."""


def gradebook(submissions_dir: Path, instructor_repo: Path, out_csv: Path, *,
              per_student_timeout: float = 60, progress: Callable[[str], object] = print) -> list[Row]:
    """Grade every folder or .zip in ``submissions_dir``; write ``out_csv``; return the rows."""
    submissions_dir, instructor_repo, out_csv = Path(submissions_dir), Path(instructor_repo), Path(out_csv)
    if not (instructor_repo / "exercises" / "tests").is_dir() or not (instructor_repo / "agentlab").is_dir():
        raise ValueError(f"{instructor_repo} is not the instructor repo: it needs agentlab/ and exercises/tests/")
    if not submissions_dir.is_dir():
        raise ValueError(f"{submissions_dir} is not a folder of submissions")
    if not out_csv.parent.is_dir():
        raise ValueError(f"cannot write {out_csv}: folder {out_csv.parent} does not exist")
    submissions = find_submissions(submissions_dir)
    if not submissions:
        raise ValueError(f"no submissions in {submissions_dir}: expected one folder or .zip file per student")
    modules = sorted(p.name for p in (instructor_repo / "exercises").iterdir() if MODULE.fullmatch(p.name))
    baseline = _baseline(instructor_repo, modules, per_student_timeout, progress)
    rows = []
    for number, submission in enumerate(submissions, 1):
        row = _grade(submission, instructor_repo, baseline, modules, per_student_timeout)
        rows.append(row)
        score = f"{fmt_points(row.total)}/{fmt_points(row.possible)}"
        progress(f"[{number}/{len(submissions)}] {submission.student} ... {score}")
    write_csv(out_csv, rows, list(baseline.exercises()))
    return rows


def write_csv(path: Path, rows: list[Row], exercises: list[str]) -> None:
    """Columns: student, one per exercise, total, possible, notes."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", *exercises, "total", "possible", "notes"])
        for r in rows:
            writer.writerow([_cell(r.student), *(fmt_points(r.points.get(ex, 0)) for ex in exercises),
                             fmt_points(r.total), fmt_points(r.possible), _cell(r.notes)])


def _baseline(instructor: Path, modules: list[str], timeout: float, progress: Callable[[str], object]) -> GradeReport:
    """Grade the instructor's own solutions; refuse to go on if that yields no graded test."""
    with tempfile.TemporaryDirectory(prefix="agentlab-grade-", ignore_cleanup_errors=True) as tmp:
        exercises = prepare(instructor, Path(tmp))
        for name in modules:
            shutil.copy2(instructor / "exercises" / name, exercises / name)
        result = run_tests(Path(tmp), timeout)
    report = result.report
    if result.timed_out:
        raise RuntimeError(f"grading the instructor's own solutions took over {timeout:g}s; raise the time limit")
    if report is None or not report.tests:
        raise RuntimeError(f"the instructor's tests in {instructor / 'exercises'} produced no graded test "
                           f"(is exercises/conftest.py loading agentlab.grading.plugin?). pytest said:\n"
                           f"{result.output_tail[-2000:]}")
    earned, possible = report.total()
    progress(f"instructor solutions: {fmt_points(earned)}/{fmt_points(possible)}")
    for t in report.tests:
        if t.outcome != "passed":
            progress(f"  WARNING: the solution fails {t.nodeid}: {t.reason}")
    for err in report.load_errors:
        progress(f"  WARNING: could not load {err['nodeid']}: {err['reason']}")
    return report


def _grade(submission: Submission, instructor: Path, baseline: GradeReport, modules: list[str],
           timeout: float) -> Row:
    with tempfile.TemporaryDirectory(prefix="agentlab-grade-", ignore_cleanup_errors=True) as tmp:
        exercises = prepare(instructor, Path(tmp))
        try:
            found = copy_modules(submission, exercises)
        except SubmissionError as e:
            return _row(submission.student, baseline, None, [str(e)])
        result = run_tests(Path(tmp), timeout)
    notes = []
    missing = [m for m in modules if m not in found]
    if missing:
        notes.append("missing " + ", ".join(missing))
    if result.timed_out:
        notes.append(f"stopped at the {timeout:g}s time limit")
    elif result.report is None or not result.report.complete:
        last = next((ln.strip() for ln in reversed(result.output_tail.splitlines()) if ln.strip()), "no output")
        notes.append(f"test run crashed (exit code {result.returncode}): {last[:120]}")
    return _row(submission.student, baseline, result, notes)


def _row(student: str, baseline: GradeReport, result: RunResult | None, notes: list[str]) -> Row:
    """Score against the baseline's tests: only tests the instructor's run knows can earn points."""
    report = result.report if result else None
    graded = {t.nodeid: t for t in report.tests} if report else {}
    load_errors = {e["nodeid"]: e["reason"] for e in report.load_errors} if report else {}
    points = {ex: 0.0 for ex in baseline.exercises()}
    lost: Counter[tuple[str, str]] = Counter()
    for expected in baseline.tests:
        got = graded.get(expected.nodeid)
        if got is not None and got.outcome == "passed":
            points[expected.exercise] += expected.points
            continue
        reason = got.reason if got is not None and got.outcome != "not run" else None
        reason = reason or load_errors.get(expected.nodeid.split("::")[0])
        if reason or not notes:  # a run-wide note already explains tests that never ran
            lost[(expected.exercise, reason or "not run")] += 1
    notes = notes + [f"{ex}: {why}" + (f" ({n} tests)" if n > 1 else "") for (ex, why), n in lost.items()]
    text = "; ".join(notes)
    if len(text) > NOTES_MAX:
        text = text[: NOTES_MAX - 3] + "..."
    return Row(student, points, sum(points.values()), baseline.total()[1], text)


def _cell(text: str) -> str:
    """Keep spreadsheets from reading a student-controlled cell as a formula."""
    return "'" + text if text.startswith(("=", "+", "-", "@")) else text
