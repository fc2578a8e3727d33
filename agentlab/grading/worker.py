"""The grading worker: one warm pytest process that grades each student in confined forks of itself.

The gradebook starts it as ``python -m pytest exercises -p agentlab.grading.worker
--grade-worker FD`` in a staging folder holding the instructor's tests (never a solution and never
a submission's file). It collects those tests and warms up (SDK, jsonschema, the lab, a simulated
client) once, then, instead of running them, reads jobs from stdin, one JSON line per student::

    {"student": ..., "modules": {"ex02_loop": "/path/ex02_loop.py"}, "home": ..., "uid": 61001,
     "hide": [...], "limits": {nodeid: seconds}, "budget": seconds}

For each student it forks a *trusted* runner (``agentlab.grading.runner``) that runs the instructor's
tests one after another, each answered with one JSON line on a private pipe, and is replaced by a
fresh fork after a test that hung or broke it, or left a table the student's code changed (see
``agentlab.grading.runner``); the student's functions never run in it: ``lazy_import`` hands the test handles
(``agentlab.grading.channel``, data only) for functions living in the student's sandbox (``agentlab.grading.bwrap``;
one process of the student's kept from test to test in its pid namespace). As root with bubblewrap one warm sandbox goes from student
to student, emptied between them (``StudentSandbox.recycle``: every process of the uid killed, its IPC
objects removed, its files, /tmp and test folders emptied); otherwise each student gets a fresh one, the
next warming up ahead. The worker waits
at most the test's limit (plus ``GRACE_S``), kills the runner, and answers on descriptor FD with one
JSON line per student: each test's outcome, reason and seconds. The worker itself never imports a
student's module: an exercise module imported outside a test (at collection) raises ImportError.
"""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from agentlab.grading import bwrap, lazy, precompute, reap, runner
from agentlab.grading.plugin import BY_ID_KEY, REPORT_KEY, first_line, timeout_message

