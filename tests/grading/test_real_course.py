"""The course's own exercises under the grading convention: instructor 100%, student edition 0 with
readable reasons and no solution text, and a sample class graded into the expected CSV."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentlab.grading.gradebook import gradebook
from agentlab.grading.release import release_student

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path(__file__).parent / "sample_class"
POSSIBLE = str(
    sum(
        int(n)
        for p in (ROOT / "exercises" / "tests").glob("test_ex*.py")
        for n in re.findall(r"@pytest\.mark\.points\((\d+)\)", p.read_text())
    )
)
"""Points possible over every graded test of the course (the sample class only does exercises 1 and 2)."""

pytestmark = pytest.mark.skipif(
    not any("### BEGIN SOLUTION" in p.read_text() for p in (ROOT / "exercises").glob("ex*_*.py")),
    reason="student edition: the reference solutions these tests grade are not here",
)


def _grade(repo: Path, tmp_path: Path) -> tuple[dict, subprocess.CompletedProcess]:
    """What `make grade` runs (the Makefile's grade line), plus --grade-json."""
    report = tmp_path / f"grade-{repo.name}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--tb=short",
            "-p",
            "no:cacheprovider",
            "exercises",
            "--grade-json",
            str(report),
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    return json.loads(report.read_text()), done


def _solution_lines() -> list[str]:
    lines = []
    for path in (ROOT / "exercises").glob("ex*_*.py"):
        for region in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", path.read_text(), re.S):
            lines += [ln.strip() for ln in region.splitlines() if len(ln.strip()) > 25]
    return lines


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student") / "edition"
    release_student(ROOT, out)
    return out


@pytest.mark.timeout(300)
def test_instructor_edition_scores_full_marks(tmp_path):
    report, done = _grade(ROOT, tmp_path)
    totals = report["total"]
    assert totals["earned"] == totals["possible"] > 0, totals
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == f"Total: {POSSIBLE}/{POSSIBLE} points"


@pytest.mark.timeout(300)
def test_student_edition_scores_zero_with_a_reason_per_exercise(student, tmp_path):
    report, done = _grade(student, tmp_path)
    assert report["total"]["earned"] == 0 and report["total"]["possible"] > 0
    for test in report["tests"]:
        assert test["reason"].startswith("NotImplementedError: Exercise "), test
    # what an untouched student edition prints: short, one line per exercise, the total last, exit 0
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert len(lines) + 1 <= 40, done.stdout  # + make's own echo of the command
    assert lines[-1] == f"Total: 0/{POSSIBLE} points"
    assert "exercises/ex01_round_trip.py, notebook 01" in done.stdout and "Traceback" not in done.stdout
    # an exercise listed in a notebook's second part points there: 4.2 sits beside the evaluator in 04b
    assert "exercise 4.2 in exercises/ex04_patterns.py, notebook 04b" in done.stdout, done.stdout
    assert "FAILED" not in done.stdout and "NotImplementedError" not in done.stdout
    exercises = sorted({t["exercise"] for t in report["tests"]})
    assert sum("  not started: exercise " in line for line in lines) == len(exercises)


def _text(repo: Path, strip_solutions: bool = False) -> str:
    files = [
        p for p in repo.rglob("*") if p.is_file() and p.suffix in (".py", ".ipynb", ".md") and ".venv" not in p.parts
    ]
    text = "\n".join(p.read_text(errors="ignore") for p in files)
    return re.sub(r"### BEGIN SOLUTION\n.*?### END SOLUTION", "", text, flags=re.S) if strip_solutions else text


def test_student_edition_holds_no_solution_text(student):
    # lines that also stand outside solution regions (agentlab/loop.py is a loop too; docstrings give
    # hints) are not secrets
    library = _text(ROOT, strip_solutions=True)
    lines = [ln for ln in _solution_lines() if ln not in library]
    assert len(lines) >= 5
    text = _text(student)
    leaked = [ln for ln in lines if ln in text]
    assert not leaked, f"solution lines found in the student edition: {leaked[:3]}"


@pytest.mark.timeout(1800)  # a generous bound on a loaded machine; speed is measured in benchmarks/grade_class.py
def test_sample_class_grades_into_the_expected_csv(student, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-NOT-A-REAL-KEY")  # what mallory looks for
    klass = tmp_path / "class"
    shutil.copytree(SAMPLE, klass, ignore=shutil.ignore_patterns("README.md"))
    (klass / "README.md").unlink(missing_ok=True)
    shutil.copytree(
        ROOT / "exercises",
        klass / "alice_correct",
        ignore=shutil.ignore_patterns("tests", "conftest.py", "__pycache__"),
    )
    (klass / "bob_partial").mkdir()
    shutil.copy(student / "exercises" / "ex01_round_trip.py", klass / "bob_partial")
    shutil.copy(ROOT / "exercises" / "ex02_loop.py", klass / "bob_partial")
    gradebook(klass, ROOT, tmp_path / "gradebook.csv", per_student_timeout=600, test_floor=5, progress=lambda s: None)
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "gradebook.csv").open())}
    got = {name: {k: rows[name][k] for k in ("1.1", "1.2", "2.1", "2.2", "total", "possible")} for name in sorted(rows)}
    assert got == {
        "alice_correct": {"1.1": "5", "1.2": "3", "2.1": "6", "2.2": "3", "total": POSSIBLE, "possible": POSSIBLE},
        "bob_partial": {"1.1": "0", "1.2": "0", "2.1": "6", "2.2": "3", "total": "9", "possible": POSSIBLE},
        "dana_syntax_error": {"1.1": "0", "1.2": "0", "2.1": "0", "2.2": "0", "total": "0", "possible": POSSIBLE},
        "erin_infinite_loop": {"1.1": "0", "1.2": "0", "2.1": "0", "2.2": "0", "total": "0", "possible": POSSIBLE},
        "mallory_digs": {"1.1": "0", "1.2": "0", "2.1": "0", "2.2": "0", "total": "0", "possible": POSSIBLE},
    }
    found = json.loads(rows["mallory_digs"]["notes"].split("EVIDENCE ", 1)[1].split(" (")[0].split(";")[0])
    assert found == {  # a real client of the sandbox's own, the tools' functions as call-only handles, no way out
        "client": "anthropic.Anthropic",
        "tool_functions": ["Remote", "function"],
        "grader_frames": 0,
        "grader_modules": [],
        "keys": 0,
    }, found
    assert "SyntaxError" in rows["dana_syntax_error"]["notes"]
    assert "2.2: took longer than " in rows["erin_infinite_loop"]["notes"]  # N: 5 s or 20x the reference's time
    assert "an endless loop, or a very busy machine; run it again to check" in rows["erin_infinite_loop"]["notes"]


