"""One process runs a student's code from test to test (as root with bubblewrap), and each test still
starts clean of what the last one started.

Forking the warm sandbox server afresh for every test was half of the sandbox's cost, so in its pid
namespace the server keeps the student's process between their tests (``student_process.StudentProcess``), as
their tests share one process under ``make grade``. What must still hold, checked here on one gradebook run:
the student's own module state goes on (the same process), a process they started in one test is gone
by the next, each test gets its own guards (``forbids`` on, off, on again), and the next student gets a
process of their own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from graded_class import evidence, grade_class

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading sandbox"),
]


KEEPS = """import json, os, time
SEEN = []


def add(a, b):
    SEEN.append(os.getpid())
    if os.fork() == 0:  # left running after the test
        os.setsid()
        time.sleep(120)
        os._exit(0)
    return a + b


def count_words(text):
    if "agent" not in text:
        return len(text.split())
    others = [p for p in os.listdir("/proc")  # zombies too: one would hold a slot of the process limit
              if p.isdigit() and int(p) != os.getpid() and os.stat(f"/proc/{p}").st_uid == os.getuid()]
    raise ValueError("EVIDENCE " + json.dumps({"pid": os.getpid(), "seen": SEEN, "others": len(others)}))
"""

EX03 = '''"""Formatting points."""


def show(points):
    """Exercise 3.1: points as text, without the trailing .0 (3.0 -> "3")."""
    ### BEGIN SOLUTION
    return str(int(points)) if points == int(points) else str(points)
    ### END SOLUTION
'''

TEST_EX03 = """import pytest

from agentlab.grading import lazy_import

ex03 = lazy_import("exercises.ex03_points")
NOT_YOURS = "Exercise 3 asks you to format it yourself"


@pytest.mark.exercise("3.1")
@pytest.mark.points(1)
@pytest.mark.forbids("agentlab.grading.report.fmt_points", why=NOT_YOURS)
def test_guarded():
    assert ex03.show(2.0) == "2"


@pytest.mark.exercise("3.2")
@pytest.mark.points(1)
def test_free():
    assert ex03.show(2.0) == "2"


@pytest.mark.exercise("3.3")
@pytest.mark.points(1)
@pytest.mark.forbids("agentlab.grading.report.fmt_points", why=NOT_YOURS)
def test_guarded_again():
    assert ex03.show(2.0) == "2"
"""

CALLS_THE_LIBRARY = """from agentlab.grading.report import fmt_points


def show(points):
    return fmt_points(points)
"""

IS_THE_LIBRARY = """from agentlab.grading.report import fmt_points as show  # the test calls the reference itself
"""

POOL = """from concurrent.futures import ThreadPoolExecutor

from agentlab.grading.report import fmt_points

POOL = ThreadPoolExecutor(1)
POOL.submit(int).result()  # its thread starts now, at import, in an earlier test that guards nothing


def show(points):
    return POOL.submit(fmt_points, points).result()
"""

LATER = """import json, os


def run_until_done(steps):
    from exercises import ex01_basics  # the module test_add imported, if this is still that process

    raise ValueError("LATER " + json.dumps({"pid": os.getpid(), "seen": ex01_basics.SEEN}))
"""

IMPORTS_EX03 = "import exercises.ex03_points  # noqa: F401 (starts its thread pool now)\n"


def _kept() -> bool:
    from agentlab.grading import bwrap

    return bwrap.available() is None


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    tmp = tmp_path_factory.mktemp("kept")
    course = Path(shutil.copytree(course_template, tmp / "course"))
    (course / "exercises/ex03_points.py").write_text(EX03)
    (course / "exercises/tests/test_ex03_points.py").write_text(TEST_EX03)
    keeps = {"ex01_basics.py": KEEPS, "ex02_loop.py": LATER, "ex03_points.py": CALLS_THE_LIBRARY}
    honest_ex01 = (course / "exercises/ex01_basics.py").read_text()
    return grade_class(
        course,
        tmp,
        {
            "a_keeps": keeps,
            "b_next": keeps,  # the same files: only the reset parts them
            "c_alias": {"ex03_points.py": IS_THE_LIBRARY},
            "d_pool": {"ex01_basics.py": IMPORTS_EX03 + honest_ex01, "ex03_points.py": POOL},
        },
    )


def test_the_students_module_state_goes_on_from_test_to_test(graded):
    seen = evidence(graded, "a_keeps")
    if not _kept():
        assert seen["seen"] == [], seen  # a fresh process for every test
        pytest.skip("without bubblewrap's pid namespace each test gets a fresh process")
    assert seen["seen"] == [seen["pid"]], seen  # test_add ran in the process that runs this test


def test_a_process_started_in_one_test_is_gone_by_the_next(graded):
    assert evidence(graded, "a_keeps")["others"] == 0


@pytest.mark.parametrize("student", ["a_keeps", "c_alias", "d_pool"])
def test_each_test_has_its_own_guards_and_no_route_around_them(graded, student):
    row = graded[student]  # calls it / is it (called by the test) / calls it from a thread an earlier test started
    assert (row["3.1"], row["3.2"], row["3.3"]) == ("0", "1", "0"), row["notes"]
    assert "Exercise 3 asks you to format it yourself" in row["notes"]


def test_a_test_that_failed_does_not_end_the_process_for_the_next(graded):
    later, row = evidence(graded, "a_keeps", "LATER "), graded["a_keeps"]
    assert row["1.2"] == "2", row["notes"]  # extra_spaces passed after simple failed
    if _kept():
        assert later["seen"] == [later["pid"]], later  # ex02's test, after that failure, in the same process


def test_the_next_student_gets_a_process_of_their_own(graded):
    second = evidence(graded, "b_next")
    assert second["seen"] == ([second["pid"]] if _kept() else []), second  # only its own test_add: fresh state
    assert second["others"] == 0
