"""The trusted test process of one student: a fork of the grading worker that runs their graded tests in turn.

Forking the warm worker afresh for every test cost about 40 ms a test (the fork, copying its pages,
tearing them down at exit) and was half of the grader's own overhead. The worker
(``agentlab.grading.worker``) now forks one ``Runner`` per student and sends it one test at a time
(``{"i": index, "nonce", "limit"}`` on a pipe); the runner answers one JSON line per test. As root it runs as
an unprivileged uid of its own (``pool.TRUSTED_OFFSET``), in mount and network namespaces where the
instructor's repository, the submissions and the output folder are covered (``confine.enter``). The
student's functions never run here: as before they run in the student's sandbox
(``agentlab.grading.bwrap``), in one process of the student's (``student_process.StudentProcess``), reached through
``agentlab.grading.channel``, where only data crosses.

Why one runner serves a student's tests, and when the next test gets a fresh one. What the student's code
sends back is data (rebuilt by value) or handles on functions in the sandbox; it cannot run code here. It
reaches this process's state only through what a test hands it for that test: a function (a tool, a spy, a
clock) or a client, whose effects are the test's own, and a list or dict, whose in-place changes come
back into the test's object, as under ``make grade``. Where such a changed list or dict outlives its test
(``channel.Peer.outliving``: a module-level table, a ``@shared`` value, a fixture's), the runner is
thrown away and the next test gets a fresh fork of the worker, so no later test sees it changed. It is
also replaced after a test that ended in an error, crashed it or hung it past its limit, whose sandbox
did not say in time that it had stopped, or with a thread of its own still waiting on the channel (a tool
the executor gave up on). Fixtures of every scope are set up and torn down around each test
(``nextitem=None``); each test keeps its own time limit (the worker's watchdog, pytest-timeout inside,
and a CPU-time limit raised test by test).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

from agentlab.grading import bwrap, channel, confine, lazy, mounts, reap
from agentlab.grading.plugin import BY_ID_KEY, first_line, set_limit

GRACE_S = 5.0
"""Extra wall-clock time after a test's limit before the worker kills the runner (pytest-timeout goes first)."""
READ_MAX = 1 << 16
"""Longest answer line read from a runner, in bytes."""


class Runner:
    """Worker side: one forked trusted test process over ``box``, running ``items`` by index."""

    def __init__(self, items: list, box, modules: dict, job: dict, test_folders) -> None:
        cmd_read, self._cmd = os.pipe()
        self._answers, answer_write = os.pipe()
        channel = (box.proc.stdout.fileno(), box.proc.stdin.fileno())
        jail = confine.Jail(  # as root: an unprivileged uid of its own, in mount and network namespaces of its own
            home=job.get("trusted_home") or job["home"],
            cpu_seconds=int(job["budget"] + GRACE_S * len(items)) + 1,
            uid=job.get("trusted_uid"),
            hide=list(job.get("hide") or []),
            reveal=list(job.get("reveal") or []),
            keep_fds=(cmd_read, answer_write, *channel),
        )
        self.pid = os.fork()
        if self.pid == 0:  # the runner: never returns
            os.close(self._cmd)
            os.close(self._answers)
            _serve(items, jail, cmd_read, answer_write, box, modules, test_folders, capped=mounts.enabled())
        os.close(cmd_read)
        os.close(answer_write)
        self._buffer = b""
        self.status: int | None = None

    def run(self, index: int, nonce: str, limit: float) -> tuple[bytes, bool]:
        """Ask for test ``index``; (its answer line, or what came before the runner ended, and whether time ran out)."""
        try:
            os.write(self._cmd, json.dumps({"i": index, "nonce": nonce, "limit": limit}).encode() + b"\n")
        except OSError:
            return b"", False  # the runner is gone; its exit status says why
        deadline = time.monotonic() + limit + GRACE_S
        while b"\n" not in self._buffer and len(self._buffer) < READ_MAX:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._answers], [], [], left)[0]:
                return self._take(), True
            chunk = os.read(self._answers, READ_MAX)
            if not chunk:
                return self._take(), False
            self._buffer += chunk
        return self._take(), False

    def _take(self) -> bytes:
        line, sep, rest = self._buffer.partition(b"\n")
        self._buffer = rest
        return line + sep

    def wait_status(self) -> int:
        """Kill the runner (if it still runs) and return its exit status."""
        if self.status is None:
            kill(self.pid)
            self.status = os.waitpid(self.pid, 0)[1]
        return self.status

    def close(self) -> int:
        status = self.wait_status()
        for fd in (self._cmd, self._answers):
            try:
                os.close(fd)
            except OSError:
                pass
        return status


def kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass


def _serve(
    items: list, jail: confine.Jail, cmd_fd: int, out_fd: int, box, modules: dict, test_folders, capped: bool
) -> None:
    """The runner: confined once, then one test per line read, until the worker closes the pipe or kills it."""
    try:
        confine.enter(jail)
        commands = os.fdopen(cmd_fd, "rb")
        rfile = os.fdopen(box.proc.stdout.fileno(), "rb", closefd=False)
        wfile = os.fdopen(box.proc.stdin.fileno(), "wb", closefd=False)
        test_folders.box = box
        for line in commands:
            ask = json.loads(line)
            item, nonce, limit = items[int(ask["i"])], str(ask["nonce"]), float(ask["limit"])
            confine.allow_cpu(limit + GRACE_S)  # this test's share; the hard limit was set once
            answer = {"nonce": nonce, "nodeid": item.nodeid, **_run_test(item, limit, rfile, wfile, modules, capped)}
            reap.reap(None)  # a process the test started and left running dies with the test
            os.write(out_fd, json.dumps(answer).encode()[: READ_MAX - 1] + b"\n")
            if not answer["reuse"]:
                break
    finally:
        os._exit(0)


def _run_test(item, limit: float, rfile, wfile, modules: dict, capped: bool = False) -> dict:
    """One graded test: outcome, reason, whether the sandbox was lost, and whether this runner may run another."""
    peer = channel.Peer(rfile, wfile, "t")
    try:
        token = peer.token = os.urandom(16).hex()
        markers = list(item.iter_markers("forbids"))
        why = next((m.kwargs["why"] for m in markers if "why" in m.kwargs), "")
        peer.send(
            {
                "op": "start",
                "token": token,
                "modules": modules,
                "limit": limit,
                "forbids": [n for m in markers for n in m.args],
                "why": why,
            }
        )
        while True:  # skip what an earlier test's sandboxed process left in the pipe; bounded: the worker kills this
            # process after the test's limit plus GRACE_S, and receive() raises ChannelClosed once the sandbox hangs up
            message = peer.receive()
            if message.get("k") == "started" and message.get("token") == token:
                break
            if message.get("k") == "gone" and message.get("token") == token:  # it died before the test began
                raise RuntimeError(
                    f"the sandbox process for the student's code {message.get('why', 'ended')} "
                    "before the test could start"
                )
        lazy.remote = peer
        set_limit(item, limit)
        from _pytest.runner import runtestprotocol

        reports = runtestprotocol(item, nextitem=None, log=False)
        outcome, reason = verdict(reports)
        if outcome != "passed":  # the plugin's reading of the failure is the readable one
            grade = item.config.stash[BY_ID_KEY].get(item.nodeid)
            reason = grade.reason if grade is not None and grade.reason else reason
        if "No space left on device" in reason and capped:  # the worker's folders are capped mounts
            reason = first_line(
                f"{reason} (the sandbox's /tmp and the test's folders hold at most {mounts.MAX_FILES} "
                f"files each, {bwrap.TMP_BYTES >> 20} MB and {mounts.SCRATCH_BYTES >> 20} MB)"
            )
        acknowledged = peer.end()
        for name in ("last_type", "last_value", "last_traceback", "last_exc"):  # a failure's frames hold its locals
            setattr(sys, name, None)
        clean = outcome in ("passed", "failed", "skipped") and acknowledged and not peer.closed and not peer.busy()
        clean = clean and not peer.outliving()  # a module-level table the student's code changed: a fresh process
        # not acknowledged: what the sandbox read ahead may hold the next test's start, so it is not used again
        return {"outcome": outcome, "reason": reason, "lost": peer.closed or not acknowledged, "reuse": clean}
    except BaseException as e:  # noqa: BLE001 - whatever happens, answer once
        return {
            "outcome": "error",
            "reason": f"the grader could not run this test: {type(e).__name__}: {e}",
            "lost": peer.closed,
            "reuse": False,
        }
    finally:
        lazy.remote = None


def verdict(reports: list) -> tuple[str, str]:
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
