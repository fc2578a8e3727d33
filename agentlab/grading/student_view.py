"""What ``make grade`` prints: the first problem in full, then one line per exercise, then the total.

A student reads this, so it is short: an exercise still holding its ``raise NotImplementedError``
stub is one line ("not started: exercise 1.1 in exercises/ex01_round_trip.py, notebook 01"), a
started exercise lists each failing test with one line of reason, and only the first failing
exercise gets its whole message and a short traceback that stops at the student's own frame
(nothing of the SDK's or the lab's insides). The points table and the total are the last lines.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from agentlab.grading.feedback import in_language, student_language
from agentlab.grading.forbid import STUDENT_MODULE
from agentlab.grading.report import GradedTest, GradeReport, fmt_points

DETAIL_MAX = 4000
"""Longest full failure message kept for the first problem, in characters."""
_STUB = re.compile(r"NotImplementedError: Exercise (\S+?):")


def short_traceback(excinfo, root: Path) -> str:
    """``file:line in function`` and the source line for each frame from the test down to the student's last.

    Frames of libraries the student's code called (the SDK, the lab) are left out: the chain stops
    at the deepest frame of an exercise module or a test file, and the exception's full message follows.
    """
    entries = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        if "/exercises/" in path.replace("\\", "/") or STUDENT_MODULE.search(path):
            entries.append(entry)
    lines = []
    for entry in entries:
        try:
            where = Path(entry.path).resolve().relative_to(root)
        except ValueError:
            where = Path(entry.path).name
        lines.append(f"  {where}:{entry.lineno + 1} in {entry.name}")
        try:
            lines.append(f"      {str(entry.statement).strip().splitlines()[0]}")
        except (IndexError, Exception):  # noqa: BLE001 - no source to show
            pass
    message = full_message(excinfo.value)
    lines += [f"  {ln}" for ln in message.splitlines()[:40]]
    return "\n".join(lines)


def full_message(exc: BaseException) -> str:
    """``Type: message`` with the message whole (an API error's own text first), cut at ``DETAIL_MAX``."""
    text = in_language(api_error_text(exc) or str(exc))
    if isinstance(exc, AssertionError):
        text = text or "assertion failed"
    else:
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= DETAIL_MAX else text[: DETAIL_MAX - 3] + "..."


def api_error_text(exc: BaseException) -> str:
    """For an SDK ``APIStatusError``: "400 invalid_request_error: <the API's own message>"; else ""."""
    body, status = getattr(exc, "body", None), getattr(exc, "status_code", None)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return f"{status} {error.get('type', 'error')}: {error['message']}"
    return ""


def not_started(exercise: str, tests: list[GradedTest]) -> bool:
    """Every test of the exercise failed on the exercise's own ``NotImplementedError`` stub."""
    return bool(tests) and all(
        t.outcome != "passed" and (m := _STUB.match(t.reason)) and m[1] == exercise for t in tests
    )


def where(tests: list[GradedTest], say: dict[str, str] | None = None) -> str:
    """ "exercises/ex04_patterns.py, notebook 04b" from the test file's name and the notebook whose exercises
    cell lists the exercise (a notebook's second part, e.g. 04b, lists some of its number's exercises); without
    the notebooks beside the lab, the file's number."""
    stem = Path(tests[0].nodeid.split("::")[0]).stem.removeprefix("test_")
    number = re.match(r"ex(\d+)", stem)
    notebook = _listed_in().get(tests[0].exercise) or (number[1] if number else "")
    return f"exercises/{stem}.py" + ((say or SAY["en"])["notebook"].format(notebook) if notebook else "")


GRADED_LISTING = re.compile(r"^- \*\*(?:Exercise |练习 )?(\d+\.\d+)\*\*", re.M)
"""A line of a notebook's exercises cell that lists a graded exercise (``- **Exercise 4.2**``, ``- **4.2**``,
``- **练习 4.2**``): the one home of which notebook sets which exercise (also read by scripts/build_kit.py)."""


@functools.cache
def _listed_in() -> dict[str, str]:
    """Exercise id -> the English notebook (its number and letter) whose exercises cell lists it as graded."""
    listed: dict[str, str] = {}
    for path in sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for exercise in GRADED_LISTING.findall(markdown):
            listed.setdefault(exercise, path.name.split("_")[0])
    return listed


SAY = {
    "en": {
        "first": "first problem to fix: exercise {}, {}",
        "exercise": "exercise",
        "points": "points",
        "not started": "not started: exercise {} in {}",
        "notebook": ", notebook {}",
        "pass": "all tests pass",
        "fail": "{} of {} tests fail:",
        "load": "could not load {}: {}",
        "total": "Total: {}/{} points",
    },
    "zh-CN": {
        "first": "先修这个问题：练习 {}，{}",
        "exercise": "练习",
        "points": "得分",
        "not started": "还没开始：练习 {}，在 {}",
        "notebook": "，第 {} 本笔记本",
        "pass": "测试全部通过",
        "fail": "{1} 个测试中有 {0} 个失败：",
        "load": "无法加载 {}：{}",
        "total": "总分：{}/{} 分",
    },
}
"""The lines ``render`` prints around the tests' own messages, in each language (feedback.py has the messages)."""


def render(report: GradeReport, width: int = 240) -> list[str]:
    """The lines printed after the run: first problem, per-exercise table, total (last), in the student's
    language (``AGENTLAB_LANG``, else the working directory, as the notebooks pick theirs)."""
    lang, unknown = student_language()
    say = SAY[lang]
    lines = [f"{unknown}; the grading messages below are in English", ""] if unknown else []
    by_ex: dict[str, list[GradedTest]] = {}
    for t in report.tests:
        by_ex.setdefault(t.exercise, []).append(t)
    sums = report.exercises()
    first = next(
        (t for ex in sums for t in by_ex[ex] if t.outcome != "passed" and not not_started(ex, by_ex[ex])), None
    )
    if first is not None:
        lines.append(say["first"].format(first.exercise, first.name))
        lines += (first.detail or f"  {first.reason}").splitlines()
        lines.append("")
    col = max([len(ex) for ex in sums] + [8])
    lines.append(f"{say['exercise']:<{col}}  {say['points']}  ")
    for ex, (earned, possible) in sums.items():
        tests = by_ex[ex]
        score = f"{fmt_points(earned)}/{fmt_points(possible)}"
        if not_started(ex, tests):
            lines.append(_cut(f"{ex:<{col}}  {score:<6}  " + say["not started"].format(ex, where(tests, say)), width))
            continue
        failed = [t for t in tests if t.outcome != "passed"]
        lines.append(
            f"{ex:<{col}}  {score:<6}  " + (say["fail"].format(len(failed), len(tests)) if failed else say["pass"])
        )
        lines += [_cut(f"{'':<{col}}    {t.name}: {t.reason}", width) for t in failed]
    for err in report.load_errors:
        lines.append(_cut(say["load"].format(err["nodeid"], err["reason"]), width))
    earned, possible = report.total()
    lines.append(say["total"].format(fmt_points(earned), fmt_points(possible)))
    return lines


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 3] + "..."
