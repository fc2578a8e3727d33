"""One trusted runner per student (agentlab.grading.runner): kept from test to test while what the student's
code changes is the tests' own, replaced after a test whose changed list outlives it (a module-level table),
or that crashed or hung it; each test keeps its own limit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentlab.grading.pool import Pool
from agentlab.grading.sandbox import Stage

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading worker"),
]

EX03 = '''"""Exercises that get the grader's own values."""


def total(values):
    """Exercise 3.1: the sum of values."""
    ### BEGIN SOLUTION
    return sum(values)
    ### END SOLUTION


def describe(box):
    """Exercise 3.2: the box's label."""
    ### BEGIN SOLUTION
    return box.label()
    ### END SOLUTION
'''

TAMPER = """
def total(values):
    result = sum(values)
    values.clear()  # in place: the change comes back into the test's list
    return result


def describe(box):
    box.empty()  # a request on the trusted side's own object
    return box.label()
"""

TESTS = """import os
import signal
import time

import pytest

from agentlab.grading import lazy_import

ex03 = lazy_import("exercises.ex03_values")
TABLE = [1, 2, 3]
SEEN = []


class Box:
    def __init__(self):
        self.items = ["a"]

    def label(self):
        return "box"

    def empty(self):
        self.items.clear()


BOX = Box()


@pytest.mark.points(1)
def test_a_plain_call():
    SEEN.append("plain")
    assert ex03.total([2, 3]) == 5


@pytest.mark.points(1)
def test_the_runner_was_kept_after_a_plain_call():
    assert SEEN == ["plain"], f"a fresh process: {SEEN}"


@pytest.mark.points(1)
def test_the_student_gets_the_table():
    SEEN.append("table")
    assert ex03.total(TABLE) == 6


@pytest.mark.points(1)
def test_the_table_is_whole_in_the_next_test():
    assert TABLE == [1, 2, 3], f"changed by an earlier test: {TABLE}"
    SEEN.append("after table")


@pytest.mark.points(1)
def test_the_student_gets_the_box():
    SEEN.append("box")
    assert ex03.describe(BOX) == "box"


@pytest.mark.points(1)
def test_the_box_is_whole_in_the_next_test():
    assert BOX.items == ["a"], f"changed by an earlier test: {BOX.items}"
    SEEN.append("after box")


@pytest.mark.points(1)
def test_a_list_of_the_tests_own_changed_in_place_is_seen():
    values = [2, 3]
    assert ex03.total(values) == 5
    SEEN.append("own list")
    assert values == [2, 3], f"changed: {values}"


@pytest.mark.points(1)
def test_the_processes_that_ran_the_tests_so_far():
    assert SEEN == ["plain", "table", "after table", "box", "after box", "own list"], f"a fresh process: {SEEN}"


@pytest.mark.points(1)
def test_the_grader_crashes():
    os._exit(3)


@pytest.mark.points(1)
def test_a_crash_costs_only_its_own_test():
    assert SEEN == [], f"the crashed process went on: {SEEN}"
    assert ex03.total([1]) == 1
    SEEN.append("after crash")


@pytest.mark.points(1)
def test_the_grader_hangs_past_its_own_alarm():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(60)


@pytest.mark.points(1)
def test_a_hang_costs_only_its_own_test():
    assert SEEN == [], f"the hung process went on: {SEEN}"
    assert ex03.total([4]) == 4


@pytest.mark.points(1)
def test_the_trusted_side_runs_unprivileged():
    assert os.geteuid() != 0 and os.getuid() != 0, f"uid {os.getuid()}, euid {os.geteuid()}"


@pytest.mark.points(1)
def test_the_worker_loaded_pytest_timeout_and_no_other_installed_plugin():
    import sys

    assert "pytest_timeout" in sys.modules
    assert [m for m in ("_hypothesis_pytestplugin", "xdist", "anyio.pytest_plugin") if m in sys.modules] == []
"""


@pytest.fixture(scope="module")
def graded(course_template, tmp_path_factory) -> dict[str, dict[str, dict]]:
    course = Path(shutil.copytree(course_template, tmp_path_factory.mktemp("runner") / "course", symlinks=True))
    (course / "exercises" / "ex03_values.py").write_text(EX03, encoding="utf-8")
    (course / "exercises" / "tests" / "test_ex03_values.py").write_text(TESTS, encoding="utf-8")
    honest = {"ex03_values.py": EX03.encode()}
    out = {}
    with Stage(course) as stage, Pool(stage, 1, []) as pool:
        ours = [t.nodeid for t in pool.ready.tests if "ex03" in t.nodeid]
        limits = {nodeid: 3.0 for nodeid in ours}
        for student, files in (("honest", honest), ("tamper", {"ex03_values.py": TAMPER.encode()})):
            results = pool.grade(student, files, limits, 600)
            out[student] = {r["nodeid"].rpartition("::")[2]: r for r in results if r["nodeid"] in ours}
    return out


def test_the_runner_is_kept_while_what_the_student_changes_is_the_tests_own(graded):
    for student in ("honest", "tamper"):  # tamper's total() empties the list it gets: here the test's own
        got = graded[student]["test_the_runner_was_kept_after_a_plain_call"]
        assert got["outcome"] == "passed", (student, got)
    assert graded["honest"]["test_the_processes_that_ran_the_tests_so_far"]["outcome"] == "passed"
    got = graded["tamper"]["test_the_processes_that_ran_the_tests_so_far"]  # one fresh process, after TABLE
    assert got["outcome"] == "failed" and "['after table', 'box', 'after box', 'own list']" in got["reason"], got


def test_a_list_of_the_tests_own_changed_in_place_is_seen_as_under_make_grade(graded):
    assert graded["honest"]["test_a_list_of_the_tests_own_changed_in_place_is_seen"]["outcome"] == "passed"
    got = graded["tamper"]["test_a_list_of_the_tests_own_changed_in_place_is_seen"]
    assert got["outcome"] == "failed" and "changed: []" in got["reason"], got


def test_a_list_the_student_changed_in_place_is_whole_in_the_next_test(graded):
    assert graded["tamper"]["test_the_student_gets_the_table"]["outcome"] == "passed"
    got = graded["tamper"]["test_the_table_is_whole_in_the_next_test"]
    assert got["outcome"] == "passed", got


def test_an_object_a_test_hands_over_never_crosses_and_stays_whole(graded):
    got = graded["tamper"]["test_the_student_gets_the_box"]  # an object, neither data nor a function
    assert got["outcome"] == "failed" and "type Box cannot cross" in got["reason"], got
    got = graded["tamper"]["test_the_box_is_whole_in_the_next_test"]
    assert got["outcome"] == "passed", got


def test_the_trusted_test_process_runs_as_a_uid_of_its_own_when_grading_as_root(graded):
    from agentlab.grading import confine

    got = graded["honest"]["test_the_trusted_side_runs_unprivileged"]
    if not confine.is_root():
        pytest.skip("as an ordinary user the trusted side runs as that user: there is no other uid to take")
    assert got["outcome"] == "passed", got


def test_a_crash_of_the_trusted_side_fails_only_that_test(graded):
    for student in ("honest", "tamper"):
        crash = graded[student]["test_the_grader_crashes"]
        assert crash["outcome"] == "failed" and "exited with code 3" in crash["reason"], crash
        assert graded[student]["test_a_crash_costs_only_its_own_test"]["outcome"] == "passed", graded[student]


def test_a_hang_of_the_trusted_side_fails_only_that_test_within_its_limit(graded):
    for student in ("honest", "tamper"):
        hang = graded[student]["test_the_grader_hangs_past_its_own_alarm"]
        assert hang["outcome"] == "failed" and "took longer than 3 s" in hang["reason"], hang
        assert hang["seconds"] < 3 + 5 + 3, hang  # the limit, the grace, some slack for a busy machine
        assert graded[student]["test_a_hang_costs_only_its_own_test"]["outcome"] == "passed", graded[student]


def test_the_worker_loads_the_plugins_it_names_and_no_other_installed_one(graded):
    """Each installed plugin costs the worker start-up (hypothesis's imported hypothesis at the end: ~0.8 s)."""
    got = graded["honest"]["test_the_worker_loaded_pytest_timeout_and_no_other_installed_plugin"]
    assert got["outcome"] == "passed", got


def test_the_sandbox_server_compiles_a_module_once_and_again_when_it_changes(tmp_path):
    from agentlab.grading import student_server

    module, broken = tmp_path / "ex01_basics.py", tmp_path / "ex02_loop.py"
    module.write_text("def add(a, b):\n    return a + b\n")
    broken.write_text("def run(:\n")
    cache: dict = {}
    first = student_server._compile({"ex01_basics": str(module), "ex02_loop": str(broken)}, cache)
    assert list(first) == [str(module)]  # the broken one is left to the test's fork, which reports its error
    assert student_server._compile({"ex01_basics": str(module)}, cache)[str(module)] is first[str(module)]
    module.write_text("def add(a, b):\n    return a - b  # changed\n")
    os.utime(module, ns=(1, 1))
    again = student_server._compile({"ex01_basics": str(module)}, cache)[str(module)]
    scope: dict = {}
    exec(again, scope)
    assert scope["add"](5, 3) == 2
