"""Grade a class: run the instructor's exercise tests on every submission and write a CSV.

First the instructor's own solutions are graded the same way (the baseline): that fixes the
exercise columns and the points possible, warns if a solution loses points, and measures each
test: its limit for the students is ``plugin.time_limit`` of that time (generous, with a floor).
Then ``jobs`` students at a time go to warm workers (``agentlab.grading.pool``) that run each
graded test in its own confined process. The score is decided here, in a process that never runs
student code: only the instructor's test ids count, with the instructor's points. Rows go to the
CSV as students finish (``resume=True`` keeps the rows of an interrupted run); at the end the CSV
is rewritten in student order, so the same class graded twice gives the same file. Next to it go a
Markdown feedback file per student, a class summary and a plot of the totals (``summary``).
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from agentlab.grading import bwrap
from agentlab.grading.credentials import scrub_environment
from agentlab.grading.plugin import FLOOR_S, time_limit
from agentlab.grading.pool import Pool, Ready, report_of
from agentlab.grading.report import GradeReport, fmt_points
from agentlab.grading.sandbox import Stage
from agentlab.grading.submissions import Submission, Taken, changed, find_submissions, take
from agentlab.grading.summary import is_zh_cn, write_reports
from agentlab.grading.table import CsvWriter, Progress, Row, resumable, write_csv

NOTES_MAX = 1000
"""Longest ``notes`` cell, in characters."""
BASELINE_LIMIT_S = 120.0
"""Per-test limit while grading the instructor's own solutions (nothing measured yet)."""


def gradebook(
    submissions_dir: Path,
    instructor_repo: Path,
    out_csv: Path,
    *,
    per_student_timeout: float = 120,
    jobs: int | None = None,
    resume: bool = False,
    test_floor: float = FLOOR_S,
    progress: Callable[[str], object] = print,
) -> list[Row]:
    """Grade every folder or .zip in ``submissions_dir``; write ``out_csv``; return the rows (by student).

    ``jobs`` students at a time (default: the number of cores); each test may run ``plugin.time_limit``
    of the reference's time with ``test_floor`` seconds at least, and all of a student's tests together
    ``per_student_timeout`` seconds.
    """
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
    taken = {s.student: take(s) for s in submissions}  # every submission read before any student's code runs
    scrub_environment()  # before any worker starts: nothing below inherits a key
    if bwrap.notice():
        progress(bwrap.notice())
    jobs = jobs or os.cpu_count() or 1
    with Stage(instructor_repo) as stage, Pool(stage, min(jobs, len(submissions)), []) as pool:
        pool.hide = stage.hidden_paths(submissions_dir, out_csv.parent)
        baseline, limits = _baseline(stage, pool, per_student_timeout, test_floor, progress)
        exercises = list(baseline.exercises())
        possible = {ex: p for ex, (_e, p) in baseline.exercises().items()}
        done = resumable(out_csv, exercises) if resume else {}
        if done:
            progress(f"resuming: {len(done)} students already in {out_csv}")
        todo = [s for s in submissions if s.student not in done]
        rows = dict(done)
        writer = CsvWriter(out_csv, possible, list(done.values()))
        clock = Progress(
            len(todo),
            progress,
            f" (each test stops at its limit, {min(limits.values()):g}-"
            f"{max(limits.values()):g} s; the whole submission at {per_student_timeout:g} s)",
        )

        stopping = threading.Event()  # set at the first failure: no student is started after it

        def one(submission: Submission) -> Row | None:
            if stopping.is_set():
                return None
            clock.start(submission.student)
            return _grade(submission, taken[submission.student], stage, pool, baseline, limits, per_student_timeout)

        failure: BaseException | None = None
        try:
            with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(todo)))) as executor:
                for future in as_completed([executor.submit(one, s) for s in todo]):
                    try:
                        row = future.result()
                    except BaseException as e:  # a worker failed: the students being graded still get their rows
                        failure = failure or e
                        stopping.set()
                        continue
                    if row is not None:
                        rows[row.student] = row
                        writer.add(row)
                        clock.end(row)
        finally:
            clock.close()
        if failure is not None:
            raise failure
    ordered = [rows[s.student] for s in submissions if s.student in rows]
    write_csv(out_csv, ordered, possible)
    write_reports(
        ordered, exercises, possible, out_csv, {s.student: "zh-CN" if is_zh_cn(s.path) else "en" for s in submissions}
    )
    return ordered


