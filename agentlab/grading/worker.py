"""The grading worker: one warm pytest process that runs each graded test in a fresh, confined fork.

The gradebook starts it as ``python -m pytest exercises -p agentlab.grading.worker
--grade-worker FD`` in a staging folder holding the instructor's tests (never a solution and never
a submission's file). It collects those tests and warms up (SDK, jsonschema, the lab, a simulated
client) once, then, instead of running them, reads jobs from stdin, one JSON line per student::

    {"student": ..., "modules": {"ex02_loop": "/path/ex02_loop.py"}, "home": ..., "uid": 61001,
     "hide": [...], "limits": {nodeid: seconds}, "budget": seconds}

For every graded test it forks a *trusted* child that runs the instructor's test and writes one
JSON line on a private pipe; the student's functions never run in it: ``lazy_import`` hands the
test proxies (``agentlab.grading.rpc``) for functions living in the student's sandbox
(``agentlab.grading.bwrap``, one per student, the next one warming up ahead). The worker waits at
most the test's limit (plus ``GRACE_S``), kills the child, and answers on descriptor FD with one
JSON line per student: each test's outcome, reason and seconds. The worker itself never imports a
student's module: an exercise module imported outside a test (at collection) raises ImportError.
"""

from __future__ import annotations

import gc
import json
import os
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from agentlab.grading import bwrap, confine, lazy, mounts, precompute, reap, rpc
from agentlab.grading.plugin import BY_ID_KEY, REPORT_KEY, first_line, set_limit, timeout_message

GRACE_S = 5.0
"""Extra wall-clock time after a test's limit before the worker kills it (pytest-timeout goes first)."""
_READ_MAX = 1 << 16


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agentlab grading").addoption(
        "--grade-worker", metavar="FD", type=int, default=None, help="serve grading jobs; answer on FD")


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
    out.write(json.dumps({"ready": True, "tests": [vars(t) for t in report.tests],
                          "load_errors": report.load_errors}) + "\n")
    for line in sys.stdin:
        if line.strip():
            job = json.loads(line)
            out.write(json.dumps({"student": job["student"], "tests": _grade(items, job, boxes)}) + "\n")
    boxes.close()
    return True


class _Sandboxes:
    """The worker's student sandboxes: one per student, the next one started (and warming up) ahead."""

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

    def prepare(self) -> None:
        if self.spare is None:
            self.spare = self._new()

    def close(self) -> None:
        if self.spare is not None:
            self.spare.close()


def _grade(items: list[pytest.Item], job: dict, boxes: _Sandboxes) -> list[dict]:
    files = {Path(path).name: Path(path).read_bytes() for path in job["modules"].values()}
    box = boxes.take()
    modules = box.put(files)
    boxes.prepare()  # the next student's sandbox warms up while this one is graded
    results, spent = [], 0.0
    try:
        for item in items:
            limit = float(job["limits"].get(item.nodeid, 60))
            if spent >= job["budget"]:
                results.append({"nodeid": item.nodeid, "outcome": "not run", "seconds": 0,
                                "reason": f"not run: the {job['budget']:g} s time limit for the whole submission was used up"})
                continue
            if not box.ready():  # the student's code killed its server, or a test timed out: a fresh one
                box.close()
                box = boxes._new()
                modules = box.put(files)
                box.ready()
            result = _run_one(item, job, limit, box, modules, boxes)  # the whole limit, so its message is the same every run
            box.clear_scratch()  # its files are the test's own: the next test starts with the whole cap
            if result.get("timed_out"):  # or the sandbox is gone
                box.close()
                box = boxes._new()
                modules = box.put(files)
            spent += result["seconds"]
            results.append({k: v for k, v in result.items() if k != "timed_out"})
    finally:
        box.close()
    return results


