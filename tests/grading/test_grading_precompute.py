"""@shared: the grader's own expensive work is done once per worker, before it forks, never with student code."""

from __future__ import annotations

import csv

import pytest

from agentlab.grading import precompute, shared
from agentlab.grading.gradebook import gradebook

TEST_SHARED = """import os

import pytest

from agentlab.grading import lazy_import, shared

ex01 = lazy_import("exercises.ex01_basics")


@shared
def where_computed():
    return os.getpid()


@shared
def the_students_sum():
    return ex01.add(20, 22)  # a submission's code: never run in the worker, so each student's own


@pytest.mark.exercise("3.1")
@pytest.mark.points(1)
def test_the_value_was_computed_by_the_worker_before_this_fork():
    assert where_computed() == os.getppid(), "computed in this test's process, not inherited from the worker"


@pytest.mark.exercise("3.2")
@pytest.mark.points(1)
def test_a_value_from_student_code_is_the_students_own():
    assert the_students_sum() == 42, f"add(20, 22) gave {the_students_sum()!r}"
"""


def test_a_shared_value_is_computed_once_per_process():
    calls = []

    @shared
    def table():
        calls.append(1)
        return {"rows": 3}

    assert table() == {"rows": 3} and table() is table() and calls == [1]
    assert precompute.compute_all() == [] and calls == [1]  # already there: not computed again


def test_a_computation_that_fails_up_front_runs_again_where_it_is_used():
    tries = []

    @shared
    def flaky():
        tries.append(1)
        if len(tries) == 1:
            raise RuntimeError("no student module here")
        return "second try"

    failed = precompute.compute_all()
    assert any("flaky: RuntimeError: no student module here" in f for f in failed), failed
    assert flaky() == "second try" and len(tries) == 2


@pytest.mark.timeout(600)
def test_the_gradebook_computes_shared_values_once_per_worker_and_never_from_student_code(course, tmp_path):
    (course / "exercises" / "tests" / "test_ex03_shared.py").write_text(TEST_SHARED, encoding="utf-8")
    klass, solution = tmp_path / "class", (course / "exercises" / "ex01_basics.py").read_text(encoding="utf-8")
    for name, ex01 in (
        ("alice", solution),
        ("bob", solution.replace("secret_total = a + b", "secret_total = a + b + 1")),
    ):
        (klass / name).mkdir(parents=True)
        (klass / name / "ex01_basics.py").write_text(ex01, encoding="utf-8")
    out, messages = tmp_path / "gradebook.csv", []
    gradebook(klass, course, out, per_student_timeout=120, test_floor=8, jobs=1, progress=messages.append)
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    assert messages[0] == "instructor solutions: 10/10", messages
    assert (rows["alice"]["3.1"], rows["alice"]["3.2"]) == ("1", "1"), rows["alice"]["notes"]
    assert (rows["bob"]["3.1"], rows["bob"]["3.2"]) == ("1", "0"), rows["bob"]["notes"]
    assert "3.2: add(20, 22) gave 43" in rows["bob"]["notes"]