@pytest.mark.timeout(300)
def test_a_run_turn_that_runs_every_call_at_once_loses_the_conflict_test(tmp_path):
    """Exercise 7.2's booking waits ``BOOKING_DELAY_S`` before it writes, so a count run beside it reads the old
    number: the only way the graded tests see a schedule that ignores conflicts. Held here against that schedule."""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    module = tmp_path / "exercises" / "ex07_parallel.py"
    naive = "        wave.append(0)  # every call in the first wave: conflicts ignored\n"
    source = module.read_text()
    honest = "        wave.append(max((wave[j] + 1 for j in range(i) if conflict(calls[j], call)), default=0))\n"
    assert honest in source, "the reference run_turn changed: update this test's mutation"
    module.write_text(source.replace(honest, naive))
    report = tmp_path / "grade.json"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "exercises/tests/test_ex07_parallel.py"]
        + ["--grade-json", str(report)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    failed = {t["name"]: t["reason"] for t in json.loads(report.read_text())["tests"] if t["outcome"] != "passed"}
    assert list(failed) == ["test_a_call_after_a_conflicting_one_sees_its_effect_and_one_before_does_not"], failed
    assert "a stale read" in failed["test_a_call_after_a_conflicting_one_sees_its_effect_and_one_before_does_not"]
