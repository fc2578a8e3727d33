"""CLI wiring: release-student and gradebook sub-commands, and their bad-input messages."""

from __future__ import annotations

import argparse

import pytest

from agentlab.grading.cli import add_commands

pytestmark = pytest.mark.timeout(600)


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="agentlab")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def test_release_student_command(course, tmp_path, capsys):
    assert run("release-student", str(tmp_path / "student"), "--src", str(course)) == 0
    out = capsys.readouterr().out
    assert f"wrote the student edition to {tmp_path / 'student'}" in out
    assert "exercises/ex01_basics.py: 2 solution region(s) stubbed" in out
    assert "NotImplementedError" in (tmp_path / "student/exercises/ex02_loop.py").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["release-student", "{tmp}/out", "--src", "{tmp}/nowhere"],
            "error: --src {tmp}/nowhere: no such folder; pass the instructor repo",
        ),
        (
            ["release-student", "{course}/exercises", "--src", "{course}"],
            "error: OUT_DIR {course}/exercises: already exists and is not an empty folder; pick a new folder",
        ),
        (
            ["release-student", "{course}/student", "--src", "{course}"],
            "error: OUT_DIR {course}/student: is inside --src {course}",
        ),
        (
            ["gradebook", "{tmp}/nowhere", "--out", "{tmp}/g.csv", "--instructor", "{course}"],
            "error: SUBMISSIONS_DIR {tmp}/nowhere: no such folder",
        ),
        (
            ["gradebook", "{tmp}", "--out", "{tmp}/g.csv", "--instructor", "{tmp}"],
            "error: --instructor {tmp}: no exercises/tests/ or agentlab/ there",
        ),
        (
            ["gradebook", "{tmp}", "--out", "{tmp}/missing/g.csv", "--instructor", "{course}"],
            "error: --out {tmp}/missing/g.csv: cannot write a CSV there",
        ),
    ],
)
def test_bad_input_names_the_argument_and_the_fix(course, tmp_path, capsys, argv, message):
    fill = {"tmp": str(tmp_path), "course": str(course)}
    assert run(*(a.format(**fill) for a in argv)) == 2
    assert message.format(**fill) in capsys.readouterr().err


def test_bad_marker_is_reported_without_writing(course, tmp_path, capsys):
    (course / "exercises" / "ex03_bad.py").write_text('def f():\n    """Exercise 3.1: x."""\n    ### BEGIN SOLUTION\n')
    assert run("release-student", str(tmp_path / "student"), "--src", str(course)) == 2
    err = capsys.readouterr().err
    assert "exercises/ex03_bad.py:3: '### BEGIN SOLUTION' has no matching '### END SOLUTION'" in err
    assert not (tmp_path / "student").exists()


def test_timeout_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        run("gradebook", "subs", "--out", "g.csv", "--timeout", "soon")
    assert (
        "argument --timeout: 'soon' is not a number of seconds above 0; use e.g. --timeout 60"
        in capsys.readouterr().err
    )


def test_jobs_must_be_a_whole_number(capsys):
    with pytest.raises(SystemExit):
        run("gradebook", "subs", "--out", "g.csv", "-j", "0")
    assert "argument -j/--jobs: '0' is not a whole number above 0; use e.g. -j 2" in capsys.readouterr().err
