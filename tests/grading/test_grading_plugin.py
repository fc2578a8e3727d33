"""The pytest plugin: points table and JSON report, for the instructor and the student edition."""

from __future__ import annotations

import json

import pytest

from agentlab.grading.plugin import INSTRUCTOR_EDITION, failure_line
from agentlab.grading.release import release_student

pytestmark = pytest.mark.timeout(600)


def table_line(stdout: str, exercise: str) -> str:
    table = stdout.split("= points =")[1]
    return next(line for line in table.splitlines() if line.split()[:1] == [exercise])


def failing_line(stdout: str, test: str) -> str:
    table = stdout.split("= points =")[1]
    return next(line.strip() for line in table.splitlines() if line.strip().startswith(test + ":"))


def test_instructor_edition_gets_full_marks(course, run_pytest):
    (course / "out").mkdir()
    result = run_pytest(course, "exercises", "--grade-json", "out/grade.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == INSTRUCTOR_EDITION  # a student holding the answers is told so first
    assert result.stdout.splitlines()[-1] == "Total: 8/8 points"
    assert [table_line(result.stdout, ex).split()[:2] for ex in ("1.1", "1.2", "2.1")] == [
        ["1.1", "2/2"],
        ["1.2", "3/3"],
        ["2.1", "3/3"],
    ]
    assert "test_not_graded" not in result.stdout.split("points ===")[1]  # ungraded tests stay out of the table
    report = json.loads((course / "out" / "grade.json").read_text())
    assert report["complete"] is True
    assert report["total"] == {"earned": 8, "possible": 8}
    assert report["exercises"] == {
        "1.1": {"earned": 2, "possible": 2},
        "1.2": {"earned": 3, "possible": 3},
        "2.1": {"earned": 3, "possible": 3},
    }
    assert [(t["name"], t["outcome"], t["earned"]) for t in report["tests"]] == [
        ("test_add", "passed", 2),
        ("test_count_words_simple", "passed", 1),
        ("test_count_words_extra_spaces", "passed", 2),
        ("test_stops_at_done", "passed", 3),
    ]


def test_student_edition_gets_zero_with_the_exercise_text(course, tmp_path, run_pytest):
    student = tmp_path / "student"
    release_student(course, student)
    result = run_pytest(student, "exercises", "--grade-json", "grade.json")
    assert result.returncode == 0, result.stdout  # grading worked; the score is no error
    assert "instructor edition" not in result.stdout
    assert result.stdout.splitlines()[-1] == "Total: 0/8 points"
    assert "Traceback" not in result.stdout and "FAILED" not in result.stdout
    expected = {
        "test_add": "NotImplementedError: Exercise 1.1: return the sum of a and b.",
        "test_count_words_simple": "NotImplementedError: Exercise 1.2: count the words in text, splitting on any whitespace.",
        "test_stops_at_done": 'NotImplementedError: Exercise 2.1: call each step until one returns "done"; return how many steps ran.',
    }
    for ex, module in (
        ("1.1", "exercises/ex01_basics.py, notebook 01"),
        ("1.2", "exercises/ex01_basics.py, notebook 01"),
        ("2.1", "exercises/ex02_loop.py, notebook 02"),
    ):
        assert table_line(result.stdout, ex).endswith(f"not started: exercise {ex} in {module}")
    report = json.loads((student / "grade.json").read_text())
    assert {ex: v["earned"] for ex, v in report["exercises"].items()} == {"1.1": 0, "1.2": 0, "2.1": 0}
    assert {t["name"]: t["reason"] for t in report["tests"] if t["name"] in expected} == expected


def test_failure_line_is_the_assertion_message(course, run_pytest):
    module = course / "exercises" / "ex01_basics.py"
    module.write_text(module.read_text().replace("text.split()", 'text.split(" ")'))
    result = run_pytest(course, "exercises")
    line = failing_line(result.stdout, "test_count_words_extra_spaces")
    assert line.endswith("count_words('  two   words ') should return 2, got 7")
    assert table_line(result.stdout, "1.2").split()[1:] == ["1/3", "1", "of", "2", "tests", "fail:"]
    assert result.stdout.splitlines()[-1] == "Total: 6/8 points"


def test_first_problem_in_full_with_a_traceback_that_stops_in_the_students_code(course, run_pytest):
    (course / "exercises" / "ex02_loop.py").write_text(
        'import json\n\ndef run_until_done(steps):\n    """Exercise 2.1: loop."""\n'
        "    return json.loads('{' + 'x' * 300)\n"
    )
    result = run_pytest(course, "exercises")
    assert result.returncode == 0
    first = result.stdout.split("= points =")[1].split("\n", 1)[1].split("\n\n")[0]
    assert first.splitlines()[0] == "first problem to fix: exercise 2.1, test_stops_at_done"
    assert "exercises/ex02_loop.py:5 in run_until_done" in first and "json/decoder.py" not in first
    assert "exercises/tests/test_ex02_loop.py:" in first and "Traceback" not in first
    assert "JSONDecodeError: Expecting property name enclosed in double quotes" in first


def test_grading_that_failed_is_a_non_zero_exit(course, run_pytest):
    (course / "exercises" / "tests" / "test_eager.py").write_text("import exercises.missing_module\n")
    assert run_pytest(course, "exercises", "--continue-on-collection-errors").returncode != 0


def test_timeouts_and_load_errors_are_readable(course, run_pytest):
    (course / "exercises" / "ex02_loop.py").write_text(
        'def run_until_done(steps):\n    """Exercise 2.1: loop."""\n    while True:\n        pass\n'
    )
    (course / "exercises" / "tests" / "test_eager.py").write_text(
        "import pytest\nfrom exercises.ex01_basics import add\nimport exercises.missing_module\n\n"
        "@pytest.mark.points(1)\ndef test_x():\n    assert add(1, 1) == 2\n"
    )
    result = run_pytest(
        course, "exercises", "--continue-on-collection-errors", "--grade-json", "g.json", "--grade-floor", "1"
    )
    assert failing_line(result.stdout, "test_stops_at_done").endswith(
        "took longer than 2 s: an endless loop, or a very busy machine; run it again to check"
    )
    live = result.stdout.split("= points =")[0]  # said while it ran, not only in the table at the end
    assert "exercise 2.1: test_stops_at_done is still running after 1 s; it is stopped at its 2 s limit" in live
    assert "exercise 2.1: test_stops_at_done stopped at its 2 s limit (an endless loop?); the other tests go on" in live
    assert (
        "could not load exercises/tests/test_eager.py: ModuleNotFoundError: No module named 'exercises.missing_module'"
    ) in result.stdout
    report = json.loads((course / "g.json").read_text())
    assert report["load_errors"][0]["nodeid"] == "exercises/tests/test_eager.py"
    assert report["total"] == {"earned": 5, "possible": 8}


def test_quiet_when_no_graded_test_ran(tmp_path, course, run_pytest):
    (course / "exercises" / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    result = run_pytest(course, "exercises/tests/test_plain.py", "--grade-json", "g.json")
    assert result.returncode == 0
    assert "points" not in result.stdout and "Total" not in result.stdout
    assert json.loads((course / "g.json").read_text())["total"] == {"earned": 0, "possible": 0}


def test_points_must_be_a_positive_number(course, run_pytest):
    (course / "exercises" / "tests" / "test_bad.py").write_text(
        "import pytest\n\n@pytest.mark.points('many')\ndef test_bad():\n    pass\n"
    )
    result = run_pytest(course, "exercises/tests/test_bad.py")
    assert result.returncode == 4
    assert "test_bad.py::test_bad: write @pytest.mark.points(n) with a positive number n" in result.stderr


def test_failure_line_formats():
    assert failure_line(AssertionError("expected 3 tool calls, got 2\nassert 2 == 3")) == "expected 3 tool calls, got 2"
    assert failure_line(KeyError("role")) == "KeyError: 'role'"
    assert failure_line(NotImplementedError()) == "NotImplementedError"
    assert len(failure_line(ValueError("x" * 1000))) <= 160


def test_an_api_error_reads_as_the_apis_own_message():
    class BadRequestError(Exception):
        status_code = 400
        body = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "messages.1: tool_use ids need a tool_result"},
        }

    err = BadRequestError("Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', ...")
    assert (
        failure_line(err) == "BadRequestError: 400 invalid_request_error: messages.1: tool_use ids need a tool_result"
    )


def test_the_test_files_get_jsonschema_without_its_iri_grammar(tmp_path, run_pytest):
    """A test file's `import jsonschema` would build rfc3987_syntax's 38 parsers (~1.1 s a process); the plugin
    imports jsonschema the lab's way first (agentlab.schema_check), before collection."""
    import importlib.util

    if importlib.util.find_spec("rfc3987_syntax") is None:
        pytest.skip("rfc3987_syntax is not installed here: nothing to leave out")
    (tmp_path / "test_uses_jsonschema.py").write_text(
        "import sys\nimport jsonschema\n\nGRAMMAR = 'rfc3987_syntax' in sys.modules\n\n\n"
        "def test_the_grammar_was_not_built():\n    assert not GRAMMAR\n    jsonschema.validate(1, {'type': 'integer'})\n"
    )
    result = run_pytest(tmp_path, "-p", "agentlab.grading.plugin", "test_uses_jsonschema.py")
    assert result.returncode == 0, result.stdout + result.stderr