GRACE_S = runner.GRACE_S
"""Extra wall-clock time after a test's limit before the worker kills its runner (pytest-timeout goes first)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agentlab grading").addoption(
        "--grade-worker", metavar="FD", type=int, default=None, help="serve grading jobs; answer on FD"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--grade-worker") is not None:
        sys.meta_path.insert(0, lazy.ExerciseFinder({}))  # nothing of a student's is importable in the worker
        reap.become_subreaper()
        config.pluginmanager.register(_TestFolders(), "agentlab-grading-test-folders")


class _TestFolders:
    """Worker only: ``tmp_path`` is a folder the student's sandbox sees at the same path and may write to
    (a test that hands it to the student's function, then looks inside, sees what the function wrote).
    As root it lives on a capped ``nosymfollow`` mount (``agentlab.grading.mounts``): a symlink the
    student's code plants there is refused when this trusted side opens a path through it."""

    box: bwrap.StudentSandbox | None = None
    """The sandbox of the test being run (set in the trusted fork)."""

    @pytest.fixture
    def tmp_path(self, request: pytest.FixtureRequest) -> Path:
        return _TestFolders.box.test_folder(re.sub(r"[^\w]", "_", request.node.name))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    fd = session.config.getoption("--grade-worker")
    if fd is None:
        return None
    report = session.config.stash[REPORT_KEY]
    items = [i for i in session.items if i.nodeid in session.config.stash[BY_ID_KEY]]
    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    uid = os.environ.get("AGENTLAB_GRADE_UID", "")
    boxes = _Sandboxes(uid=int(uid) if uid.isdigit() else None)
    boxes.prepare()
    for failure in precompute.compute_all():  # once here, inherited by every fork (each test recomputes it otherwise)
        print(f"agentlab grading: a shared computation will run inside its tests instead: {failure}", file=sys.stderr)
    gc.freeze()  # the warm objects stay put: forks copy fewer pages
    out.write(
        json.dumps({"ready": True, "tests": [vars(t) for t in report.tests], "load_errors": report.load_errors}) + "\n"
    )
    for line in sys.stdin:
        if line.strip():
            job = json.loads(line)
            out.write(json.dumps({"student": job["student"], "tests": _grade(items, job, boxes)}) + "\n")
    boxes.close()
    return True


class _Sandboxes:
    """The worker's student sandboxes: a warm one handed from student to student where that is safe
    (``StudentSandbox.recycle``), else one per student with the next one started (and warming up) ahead."""

    def __init__(self, uid: int | None) -> None:
        self.uid, self.count = uid, 0
        self.base = Path.cwd().resolve().parent / "homes"  # the stage's homes folder (worker cwd = stage/repo)
        self.lab = Path(os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or ".").resolve()
        self.spare: bwrap.StudentSandbox | None = None

    def _new(self) -> bwrap.StudentSandbox:
        self.count += 1
        return bwrap.StudentSandbox(self.base / f"sandbox-{os.getpid()}-{self.count}", self.lab, self.uid)

    def take(self) -> bwrap.StudentSandbox:
        box, self.spare = (self.spare or self._new()), None
        return box

    def prepare(self, current: bwrap.StudentSandbox | None = None) -> None:
        """Start the next student's sandbox now, unless ``current`` will be handed on instead."""
        if self.spare is None and not (current is not None and current.reusable):
            self.spare = self._new()

    def give_back(self, box: bwrap.StudentSandbox) -> None:
        """A student is done with ``box``: every process of their uid dies; the box is recycled or closed.

        Never raises (it runs where the student's results are being returned): any error, or a process
        of the uid still alive after the kill, closes the box instead, and the next student gets a fresh one."""
        try:
            if self.uid is not None:
                reap.reap(self.uid, children=False)
            clean = self.spare is None and (self.uid is None or not reap.processes_of(self.uid)) and box.recycle()
        except Exception:  # noqa: BLE001 - a sandbox we cannot vouch for is closed, never handed on
            clean = False
        if clean:
            self.spare = box
            return
        try:
            box.close()
        except Exception:  # noqa: BLE001 - the student's results still go back
            pass

    def close(self) -> None:
        if self.spare is not None:
            self.spare.close()


def _grade(items: list[pytest.Item], job: dict, boxes: _Sandboxes) -> list[dict]:
    if job.get("only") is not None:  # a share of the tests (the instructor's run, split over the workers)
        wanted = set(job["only"])
        items = [item for item in items if item.nodeid in wanted]
    started = time.monotonic()  # the student's budget covers everything from here: sandbox starts too
    files = {Path(path).name: Path(path).read_bytes() for path in job["modules"].values()}
    box = boxes.take()
    modules = box.put(files)
    boxes.prepare(box)  # the next student's sandbox warms up while this one is graded (unless this one goes on)
    results, trusted = [], None
    try:
        for index, item in enumerate(items):
            left = job["budget"] - (time.monotonic() - started)
            own = float(job["limits"].get(item.nodeid, 60))
            limit = min(own, left)  # no test runs past the budget
            if left <= 0:
                results.append(
                    {
                        "nodeid": item.nodeid,
                        "outcome": "not run",
                        "seconds": 0,
                        "reason": f"not run: the {job['budget']:g} s time limit for the whole submission was used up",
                    }
                )
                continue
            if not box.ready():  # the student's code killed its server, or a test timed out: a fresh one
                trusted = _retire(trusted, box, boxes)
                box.close()
                box = boxes._new()
                modules = box.put(files)
                box.ready()
            if trusted is None:  # a fresh fork of this warm worker runs the tests from here on
                trusted = runner.Runner(items, box, modules, job, _TestFolders)
            result = _run_one(trusted, index, item, limit)
            if limit < own and result["reason"].startswith("took longer than"):  # the budget stopped it, not its limit
                result["reason"] = f"stopped: the {job['budget']:g} s time limit for the whole submission ran out"
            box.clear_scratch()  # its files are the test's own: the next test starts with the whole cap
            if not result.pop("reuse"):  # see agentlab.grading.runner: the next test gets a fresh process
                trusted = _retire(trusted, box, boxes)
            _reap(trusted, box, boxes)
            if result.pop("new_box"):  # it timed out, crashed the trusted side, or the sandbox is gone
                trusted = _retire(trusted, box, boxes)
                box.close()
                box = boxes._new()
                modules = box.put(files)
            results.append(result)
    finally:
        _retire(trusted, box, boxes)
        boxes.give_back(box)
    return results


def _reap(trusted: runner.Runner | None, box, boxes: _Sandboxes) -> None:
    """The subreaper inherits every descendant that outlived a test: all die here but the sandboxes and the runner."""
    keep = tuple(b.proc.pid for b in (box, boxes.spare) if b is not None)
    reap.reap(None, keep=keep + ((trusted.pid,) if trusted is not None else ()))


def _retire(trusted: runner.Runner | None, box, boxes: _Sandboxes) -> None:
    if trusted is not None:
        trusted.close()
        _reap(None, box, boxes)
    return None


def _run_one(trusted: runner.Runner, index: int, item: pytest.Item, limit: float) -> dict:
    nonce = os.urandom(16).hex()
    start = time.monotonic()
    line, timed_out = trusted.run(index, nonce, limit)
    seconds = time.monotonic() - start
    result = {"nodeid": item.nodeid, "seconds": round(seconds, 3), "new_box": True, "reuse": False}
    try:
        message = json.loads(line)
        if (
            not timed_out
            and message.get("nonce") == nonce
            and message.get("nodeid") == item.nodeid
            and message.get("outcome") in ("passed", "failed", "error", "skipped")
        ):
            return {
                **result,
                "outcome": str(message["outcome"]),
                "reason": first_line(str(message.get("reason", ""))),
                "new_box": message.get("lost") is True,
                "reuse": message.get("reuse") is True,
            }
    except (ValueError, TypeError, AttributeError):
        pass  # not the test's answer
    status = trusted.wait_status()  # it timed out (killed here) or ended without answering
    return {**result, "outcome": "failed", "reason": _died(status, timed_out, limit)}


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
