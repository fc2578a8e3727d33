"""Start N grading workers (``agentlab.grading.worker``) and hand them one student at a time.

Each worker is a warm pytest process (the instructor's tests collected, the SDK imported) started
with a scrubbed environment in the staging folder. As root, worker ``i`` runs its students' tests
as uid ``student_uids()[i]`` and kills every process of that uid after each test, so a student's
leftovers can never meet the next student's. ``Pool.grade`` blocks until that student is done.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from agentlab.grading import confine, reap
from agentlab.grading.report import GradedTest, GradeReport
from agentlab.grading.sandbox import Stage

UID_BASE = 100_000
"""Students' uids start here when grading as root: ``UID_BASE + 64 * gradebook pid + worker``, so two
gradebooks running at once never share a uid (and never kill each other's processes)."""
MAX_WORKERS = 64
"""Most workers one gradebook starts."""


ANSWER_GRACE_S = 60.0
"""Seconds past a student's own deadline (``budget``, which the worker enforces itself, sandbox start included)
that ``Pool.grade`` waits for the worker's answer. A worker silent that long (stopped, wedged) is killed and the
class stops with a message: the rows already graded stay in the CSV, and ``--resume`` grades the rest."""
STARTUP_S = 900.0
"""Seconds a worker may take to collect the instructor's tests and warm up before the gradebook gives up on it."""

TRUSTED_OFFSET = 1 << 30
"""The trusted test process of worker ``i`` runs as ``student_uids()[i] + TRUSTED_OFFSET``: unprivileged, and
never the uid of any student's code."""


def student_uids(pid: int | None = None) -> range:
    """The uids a gradebook with this pid (default: ours) gives its workers."""
    base = UID_BASE + MAX_WORKERS * (os.getpid() if pid is None else pid)
    return range(base, base + MAX_WORKERS)


@dataclass
class Ready:
    """What a worker collected: the instructor's graded tests and the test files that failed to load."""

    tests: list[GradedTest]
    """Graded tests, in collection order."""
    load_errors: list[dict]
    """``{"nodeid", "reason"}`` per test file that could not be loaded."""


class Pool:
    """``jobs`` warm workers over one ``Stage``; use as a context manager."""

    def __init__(self, stage: Stage, jobs: int, hide: list[str]) -> None:
        self.stage, self.hide = stage, hide
        self.reveal = [p for p in stage.python_paths() if confine.barred(p)]
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._workers: list[_Worker] = []
        try:
            for i in range(max(1, min(jobs, MAX_WORKERS))):
                self._workers.append(_Worker(stage, i))
            ready = [w.ready() for w in self._workers]  # they start in parallel; wait for all
        except BaseException:
            for w in self._workers:  # one failed to start: none is left running, and none is waited for
                w.kill()
                w.close()
            raise
        self.ready = ready[0]
        for w in self._workers:
            self._idle.put(w)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        for w in self._workers:  # all are told first, so they wind down side by side
            w.finish()
        for w in self._workers:
            w.close()

    @property
    def size(self) -> int:
        """How many workers there are."""
        return len(self._workers)

    def grade(
        self,
        student: str,
        files: dict[str, bytes],
        limits: dict[str, float],
        budget: float,
        only: list[str] | None = None,
    ) -> list[dict]:
        """Run every graded test (or the test ids in ``only``) on ``files`` (module file name -> bytes);
        per-test results in order."""
        worker = self._idle.get()
        try:
            home, modules = self.stage.home_for(files, worker.uid)
            trusted_home = self.stage.home_for({}, worker.trusted_uid)[0]  # the trusted test process's HOME
            try:
                return worker.run(
                    {
                        "student": student,
                        "modules": modules,
                        "home": str(home),
                        "uid": worker.uid,
                        "trusted_uid": worker.trusted_uid,
                        "trusted_home": str(trusted_home),
                        "hide": self.hide,
                        "reveal": self.reveal,
                        "limits": limits,
                        "budget": budget,
                        "only": only,
                    }
                )
            finally:
                reap.reap(worker.uid, children=False) if worker.uid is not None else None
                _remove(home)
                _remove(trusted_home)
        finally:
            self._idle.put(worker)


class _Worker:
    def __init__(self, stage: Stage, index: int) -> None:
        self.uid = student_uids()[index] if confine.is_root() else None
        self.trusted_uid = None if self.uid is None else self.uid + TRUSTED_OFFSET
        read_end, write_end = os.pipe()
        self.log_path = log = stage.root / f"worker-{index}.log"
        self.log = os.fdopen(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")  # closed in close()
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "exercises",
            "-q",
            "-s",
            "--no-header",
            "-p",
            "no:cacheprovider",
            "-p",
            "pytest_timeout",
            "-p",
            "agentlab.grading.plugin",
            "-p",
            "agentlab.grading.worker",
            f"--grade-worker={write_end}",
            "--continue-on-collection-errors",
            f"--rootdir={stage.repo}",
        ]
        env = stage.environment()
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # just the plugins named above (each installed one costs start-up)
        if self.uid is not None:
            env["AGENTLAB_GRADE_UID"] = str(self.uid)  # the uid the worker's student sandboxes run as
        self.proc = subprocess.Popen(
            cmd,
            cwd=stage.repo,
            env=env,
            stdin=subprocess.PIPE,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=(write_end,),
            text=True,
            start_new_session=True,
        )
        os.close(write_end)
        self.answers, self._buffer = read_end, b""
        self.lock = threading.Lock()
        self.dead = False
        """True once killed (``kill``): a job for it fails at once."""

    def _line(self, seconds: float) -> str:
        """The worker's next line ("" once it has closed its end); TimeoutError if it says none within ``seconds``."""
        deadline = time.monotonic() + seconds
        poller = select.poll()
        poller.register(self.answers, select.POLLIN)
        while b"\n" not in self._buffer:  # bounded by the deadline
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not poller.poll(min(left, 3600.0) * 1000):  # at most an hour a wait: any --timeout fits
                continue
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                return ""
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _said(self) -> str:
        """The end of what the worker printed (its log), for an error that says why it stopped."""
        return self.log_path.read_text(errors="replace")[-3000:]

    def kill(self) -> None:
        """Kill the worker and its process group; as root, every process of its two uids too (its trusted test
        process and the student's sandbox run in sessions of their own). It takes no job after this."""
        self.dead = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for uid in (self.trusted_uid, self.uid):
            if uid is not None:
                reap.reap(uid, children=False)

    def ready(self) -> Ready:
        try:
            line = self._line(STARTUP_S)
        except TimeoutError:
            self.kill()
            raise RuntimeError(
                f"the grading worker did not finish starting (collecting the instructor's tests) within {STARTUP_S:g} s;"
                " it was stopped. It said:\n" + self._said()
            ) from None
        if not line:
            self.proc.wait()
            raise RuntimeError(
                "the grading worker stopped before collecting the instructor's tests; it said:\n" + self._said()
            )
        data = json.loads(line)
        return Ready([GradedTest(**t) for t in data["tests"]], data["load_errors"])

    def run(self, job: dict) -> list[dict]:
        if self.dead:
            raise RuntimeError(f"not grading {job['student']}: the class was stopped when its grading worker was")
        with self.lock:
            try:
                self.proc.stdin.write(json.dumps(job) + "\n")
                self.proc.stdin.flush()
                line = self._line(float(job["budget"]) + ANSWER_GRACE_S)
            except TimeoutError:  # before OSError, whose subclass it is
                self.kill()
                waited = f"within {job['budget']:g} s (the limit) + {ANSWER_GRACE_S:g} s; it was stopped, and the class"
                if job.get("only") is not None:  # a share of the instructor's own solutions: no student graded yet
                    raise RuntimeError(
                        f"the grading worker did not answer for the instructor's solutions {waited} with it, "
                        "before any student was graded"
                    ) from None
                raise RuntimeError(
                    f"the grading worker did not answer for {job['student']} {waited} with it. The students graded "
                    "so far are in the CSV: run the gradebook again with --resume to grade the rest"
                ) from None
            except OSError:
                line = ""
        if not line:
            raise RuntimeError(f"the grading worker died while grading {job['student']}; it said:\n" + self._said())
        answer = json.loads(line)
        if answer.get("student") != job["student"]:
            raise RuntimeError(f"the grading worker answered for {answer.get('student')!r}, not {job['student']!r}")
        return answer["tests"]

    def finish(self) -> None:
        """No more jobs: the worker closes its sandboxes and exits (``close`` waits for that)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        self.finish()
        try:
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        try:
            os.close(self.answers)
        except OSError:
            pass
        self.log.close()


def _remove(home: Path) -> None:
    import shutil

    shutil.rmtree(home, ignore_errors=True)


def report_of(ready: Ready, results: list[dict]) -> GradeReport:
    """A GradeReport with the instructor's tests and points, and the outcomes a run produced."""
    by_id = {r["nodeid"]: r for r in results}
    tests = []
    for t in ready.tests:
        got = by_id.get(t.nodeid, {})
        passed = got.get("outcome") == "passed"
        tests.append(
            GradedTest(
                t.nodeid,
                t.name,
                t.exercise,
                t.points,
                t.points if passed else 0,
                got.get("outcome", "not run"),
                "" if passed else got.get("reason", "not run"),
            )
        )
    return GradeReport(tests, list(ready.load_errors), complete=True)
