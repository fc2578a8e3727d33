"""The grading worker: one warm pytest process that runs each graded test in a fresh, confined fork.

The gradebook starts it as ``python -m pytest exercises -p agentlab.grading.worker
--grade-worker FD`` in a staging folder holding the instructor's tests (never a solution and never
a submission's file). It collects those tests and warms up (SDK, jsonschema, the lab, a simulated
client) once, then, instead of running them, reads jobs from stdin, one JSON line per student::

    {"student": ..., "modules": {"ex02_loop": "/path/ex02_loop.py"}, "home": ..., "uid": 61001,
     "hide": [...], "limits": {nodeid: seconds}, "budget": seconds}

For every graded test it forks a child that confines itself (``agentlab.grading.confine``), maps
``exercises.exNN_*`` to the student's files, runs that one test and writes one JSON line on a
private pipe. The worker waits at most the test's limit (plus ``GRACE_S``), kills the child and
everything it started, and answers on descriptor FD with one JSON line per student: each test's
outcome, reason and seconds. The worker itself never imports a student's module: an exercise
module imported outside a test (at collection) raises ImportError here.
"""

from __future__ import annotations

import gc
import importlib.abc
import importlib.util
import json
import os
import re
import select
import signal
import sys
import time

import pytest

from agentlab.grading import confine, reap
from agentlab.grading.plugin import BY_ID_KEY, REPORT_KEY, first_line, set_limit, timeout_message

GRACE_S = 5.0
"""Extra wall-clock time after a test's limit before the worker kills it (pytest-timeout goes first)."""
_EXERCISE = re.compile(r"exercises\.(ex\d+_\w*)")
_READ_MAX = 1 << 16


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agentlab grading").addoption(
        "--grade-worker", metavar="FD", type=int, default=None, help="serve grading jobs; answer on FD")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--grade-worker") is not None:
        sys.meta_path.insert(0, _Exercises({}))  # nothing of a student's is importable in the worker
        reap.become_subreaper()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    fd = session.config.getoption("--grade-worker")
    if fd is None:
        return None
    report = session.config.stash[REPORT_KEY]
    items = [i for i in session.items if i.nodeid in session.config.stash[BY_ID_KEY]]
    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    gc.freeze()  # the warm objects stay put: forks copy fewer pages
    out.write(json.dumps({"ready": True, "tests": [vars(t) for t in report.tests],
                          "load_errors": report.load_errors}) + "\n")
    for line in sys.stdin:
        if line.strip():
            job = json.loads(line)
            out.write(json.dumps({"student": job["student"], "tests": _grade(items, job)}) + "\n")
    return True


def _grade(items: list[pytest.Item], job: dict) -> list[dict]:
    results, spent = [], 0.0
    for item in items:
        limit = float(job["limits"].get(item.nodeid, 60))
        if spent >= job["budget"]:
            results.append({"nodeid": item.nodeid, "outcome": "not run", "seconds": 0,
                            "reason": f"not run: the {job['budget']:g} s time limit for the whole submission was used up"})
            continue
        result = _run_one(item, job, limit)  # the whole limit, so its message is the same every run
        spent += result["seconds"]
        results.append(result)
    return results


def _run_one(item: pytest.Item, job: dict, limit: float) -> dict:
    nonce = os.urandom(16).hex()
    read_end, write_end = os.pipe()
    jail = confine.Jail(home=job["home"], cpu_seconds=int(limit + GRACE_S) + 1, uid=job.get("uid"),
                        hide=job.get("hide", []), reveal=job.get("reveal", []), keep_fds=(write_end,))
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(item, job, jail, limit, nonce, write_end)
    os.close(write_end)
    data, timed_out = _read_until(read_end, start + limit + GRACE_S)
    os.close(read_end)
    if timed_out:
        _kill(pid)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - start
    reap.reap(None)  # the subreaper inherits every descendant that outlived the test: all die here
    result = {"nodeid": item.nodeid, "seconds": round(seconds, 3)}
    answers = []
    for line in data.splitlines():
        try:
            message = json.loads(line)
            if message.get("nonce") == nonce and message.get("nodeid") == item.nodeid:
                answers.append((str(message["outcome"]), first_line(str(message.get("reason", "")))))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # not the test's answer: whatever else was written to the pipe is ignored
    if len(set(answers)) == 1 and answers[0][0] in ("passed", "failed", "error", "skipped"):
        return {**result, "outcome": answers[0][0], "reason": answers[0][1]}
    if len(set(answers)) > 1:
        return {**result, "outcome": "failed", "reason": "the test process gave more than one answer"}
    return {**result, "outcome": "failed", "reason": _died(status, timed_out, limit)}


def _child(item: pytest.Item, job: dict, jail: confine.Jail, limit: float, nonce: str, fd: int) -> None:
    # Everything the verdict needs is bound here, before the student's code can run and patch modules.
    write, dumps, exit_ = os.write, json.dumps, os._exit
    try:
        confine.enter(jail)
        sys.meta_path[:] = [m for m in sys.meta_path if not isinstance(m, _Exercises)]
        sys.meta_path.insert(0, _Exercises(job["modules"]))
        set_limit(item, limit)
        from _pytest.runner import runtestprotocol

        reports = runtestprotocol(item, nextitem=None, log=False)
        outcome, reason = _verdict(reports)
        if outcome != "passed":  # the plugin's reading of the failure is the readable one
            grade = item.config.stash[BY_ID_KEY].get(item.nodeid)
            reason = grade.reason if grade is not None and grade.reason else reason
        answer = {"nonce": nonce, "nodeid": item.nodeid, "outcome": outcome, "reason": reason}
    except BaseException as e:  # noqa: BLE001 - whatever happens, answer once
        answer = {"nonce": nonce, "nodeid": item.nodeid, "outcome": "error",
                  "reason": f"the grader could not run this test: {type(e).__name__}: {e}"}
    try:
        write(fd, dumps(answer).encode()[: _READ_MAX - 1] + b"\n")
    finally:
        exit_(0)


def _verdict(reports: list) -> tuple[str, str]:
    """passed only if setup, call and teardown all passed; else the first failure's outcome and text."""
    for rep in reports:
        if rep.skipped:
            return "skipped", "skipped"
        if rep.failed:
            text = str(rep.longrepr)
            lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
            return ("failed" if rep.when == "call" else "error"), first_line(lines[0] if lines else text)
    calls = [rep for rep in reports if rep.when == "call"]
    return ("passed", "") if calls and calls[0].passed else ("error", "the test did not run")


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    data = b""
    while len(data) < _READ_MAX:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return data, True
        chunk = os.read(fd, _READ_MAX)
        if not chunk:
            return data, False
        data += chunk
    return data, False


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass


def _died(status: int, timed_out: bool, limit: float) -> str:
    if timed_out:
        return timeout_message(round(limit))
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "stopped: used more CPU time than its limit (an endless loop?)"
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hint = " (out of memory?)" if sig == signal.SIGKILL else ""
        return f"the test process was killed by {name}{hint} before it reported"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return f"the test process exited with code {code} before it reported (os._exit or a crash)"


class _Exercises(importlib.abc.MetaPathFinder):
    """``exercises.exNN_*`` comes from the student's files (in a test's child) or nowhere (worker)."""

    def __init__(self, modules: dict[str, str]) -> None:
        self.modules = modules

    def find_spec(self, fullname, path=None, target=None):
        match = _EXERCISE.fullmatch(fullname)
        if not match:
            return None
        file = self.modules.get(match[1])
        if file is None:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return importlib.util.spec_from_file_location(fullname, file)
