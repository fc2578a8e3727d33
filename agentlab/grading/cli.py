"""``agentlab release-student``, ``agentlab gradebook`` and ``agentlab project``: argparse wiring for the grading tools.

``add_commands(subparsers)`` adds both sub-commands; each sets ``handler`` to a function taking the
parsed ``argparse.Namespace`` and returning the exit code (0 ok, 2 bad input).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

# The implementations (release, credentials, gradebook) are imported by the handlers, not here: ``agentlab``
# builds its parser with these commands on every run, ``agentlab serve`` included (issue 22: start-up).


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    release = subparsers.add_parser(
        "release-student",
        help="write the student edition: a copy with the solutions replaced by stubs",
        description="Copy the instructor repo to OUT_DIR, replacing every '### BEGIN SOLUTION' ... "
        "'### END SOLUTION' region (in .py files and notebook cells) by a NotImplementedError stub.",
    )
    release.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="new or empty folder to write to")
    release.add_argument(
        "--src",
        metavar="DIR",
        type=Path,
        default=Path("."),
        help="instructor repo to release (default: the current folder)",
    )
    release.set_defaults(handler=run_release_student)

    book = subparsers.add_parser(
        "gradebook",
        help="grade every student submission and write a CSV",
        description="Run the instructor's exercise tests on each folder or .zip in SUBMISSIONS_DIR "
        "(one per student) and write one CSV row per student.",
    )
    book.add_argument(
        "submissions_dir",
        metavar="SUBMISSIONS_DIR",
        type=Path,
        help="folder holding one sub-folder or .zip file per student",
    )
    book.add_argument("--out", metavar="CSV", type=Path, required=True, help="CSV file to write, e.g. gradebook.csv")
    book.add_argument(
        "--instructor",
        metavar="DIR",
        type=Path,
        default=Path("."),
        help="instructor repo whose exercises/tests grade the submissions (default: current folder)",
    )
    book.add_argument(
        "--timeout",
        metavar="S",
        type=_seconds,
        default=120.0,
        help="wall-clock limit for all of one student's tests, in seconds (default: 120); "
        "each test also has its own limit, measured on your solutions",
    )
    book.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=_count,
        default=os.cpu_count() or 1,
        help="students graded at once (default: the number of cores)",
    )
    book.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out (from an interrupted run) and grade only the rest",
    )
    book.set_defaults(handler=run_gradebook)

    project = subparsers.add_parser(
        "project",
        help="grade the final project: the three questions answered from two traces",
        description="Check a final project's answers file (TOML) against the agent and workflow traces it names; "
        "prints each check and the total (14 points). No code from the project runs.",
    )
    project.add_argument("answers", metavar="ANSWERS", type=Path, help="the answers file, e.g. project/answers.toml")
    project.add_argument("--template", action="store_true", help="write a template to ANSWERS instead of grading it")
    project.set_defaults(handler=run_project)


def run_project(args: argparse.Namespace) -> int:
    from agentlab.grading.project import ProjectError, grade, write_template

    try:
        if args.template:
            print(f"wrote {write_template(args.answers)}: fill it in, then run `agentlab project {args.answers}`")
            return 0
        print("\n".join(grade(args.answers).lines()))
    except ProjectError as e:
        return _error(str(e))
    return 0


def run_release_student(args: argparse.Namespace) -> int:
    from agentlab.grading.release import SolutionMarkerError, release_student

    src, out = Path(args.src), Path(args.out_dir)
    if not src.is_dir():
        return _error(f"--src {src}: no such folder; pass the instructor repo (the folder holding exercises/)")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        return _error(f"OUT_DIR {out}: already exists and is not an empty folder; pick a new folder or delete it first")
    if src.resolve() == out.resolve() or src.resolve() in out.resolve().parents:
        return _error(f"OUT_DIR {out}: is inside --src {src}; write the student edition outside the instructor repo")
    try:
        report = release_student(src, out)
    except SolutionMarkerError as e:
        return _error(f"{e}\nFix the markers in that file and run again; nothing was written.")
    print(f"wrote the student edition to {out} ({report.files} files)")
    for path, exercises in report.stubbed.items():
        print(f"  {path}: {len(exercises)} solution region(s) stubbed")
    if not report.regions:
        print(f"warning: no '### BEGIN SOLUTION' regions found in {src}; is it the instructor repo?", file=sys.stderr)
    return 0


def run_gradebook(args: argparse.Namespace) -> int:
    from agentlab.grading.credentials import is_credential, scrub_environment

    submissions, instructor, out = Path(args.submissions_dir), Path(args.instructor), Path(args.out)
    if not submissions.is_dir():
        return _error(
            f"SUBMISSIONS_DIR {submissions}: no such folder; pass the folder holding one "
            "sub-folder or .zip file per student"
        )
    if not (instructor / "exercises" / "tests").is_dir() or not (instructor / "agentlab").is_dir():
        return _error(
            f"--instructor {instructor}: no exercises/tests/ or agentlab/ there; "
            "pass the instructor repo folder (default: the current folder)"
        )
    if out.is_dir() or not out.parent.is_dir():
        return _error(
            f"--out {out}: cannot write a CSV there; give a file path in an existing folder, e.g. --out gradebook.csv"
        )
    if any(is_credential(k) for k in os.environ) and sys.argv[1:2] == ["gradebook"]:
        # /proc/<pid>/environ shows what a process started with: start again without the keys
        env = dict(os.environ)
        scrub_environment(env)
        os.execve(sys.executable, [sys.executable, "-m", "agentlab", *sys.argv[1:]], env)
    from agentlab.grading.gradebook import (
        gradebook,  # here, not at the top: it imports pytest (~0.15 s per `agentlab` command)
    )

    try:
        rows = gradebook(
            submissions, instructor, out, per_student_timeout=args.timeout, jobs=args.jobs, resume=args.resume
        )
    except (ValueError, RuntimeError) as e:
        return _error(str(e))
    print(f"wrote {out} ({len(rows)} students)")
    return 0


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not (seconds > 0 and math.isfinite(seconds)):
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds above 0; use e.g. --timeout 60")
    return seconds


def _count(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number above 0; use e.g. -j 2")
    return int(value)


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2
