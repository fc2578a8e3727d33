"""The process that runs a student's code in the sandbox, and the sandbox server's handle on it.

``agentlab.grading.student_server`` forks it for a test (``StudentProcess.fork``). It drops to the
student's uid, caps memory, CPU, files and processes, maps ``exercises.exNN_*`` to the student's files,
seals the forbidden functions before any of the student's code runs (``agentlab.grading.forbid.seal``) and answers the trusted test's requests
(``agentlab.grading.channel``) until the test says ``end``. In a pid namespace of its own it is then kept
for the student's next test (the server hands it the next start line); elsewhere it exits after one.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import re
import resource
import select
import signal
import sys
import time

from agentlab.grading import channel, confine, forbid, lazy, reap

MEMORY_BYTES = 1 << 30
"""Address space the process running the student's code may add to the warm server's (over all the tests it serves)."""
MAX_PROCESSES = 64
"""Processes the student's uid may have at once."""
MAX_FILE_BYTES = 32 << 20
"""Largest file a test may write (the sandbox's /tmp is size-capped as well)."""
POLL_S = 0.02
"""How often the end of a test's process is checked where it cannot be waited for directly."""
MAX_TESTS_KEPT = 1000
"""Tests one kept process of the student's code serves at most (a course has about 90)."""
KEPT_CPU_S = 600
"""CPU seconds a kept process may use in all (its hard limit, above each test's own soft one)."""

_KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311}
"""The keyctl(2) system call's number by machine (glibc has no wrapper); elsewhere keyrings are left alone."""
KEYCTL_JOIN_SESSION, KEYCTL_CLEAR, USER_KEYRING, USER_SESSION_KEYRING = 1, 7, -4, -5


LIBC = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None
_KEYCTL_NR = _KEYCTL.get(os.uname().machine) if LIBC is not None else None


def keyctl(*args: int | None) -> int:
    return -1 if _KEYCTL_NR is None else LIBC.syscall(_KEYCTL_NR, *args)