def _run_one(item: pytest.Item, job: dict, limit: float, box, modules: dict, boxes: _Sandboxes) -> dict:
    nonce = os.urandom(16).hex()
    read_end, write_end = os.pipe()
    channel = (box.proc.stdout.fileno(), box.proc.stdin.fileno())
    jail = confine.Jail(home=job["home"], cpu_seconds=int(limit + GRACE_S) + 1, uid=None,
                        keep_fds=(write_end, *channel))
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(item, jail, limit, nonce, write_end, box, modules)
    os.close(write_end)
    data, timed_out = _read_until(read_end, start + limit + GRACE_S)
    os.close(read_end)
    if timed_out:
        _kill(pid)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - start
    keep = tuple(b.proc.pid for b in (box, boxes.spare) if b is not None)
    reap.reap(None, keep=keep)  # the subreaper inherits every descendant that outlived the test: all die here
    result = {"nodeid": item.nodeid, "seconds": round(seconds, 3), "timed_out": timed_out}
    answers = []
    for line in data.splitlines():
        try:
            message = json.loads(line)
            if message.get("nonce") == nonce and message.get("nodeid") == item.nodeid:
                answers.append((str(message["outcome"]), first_line(str(message.get("reason", "")))))
                result["timed_out"] = result["timed_out"] or message.get("lost") is True  # a new sandbox next
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # not the test's answer: whatever else was written to the pipe is ignored
    if len(set(answers)) == 1 and answers[0][0] in ("passed", "failed", "error", "skipped"):
        return {**result, "outcome": answers[0][0], "reason": answers[0][1]}
    if len(set(answers)) > 1:
        return {**result, "outcome": "failed", "reason": "the test process gave more than one answer"}
    return {**result, "outcome": "failed", "reason": _died(status, timed_out, limit)}


def _child(item: pytest.Item, jail: confine.Jail, limit: float, nonce: str, fd: int, box, modules: dict) -> None:
    """The trusted test process: runs the instructor's test; the student's functions run in ``box``."""
    try:
        confine.enter(jail)
        peer = rpc.Peer(os.fdopen(box.proc.stdout.fileno(), "rb", closefd=False),
                        os.fdopen(box.proc.stdin.fileno(), "wb", closefd=False), "t")
        token = peer.token = os.urandom(16).hex()
        markers = list(item.iter_markers("forbids"))
        why = next((m.kwargs["why"] for m in markers if "why" in m.kwargs), "")
        peer.wfile.write((json.dumps({"op": "start", "token": token, "modules": modules, "limit": limit,
                                      "forbids": [n for m in markers for n in m.args], "why": why}) + "\n").encode())
        peer.wfile.flush()
        while True:  # skip what an earlier test's sandboxed process left in the pipe; bounded: the worker kills this
            # process after the test's limit plus GRACE_S, and receive() raises ChannelClosed once the sandbox hangs up
            message = peer.receive()
            if message.get("k") == "started" and message.get("token") == token:
                break
            if message.get("k") == "gone" and message.get("token") == token:  # it died before the test began
                raise RuntimeError(f"the sandbox process for the student's code {message.get('why', 'ended')} "
                                   "before the test could start")
        lazy.remote = peer
        _TestFolders.box = box
        set_limit(item, limit)
        from _pytest.runner import runtestprotocol

        reports = runtestprotocol(item, nextitem=None, log=False)
        outcome, reason = _verdict(reports)
        if outcome != "passed":  # the plugin's reading of the failure is the readable one
            grade = item.config.stash[BY_ID_KEY].get(item.nodeid)
            reason = grade.reason if grade is not None and grade.reason else reason
        if "No space left on device" in reason and mounts.enabled():
            reason = first_line(f"{reason} (the sandbox's /tmp and the test's folders hold at most {mounts.MAX_FILES} "
                                f"files each, {bwrap.TMP_BYTES >> 20} MB and {mounts.SCRATCH_BYTES >> 20} MB)")
        peer.end()
        answer = {"nonce": nonce, "nodeid": item.nodeid, "outcome": outcome, "reason": reason, "lost": peer.closed}
    except BaseException as e:  # noqa: BLE001 - whatever happens, answer once
        answer = {"nonce": nonce, "nodeid": item.nodeid, "outcome": "error",
                  "reason": f"the grader could not run this test: {type(e).__name__}: {e}"}
    try:
        os.write(fd, json.dumps(answer).encode()[: _READ_MAX - 1] + b"\n")
    finally:
        os._exit(0)


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

