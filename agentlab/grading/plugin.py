"""pytest plugin: a points table after the run and, with ``--grade-json PATH``, a JSON grade report.

Load it from a conftest: ``pytest_plugins = ["agentlab.grading.plugin"]``. A test is graded when
it carries ``@pytest.mark.points(n)``; ``@pytest.mark.exercise("2.1")`` names the exercise it
grades; ``@pytest.mark.forbids("agentlab.loop.run_agent", why=...)`` fails it when the student's
code calls that function (see ``agentlab.grading.forbid``). Runs with no graded test print
nothing extra.

Time limits never cost a correct solution its points: before the first test the SDK, jsonschema
and the lab's modules are imported and a simulated client is built once (``warmup``); only the
test function is timed (fixtures are not); and a graded test's limit is at least ``FLOOR_S``, or
``FACTOR`` times what the reference solution took when ``--grade-limits`` gives those times
(an explicit ``@pytest.mark.timeout`` below that is raised to it). The failure then reads
"took longer than N s: an endless loop, or a very busy machine; run it again to check".
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from pathlib import Path

import pytest

from agentlab.grading.feedback import in_language
from agentlab.grading.forbid import forbidden
from agentlab.grading.report import GradedTest, GradeReport
from agentlab.grading.solutions import holds_solutions
from agentlab.grading.student_view import api_error_text, render, short_traceback
from agentlab.grading.warmup import before_collection, warm_up

FLOOR_S = 20.0
"""Least time a graded test's body is allowed, in seconds, on any machine."""
FACTOR = 20.0
"""A test may take this many times what the reference solution took (``--grade-limits``)."""
REASON_MAX = 160
"""Longest failure line shown, in characters."""
NOTICE_S = 10.0
"""A graded test still running after this long (or half its limit, if sooner) gets a line saying so."""
INSTRUCTOR_EDITION = (
    "instructor edition: exercises/ holds the reference solutions, so this grades them and full "
    "marks are expected. Students work in the student edition: `.venv/bin/agentlab release-student "
    "../agentlab-student` makes it (your instructor may hand it out instead)."
)
"""The first line ``make grade`` prints where the exercises still hold their solutions."""

REPORT_KEY = pytest.StashKey[GradeReport]()
"""Where the session's ``GradeReport`` is kept in ``config.stash`` (read by the worker too)."""
BY_ID_KEY = pytest.StashKey[dict]()
"""Where the graded tests' ``GradedTest`` records are kept in ``config.stash``, by node id."""
_JSON = pytest.StashKey["Path | None"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agentlab grading").addoption(
        "--grade-json",
        metavar="PATH",
        default=None,
        help="write per-test and per-exercise points as JSON to PATH",
    )
    parser.getgroup("agentlab grading").addoption(
        "--grade-limits",
        metavar="PATH",
        default=None,
        help="JSON {test node id: seconds the reference solution took}; limits become FACTOR times that",
    )
    parser.getgroup("agentlab grading").addoption(
        "--grade-floor",
        metavar="S",
        type=float,
        default=FLOOR_S,
        help=f"least seconds a graded test may run (default {FLOOR_S:g})",
    )


def time_limit(measured: float | None, explicit: float | None = None, floor: float = FLOOR_S) -> float:
    """Seconds a graded test may run: the floor, FACTOR x the reference's time, or an explicit larger limit."""
    return max(floor, FACTOR * (measured or 0), explicit or 0)