class StudentProcess:
    """The server's side of the process that runs the student's code.

    In a pid namespace of its own (``--pidns``, bubblewrap) it is kept from test to test of one student, as
    their tests share one process under ``make grade``: forking the warm server afresh for every test cost
    about 20 ms of CPU a test (page faults of the copy, its exit: 1.7 of the sandbox's 2.5 core-s a student).
    Between two tests it tells us it is idle (one byte on ``idle``) and waits for the next test's start line
    on ``ctl``; only then do we read the channel again. Each test keeps its own deadline (we kill it, and the test is lost, when it runs over),
    its own guards and its own CPU limit. It dies with the student (``reset`` kills every process of the uid)."""

    def __init__(self, pid: int, ctl: int, idle: int, key: str) -> None:
        self.pid, self.ctl, self.idle, self.key = pid, ctl, idle, key
        try:  # woken the moment the child exits (Linux 5.3+); else polled every POLL_S
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    @classmethod
    def fork(cls, start: dict, uid: int | None, compiled: dict, key: str, reuse: bool) -> StudentProcess:
        ctl_read, ctl = os.pipe()
        idle, idle_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ctl)
            os.close(idle)
            _child(start, uid, compiled, ctl_read if reuse else None, idle_write if reuse else None)
        os.close(ctl_read)
        os.close(idle_write)
        return cls(pid, ctl, idle, key)

    def hand(self, line: bytes) -> bool:
        """Give the kept process the next test's start line; False if it cannot take it."""
        try:
            os.write(self.ctl, line if line.endswith(b"\n") else line + b"\n")
            return True
        except OSError:
            return False

    def wait(self, seconds: float) -> int | None:
        """Until the test is over: None if the process is idle again, else its exit status (killed at the deadline)."""
        deadline = time.monotonic() + seconds
        watch = [self.idle] + ([self.pidfd] if self.pidfd is not None else [])
        while (left := deadline - time.monotonic()) > 0:  # bounded by the deadline
            ready = select.select(watch, [], [], left if self.pidfd is not None else min(left, POLL_S))[0]
            if self.idle in ready:
                if os.read(self.idle, 1 << 12):
                    return None
                watch.remove(self.idle)  # it closed the pipe: only its exit is left to wait for
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # already collected: it ended, its status is gone
                done, status = self.pid, 0
            if done:
                self.close()
                return status
        return self.kill()

    def kill(self) -> int:
        """Kill it (and its process group) and wait for it; its exit status."""
        quietly(lambda: os.killpg(self.pid, signal.SIGKILL))
        quietly(lambda: os.kill(self.pid, signal.SIGKILL))
        try:
            status = os.waitpid(self.pid, 0)[1]
        except ChildProcessError:  # already collected
            status = signal.SIGKILL
        self.close()
        return status

    def close(self) -> None:
        for fd in (self.ctl, self.idle, self.pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


def drop(kept: StudentProcess | None) -> None:
    """End a kept process (between students, or before a fresh one)."""
    if kept is not None:
        kept.kill()
    return None


def kill_all_but(pid: int, seconds: float = 2.0) -> None:
    """In our pid namespace: kill every process but its init (1), this server and ``pid``, and wait (at most
    ``seconds``) until each has died: a kill only starts it, and the next test must not find one still there."""
    killed = [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in (1, os.getpid(), pid)]
    for other in killed:
        quietly(lambda: os.kill(other, signal.SIGKILL))
    deadline = time.monotonic() + seconds
    while killed and time.monotonic() < deadline:  # bounded by the deadline
        killed = [p for p in killed if reap.alive(p)]
        if killed:
            time.sleep(POLL_S / 10)


def collect_exited() -> None:
    """Reap every child that has already exited (the killed leftovers of a test), without waiting for others."""
    while True:  # bounded: each round collects one child that has exited; ends when none is left to collect
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break


def become(uid: int) -> None:
    """Drop to ``uid`` for good (no groups, real, effective and saved ids): every capability goes with root."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def quietly(how) -> None:
    try:
        how()
    except (ProcessLookupError, PermissionError):
        pass


def _child(start: dict, uid: int | None, compiled: dict, ctl: int | None = None, idle: int | None = None) -> None:
    """The student's process: set up once, then one test per start line (the first given, the rest read from
    ``ctl`` after saying idle on ``idle``; without them, one test only)."""
    code = 0
    try:
        os.setsid()
        if uid is not None:
            become(uid)
        keyctl(KEYCTL_JOIN_SESSION, None)  # a session keyring of this process's own, not the one the server inherited
        cpu, first_vm = int(float(start.get("limit", 60))) + 6, _vm_size()
        for limit, value in (
            (resource.RLIMIT_CPU, cpu),
            (resource.RLIMIT_FSIZE, MAX_FILE_BYTES),
            (resource.RLIMIT_NPROC, MAX_PROCESSES),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_MSGQUEUE, 0),  # no POSIX message queue: it would outlive the test
            (resource.RLIMIT_AS, first_vm + MEMORY_BYTES),
        ):
            _soft, hard = resource.getrlimit(limit)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            top = value + KEPT_CPU_S if limit == resource.RLIMIT_CPU and ctl is not None else value
            resource.setrlimit(limit, (value, top if hard == resource.RLIM_INFINITY else min(top, hard)))
        sys.meta_path.insert(
            0,
            lazy.ExerciseFinder(
                {str(k): str(v) for k, v in dict(start.get("modules", {})).items()}, package=True, compiled=compiled
            ),
        )
        channel_in, channel_out = os.dup(0), os.dup(1)  # the channel moves off 0/1: a print() is not a message
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        sys.stdin, sys.stdout, sys.stderr = (open(os.devnull, mode) for mode in ("r", "w", "w"))
        stdin, stdout = os.fdopen(channel_in, "rb"), os.fdopen(channel_out, "wb")
        starts = os.fdopen(ctl, "rb") if ctl is not None else None
        if start.get("forbids"):  # before any of the student's code: this process serves only tests with these forbids
            forbid.seal([str(n) for n in start["forbids"]], str(start.get("why", "")) or forbid.DEFAULT_WHY)
        for served in range(MAX_TESTS_KEPT):  # bounded; each round is one test
            if served:
                confine.allow_cpu(float(start.get("limit", 60)) + 6)
                collect_exited()  # what the server killed after the last test, no zombie holding a slot of RLIMIT_NPROC
            peer = channel.Peer(stdin, stdout, "s", module=_module)
            peer.send({"k": "started", "token": str(start.get("token", ""))})
            peer.serve()
            peer.ended = True  # a reference the student's code kept from this test fails clearly in the next
            if starts is None or served == MAX_TESTS_KEPT - 1 or _short(first_vm, float(start.get("limit", 60)) + 6):
                break  # it exits; the server forks a fresh one for the next test
            os.write(idle, b"i")
            line = starts.readline(1 << 20)
            if not line:
                break
            start = json.loads(line)
    except channel.ChannelClosed:
        pass
    except BaseException:  # noqa: BLE001 - a broken sandbox process just ends; the trusted test sees it hang up
        code = 1
    os._exit(code)


def _short(first_vm: int, seconds: float) -> bool:
    """Whether this kept process has used up too much of its budgets to take another test: half its memory
    allowance (stacks and arenas of threads it keeps add up), or CPU time to within two tests of its hard limit."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu_left = float("inf") if hard == resource.RLIM_INFINITY else hard - used.ru_utime - used.ru_stime
    return _vm_size() - first_vm > MEMORY_BYTES // 2 or cpu_left < 2 * seconds


def _module(module: str):
    """``exercises.<module>``: imported from the student's file on first use."""
    if not re.fullmatch(r"ex\d+_\w*", module):
        raise ModuleNotFoundError(f"No module named 'exercises.{module}'")
    return importlib.import_module(f"exercises.{module}")


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 << 30