def _baseline(
    stage: Stage, pool: Pool, budget: float, floor: float, progress: Callable[[str], object]
) -> tuple[GradeReport, dict[str, float]]:
    """Grade the instructor's own solutions; refuse to go on if that yields no graded test."""
    ready = pool.ready
    if not ready.tests:
        errors = "; ".join(f"{e['nodeid']}: {e['reason']}" for e in ready.load_errors) or "no graded test collected"
        raise RuntimeError(
            f"the instructor's tests in {stage.instructor / 'exercises'} produced no graded test "
            f"(is exercises/conftest.py loading agentlab.grading.plugin?): {errors}"
        )
    files = {name: (stage.instructor / "exercises" / name).read_bytes() for name in stage.modules}
    generous = {t.nodeid: BASELINE_LIMIT_S for t in ready.tests}

    def share(only: list[str]) -> list[dict]:
        return pool.grade("(instructor solutions)", files, generous, max(budget, BASELINE_LIMIT_S * 2), only=only)

    with ThreadPoolExecutor(max_workers=pool.size) as executor:  # every worker takes a share of the tests
        parts = list(executor.map(share, [[t.nodeid for t in ready.tests[i :: pool.size]] for i in range(pool.size)]))
    order = {t.nodeid: i for i, t in enumerate(ready.tests)}
    results = sorted((r for part in parts for r in part), key=lambda r: order.get(r["nodeid"], len(order)))
    report = report_of(ready, results)
    limits = {r["nodeid"]: time_limit(r["seconds"], floor=floor) for r in results}
    earned, possible = report.total()
    progress(f"instructor solutions: {fmt_points(earned)}/{fmt_points(possible)}")
    for t in report.tests:
        if t.outcome != "passed":
            progress(f"  WARNING: the solution fails {t.nodeid}: {t.reason}")
    for err in report.load_errors:
        progress(f"  WARNING: could not load {err['nodeid']}: {err['reason']}")
    slowest = max(results, key=lambda r: r["seconds"])
    progress(
        f"  slowest test {slowest['nodeid']}: {slowest['seconds']:.2f} s; limits per test "
        f"{min(limits.values()):g}-{max(limits.values()):g} s (at least {floor:g} s)"
    )
    return report, limits


def _grade(
    submission: Submission,
    taken: Taken,
    stage: Stage,
    pool: Pool,
    baseline: GradeReport,
    limits: dict[str, float],
    budget: float,
) -> Row:
    if taken.files is None:
        return _row(submission.student, baseline, None, [taken.error])
    files, notes = taken.files, []
    ignored = sorted(set(files) - set(stage.modules))
    files = {k: v for k, v in files.items() if k in stage.modules}
    missing = [m for m in stage.modules if m not in files]
    if missing:
        notes.append("missing " + ", ".join(missing))
    if ignored:
        notes.append("ignored " + ", ".join(ignored) + " (not an exercise of this course)")
    results = pool.grade(submission.student, files, limits, budget)
    if changed(submission, taken):
        notes.append(
            "the submission changed on disk while the class was being graded: this grade is for its files as "
            "they were when grading began"
        )
    ready = Ready(baseline.tests, baseline.load_errors)
    return _row(submission.student, baseline, report_of(ready, results), notes)


def _row(student: str, baseline: GradeReport, report: GradeReport | None, notes: list[str]) -> Row:
    """Score against the baseline's tests: only tests the instructor's run knows can earn points."""
    graded = {t.nodeid: t for t in report.tests} if report else {}
    load_errors = {e["nodeid"]: e["reason"] for e in report.load_errors} if report else {}
    points = {ex: 0.0 for ex in baseline.exercises()}
    lost: Counter[tuple[str, str]] = Counter()
    timed_out = 0
    for expected in baseline.tests:
        got = graded.get(expected.nodeid)
        if got is not None and got.outcome == "passed":
            points[expected.exercise] += expected.points
            continue
        timed_out += got is not None and got.reason.startswith(("took longer than", "not run: the ", "stopped: the "))
        reason = got.reason if got is not None and got.outcome != "not run" else None
        reason = reason or load_errors.get(expected.nodeid.split("::")[0])
        if reason or not notes:  # a run-wide note already explains tests that never ran
            lost[(expected.exercise, reason or "not run")] += 1
    notes = notes + [f"{ex}: {why}" + (f" ({n} tests)" if n > 1 else "") for (ex, why), n in lost.items()]
    full = text = "; ".join(notes)
    if len(text) > NOTES_MAX:
        text = text[: NOTES_MAX - 3] + "..."
    return Row(student, points, sum(points.values()), baseline.total()[1], text, full, timed_out)