def timeout_message(seconds: float) -> str:
    return f"took longer than {seconds:g} s: an endless loop, or a very busy machine; run it again to check"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): points a graded exercise test is worth")
    config.addinivalue_line("markers", 'exercise(id): the exercise a graded test grades, e.g. "2.1"')
    config.addinivalue_line("markers", "forbids(*functions, why=...): fail if the student's code calls these")
    config.stash[REPORT_KEY] = GradeReport()
    config.stash[BY_ID_KEY] = {}
    path = config.getoption("--grade-json", None)
    config.stash[_JSON] = Path(path).resolve() if path else None
    if path and not Path(path).resolve().parent.is_dir():
        raise pytest.UsageError(f"--grade-json {path}: folder {Path(path).parent} does not exist; create it first")
    before_collection()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if REPORT_KEY not in config.stash:
        return
    limits = _limits(config)
    for item in session.items:
        marker = item.get_closest_marker("points")
        if marker is None:
            continue
        points = marker.args[0] if marker.args else None
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points <= 0:
            raise pytest.UsageError(
                f"{item.nodeid}: write @pytest.mark.points(n) with a positive number n, got {marker.args!r}"
            )
        explicit = item.get_closest_marker("timeout")
        seconds = (
            explicit.args[0] if explicit and explicit.args else (explicit.kwargs.get("timeout") if explicit else None)
        )
        set_limit(
            item,
            time_limit(
                limits.get(item.nodeid),
                seconds if isinstance(seconds, (int, float)) else None,
                floor=config.getoption("--grade-floor", FLOOR_S),
            ),
        )
        grade = GradedTest(item.nodeid, item.nodeid.split("::", 1)[-1], _exercise_of(item), points)
        config.stash[REPORT_KEY].tests.append(grade)
        config.stash[BY_ID_KEY][item.nodeid] = grade
    _save(config)
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if config.stash[BY_ID_KEY] and tr is not None:
        config.option.no_summary = (
            True  # no pytest tracebacks or FAILED lines: the points table says it (see student_view)
        )
    if config.stash[BY_ID_KEY] and not config.option.collectonly:
        warm_up()  # imports and first-use set-up happen here, outside every test's timer


def set_limit(item: pytest.Item, seconds: float) -> None:
    """Time only the test function (not fixtures) and stop it after ``seconds``."""
    item.add_marker(pytest.mark.timeout(seconds, func_only=True), append=False)


def _limits(config: pytest.Config) -> dict[str, float]:
    path = config.getoption("--grade-limits", None)
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise pytest.UsageError(
            f"--grade-limits {path}: cannot read it ({e}); pass a JSON file {{test node id: seconds}}"
        ) from e
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    tr = _terminal(session.config)
    if tr is not None and holds_solutions(session.config.rootpath / "exercises"):
        tr.write_line(INSTRUCTOR_EDITION, yellow=True)


def _terminal(config: pytest.Config):
    """The terminal to talk to a student on; ``None`` in a gradebook worker (the gradebook reports there)."""
    if config.getoption("--grade-worker", None) is not None:
        return None
    return config.pluginmanager.get_plugin("terminalreporter")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    markers = list(item.iter_markers("forbids"))
    grade = item.config.stash.get(BY_ID_KEY, {}).get(item.nodeid)
    tr = _terminal(item.config)
    limit = _limit(item)
    notice = None
    if grade is not None and tr is not None and limit:  # a long run says what runs and what will stop it
        after = min(NOTICE_S, limit / 2)
        notice = threading.Timer(
            after,
            _say,
            (
                tr,
                f"exercise {grade.exercise}: {grade.name} is still running after "
                f"{after:g} s; it is stopped at its {limit:g} s limit",
            ),
        )
        notice.daemon = True
        notice.start()
    try:
        if not markers:
            return (yield)
        names = [n for m in markers for n in m.args]
        exercise = _exercise_of(item)
        why = next(
            (m.kwargs["why"] for m in markers if "why" in m.kwargs),
            f"Exercise {exercise} asks you to write this yourself",
        )
        with forbidden(names, why):
            return (yield)
    finally:
        if notice is not None:
            notice.cancel()


def _limit(item: pytest.Item) -> float | None:
    marker = item.get_closest_marker("timeout")
    return marker.args[0] if marker and marker.args and isinstance(marker.args[0], (int, float)) else None


def _say(tr, line: str) -> None:
    """A line on the terminal now, on a line of its own, even while a test runs (its output is captured)."""
    capture = tr.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        if getattr(tr._tw, "width_of_current_line", 0):  # after the progress dots
            tr.write("\n")
        tr.write_line(line)
        tr.flush()


def _exercise_of(item: pytest.Item) -> str:
    marker = item.get_closest_marker("exercise")
    if marker is not None and marker.args:
        return str(marker.args[0])
    return item.path.stem.removeprefix("test_")  # fallback: the test file, e.g. "ex02_loop"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    report = yield
    if report.failed and REPORT_KEY in collector.config.stash:
        reason = _load_error_line(str(report.longrepr))
        collector.config.stash[REPORT_KEY].load_errors.append({"nodeid": report.nodeid, "reason": reason})
    return report


def _load_error_line(text: str) -> str:
    """The exception line of a collection error (pytest prefixes it with "E   ")."""
    marked = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ") and ln[1:].strip()]
    lines = marked or [ln for ln in text.splitlines() if ln.strip()] or ["could not be loaded"]
    return first_line(lines[-1])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    grade = item.config.stash.get(BY_ID_KEY, {}).get(item.nodeid)
    if grade is not None:
        _record(grade, report, call, item.config.rootpath)
        tr = _terminal(item.config)
        if report.when == "call" and grade.reason.startswith("took longer than") and tr is not None:
            _say(
                tr,
                f"exercise {grade.exercise}: {grade.name} stopped at its {_limit(item):g} s limit "
                "(an endless loop?); the other tests go on",
            )
        if report.when == "teardown":
            _save(item.config)
    return report


def _record(grade: GradedTest, report: pytest.TestReport, call: pytest.CallInfo, root: Path) -> None:
    if report.passed:
        if report.when == "call":
            grade.outcome, grade.earned, grade.reason = "passed", grade.points, ""
        return
    grade.earned = 0
    if grade.outcome in ("failed", "error", "skipped"):
        return  # keep the first reason
    if report.skipped:
        grade.outcome = "skipped"
        why = getattr(report, "wasxfail", None) or (report.longrepr[2] if isinstance(report.longrepr, tuple) else "")
        grade.reason = first_line(f"skipped: {why.removeprefix('Skipped: ')}")
        return
    grade.outcome = "failed" if report.when == "call" else "error"
    reason = failure_line(call.excinfo.value) if call.excinfo else first_line(str(report.longrepr))
    grade.reason = reason if report.when == "call" else f"error in {report.when}: {reason}"
    if call.excinfo is not None:
        try:
            grade.detail = short_traceback(call.excinfo, root)
        except Exception:  # noqa: BLE001 - the one-line reason is still there
            grade.detail = ""


def failure_line(exc: BaseException) -> str:
    """One readable line: the assertion message, or "ExceptionType: message"."""
    if isinstance(exc, AssertionError):
        return first_line(in_language(str(exc)) or "assertion failed")
    if isinstance(exc, pytest.fail.Exception):
        timeout = re.match(r"Timeout \(>(\S+?)s\) from pytest-timeout", exc.msg)
        if timeout:
            return timeout_message(float(timeout[1]))
        return first_line(in_language(exc.msg))
    message = first_line(api_error_text(exc) or str(exc))
    return first_line(f"{type(exc).__name__}: {message}") if message else type(exc).__name__


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, stripped and cut to ``REASON_MAX`` characters."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= REASON_MAX else line[: REASON_MAX - 3] + "..."


def _save(config: pytest.Config) -> None:
    path = config.stash.get(_JSON, None)
    if path is not None:
        config.stash[REPORT_KEY].write(path)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    report = session.config.stash.get(REPORT_KEY, None)
    if report is None:
        return
    if exitstatus == pytest.ExitCode.TESTS_FAILED and report.tests and not report.load_errors:
        session.exitstatus = pytest.ExitCode.OK  # grading worked: a low score is not a failure of `make grade`
    for t in report.tests:
        if t.outcome == "not run" and not t.reason:
            t.reason = "not run (the run stopped before this test)"
    report.complete = True
    _save(session.config)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    report = config.stash.get(REPORT_KEY, None)
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None or report is None or not (report.tests or report.load_errors) or config.option.collectonly:
        return
    if _terminal(config) is None:
        return
    tr.write_sep("=", "points")
    earned, possible = report.total()
    lines = render(report)
    for i, line in enumerate(lines):
        total = i == len(lines) - 1  # the total, in either language
        tr.write_line(line, bold=total, green=total and earned == possible)
