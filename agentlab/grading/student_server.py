"""The process that runs a student's functions: inside the sandbox, never in the grader's process.

Started by the worker (``agentlab.grading.worker``) through ``agentlab.grading.bwrap`` as
``python -m agentlab.grading.student_server [--uid N] [--pidns]`` with stdin/stdout as its only
channel. It imports the lab once, says ``{"k": "ready"}``, then for each graded test reads one
``{"op": "start", "token", "modules", "forbids", "why", "limit"}`` line and forks a child that
drops to the student's uid (``--uid``), caps memory, CPU, files and processes, maps
``exercises.exNN_*`` to the student's files, guards the forbidden functions
(``agentlab.grading.forbid``) and answers the trusted test's requests (``agentlab.grading.rpc``)
until it says ``end``. The child is killed after ``limit`` seconds; with ``--pidns`` (a pid
namespace of its own) everything it started dies with it. The student's module files are compiled
once by the server (``_compile``: compiling runs none of their code) instead of in every test's child.

Between two students the worker may keep this server (``StudentSandbox.recycle``): it kills every
process of the student's uid, empties the folders the student could write, and sends
``{"op": "reset", "token"}``; the server then removes what the uid left in the sandbox's own IPC
namespace (System V shared memory, semaphores and message queues; POSIX message queues cannot be
made at all, ``RLIMIT_MSGQUEUE`` is 0) and clears the uid's kernel keyrings (each test's process also
gets a session keyring of its own), forgets the compiled modules, and answers
``{"k": "reset", "token", "left": n}`` (n: IPC objects of the uid still there; 0 or the sandbox is
not reused). The server itself never runs a student's code, so nothing of one student reaches the next.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import hashlib
import importlib
import json
import os
import re
import resource
import select
import signal
import sys
import time

from agentlab.grading import forbid, lazy, rpc

MEMORY_BYTES = 1 << 30
"""Address space a test's sandboxed process may add to the warm server's."""
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
MAX_COMPILE_BYTES = 1 << 20
"""Largest module file compiled ahead by the server (a submission's module is at most this size anyway)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="student_server")
    parser.add_argument("--uid", type=int, default=None)
    parser.add_argument("--pidns", action="store_true")
    args = parser.parse_args(argv)
    from agentlab.grading.warmup import warm_up

    warm_up()
    gc.freeze()  # the warm objects stay put: each test's fork copies fewer pages
    stdin, stdout = os.fdopen(0, "rb", buffering=0), os.fdopen(1, "wb", buffering=0)
    stdout.write(b'{"k": "ready"}\n')
    compiled: dict[str, object] = {}
    kept: _Process | None = None  # the student's process, kept from test to test (in a pid namespace only)
    while True:  # one round per test; ends when the worker closes our stdin
        line = stdin.readline(1 << 20)  # unbuffered: nothing meant for a test's process is read here
        if not line:
            _drop(kept)
            return 0
        try:
            start = json.loads(line)
        except ValueError:
            continue  # stale bytes of an earlier test
        if isinstance(start, dict) and start.get("op") == "reset":
            kept = _drop(kept)
            compiled.clear()
            left = _reset(args.uid)
            stdout.write(json.dumps({"k": "reset", "token": str(start.get("token", "")), "left": left}).encode() + b"\n")
            continue
        if not isinstance(start, dict) or start.get("op") != "start":
            continue
        code = _compile(start.get("modules"), compiled)
        key = json.dumps([start.get("modules"), sorted(compiled.get(p, ("",))[0] for p in code)], default=str)
        if kept is not None and (kept.key != key or not kept.hand(line)):
            kept = _drop(kept)  # other files (or it cannot take the line): a fresh process
        if kept is None:
            kept = _Process.fork(start, args.uid, code, key, reuse=args.pidns)
        status = kept.wait(float(start.get("limit", 60)) + 5)
        if status is None:  # it served the test and waits for the next one; whatever else it started dies
            _kill_all_but(kept.pid)
            continue
        if args.pidns:  # everything else in our pid namespace is the test's: none of it outlives the test
            _kill(lambda: os.kill(-1, signal.SIGKILL))
        _collect_exited()
        kept = None
        gone = {"k": "gone", "token": str(start.get("token", "")), "why": _why(status)}
        stdout.write(json.dumps(gone).encode() + b"\n")


class _Process:
    """The server's side of the process that runs the student's code.

    In a pid namespace of its own (``--pidns``, bubblewrap) it is kept from test to test of one student, as
    their tests share one process under ``make grade``: forking the warm server afresh for every test cost
    about 25 ms of CPU a test (page faults of the copy, its exit). Between two tests it tells us it is idle
    (one byte on ``idle``) and waits for the next test's start line on ``ctl``; only then do we read the
    channel again. Each test keeps its own deadline (we kill it, and the test is lost, when it runs over),
    its own guards and its own CPU limit. It dies with the student (``reset`` kills every process of the uid)."""

    def __init__(self, pid: int, ctl: int, idle: int, key: str) -> None:
        self.pid, self.ctl, self.idle, self.key = pid, ctl, idle, key
        try:  # woken the moment the child exits (Linux 5.3+); else polled every POLL_S
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    @classmethod
    def fork(cls, start: dict, uid: int | None, compiled: dict, key: str, reuse: bool) -> _Process:
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
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.close()
                return status
        _kill(lambda: os.killpg(self.pid, signal.SIGKILL))
        _kill(lambda: os.kill(self.pid, signal.SIGKILL))
        status = os.waitpid(self.pid, 0)[1]
        self.close()
        return status

    def close(self) -> None:
        for fd in (self.ctl, self.idle, self.pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _drop(kept: _Process | None) -> None:
    """End a kept process (between students, or before a fresh one)."""
    if kept is not None:
        _kill(lambda: os.killpg(kept.pid, signal.SIGKILL))
        _kill(lambda: os.kill(kept.pid, signal.SIGKILL))
        try:
            os.waitpid(kept.pid, 0)
        except ChildProcessError:
            pass
        kept.close()
    return None


def _kill_all_but(pid: int) -> None:
    """In our pid namespace: kill every process but its init (1), this server and ``pid``."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, os.getpid(), pid):
            _kill(lambda: os.kill(int(entry), signal.SIGKILL))
    _collect_exited()


def _why(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return f"was killed by {name}" + (" (out of memory, or its time was up?)" if sig == signal.SIGKILL else "")
    return f"exited with code {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status}"


def _collect_exited() -> None:
    """Reap every child that has already exited (the killed leftovers of a test), without waiting for others."""
    while True:  # bounded: each round collects one child that has exited; ends when none is left to collect
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break


def _become(uid: int) -> None:
    """Drop to ``uid`` for good (no groups, real, effective and saved ids): every capability goes with root."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _kill(how) -> None:
    try:
        how()
    except (ProcessLookupError, PermissionError):
        pass


def _compile(modules, compiled: dict) -> dict:
    """The student's module files compiled once, here, for every test's fork (compiling runs none of their code).

    ``compiled`` maps path -> (sha256 of the bytes, code): a file whose bytes changed is compiled again (by
    content, not by time and size: the next student's file at the same path may match those). One that does
    not compile is left to the test's fork, which compiles it itself and fails that test with the real error.
    Returns path -> code for the files compiled."""
    for path in (dict(modules).values() if isinstance(modules, dict) else ()):
        path = str(path)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_COMPILE_BYTES + 1)
            digest = hashlib.sha256(data).hexdigest()
            if len(data) <= MAX_COMPILE_BYTES and compiled.get(path, (None,))[0] != digest:
                compiled[path] = (digest, None)
                compiled[path] = (digest, compile(data, path, "exec", dont_inherit=True))
            elif len(data) > MAX_COMPILE_BYTES:
                compiled.pop(path, None)
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            compiled.pop(path, None)
            continue
    return {path: code for path, (_digest, code) in compiled.items() if code is not None}


_IPC_RMID = 0
_IPC_TABLES = (("shm", 7), ("sem", 4), ("msg", 7))
"""/proc/sysvipc tables and the column of the owner's uid in each (the creator's is two further on)."""


_KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311}
"""The keyctl(2) system call's number by machine (glibc has no wrapper); elsewhere keyrings are left alone."""
_KEYCTL_JOIN_SESSION, _KEYCTL_CLEAR, _USER_KEYRING, _USER_SESSION_KEYRING = 1, 7, -4, -5


_LIBC = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None
_KEYCTL_NR = _KEYCTL.get(os.uname().machine) if _LIBC is not None else None


def _keyctl(*args: int | None) -> int:
    return -1 if _KEYCTL_NR is None else _LIBC.syscall(_KEYCTL_NR, *args)


def _ipc_of(uid: int) -> list[tuple[str, int]]:
    """System V IPC objects (kind, id) in this IPC namespace that ``uid`` owns or created."""
    found = []
    for kind, column in _IPC_TABLES:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                rows = [line.split() for line in f.readlines()[1:]]
        except OSError:
            continue
        found += [(kind, int(row[1])) for row in rows
                  if len(row) > column + 2 and uid in (int(row[column]), int(row[column + 2]))]
    return found


def _reset(uid: int | None) -> int:
    """As ``uid``: kill what is left of its processes here and remove its IPC objects; how many objects remain."""
    if uid is None:
        return 0
    pid = os.fork()
    if pid == 0:
        try:
            _become(uid)
            _kill(lambda: os.kill(-1, signal.SIGKILL))
            remove = {"shm": lambda i: _LIBC.shmctl(i, _IPC_RMID, None),
                      "sem": lambda i: _LIBC.semctl(i, 0, _IPC_RMID),
                      "msg": lambda i: _LIBC.msgctl(i, _IPC_RMID, None)}
            for kind, ident in _ipc_of(uid):
                remove[kind](ident)
            for keyring in (_USER_KEYRING, _USER_SESSION_KEYRING):  # the uid's own keyrings outlive its processes
                _keyctl(_KEYCTL_CLEAR, keyring)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    _collect_exited()  # the leftovers the kill above ended
    return len(_ipc_of(uid))


def _child(start: dict, uid: int | None, compiled: dict, ctl: int | None = None, idle: int | None = None) -> None:
    """The student's process: set up once, then one test per start line (the first given, the rest read from
    ``ctl`` after saying idle on ``idle``; without them, one test only)."""
    code = 0
    try:
        os.setsid()
        if uid is not None:
            _become(uid)
        _keyctl(_KEYCTL_JOIN_SESSION, None)  # a session keyring of this process's own, not the one the server inherited
        cpu = int(float(start.get("limit", 60))) + 6
        for limit, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, MAX_FILE_BYTES),
                             (resource.RLIMIT_NPROC, MAX_PROCESSES), (resource.RLIMIT_CORE, 0),
                             (resource.RLIMIT_MSGQUEUE, 0),  # no POSIX message queue: it would outlive the test
                             (resource.RLIMIT_AS, _vm_size() + MEMORY_BYTES)):
            _soft, hard = resource.getrlimit(limit)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            top = value + KEPT_CPU_S if limit == resource.RLIMIT_CPU and ctl is not None else value
            resource.setrlimit(limit, (value, top if hard == resource.RLIM_INFINITY else min(top, hard)))
        sys.meta_path.insert(0, lazy.ExerciseFinder({str(k): str(v) for k, v in dict(start.get("modules", {})).items()},
                                                   package=True, compiled=compiled))
        channel_in, channel_out = os.dup(0), os.dup(1)  # the channel moves off 0/1: a print() is not a message
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        sys.stdin, sys.stdout, sys.stderr = (open(os.devnull, mode) for mode in ("r", "w", "w"))
        stdin, stdout = os.fdopen(channel_in, "rb"), os.fdopen(channel_out, "wb")
        starts = os.fdopen(ctl, "rb") if ctl is not None else None
        for served in range(MAX_TESTS_KEPT):  # bounded; each round is one test
            if served:
                _cpu_for(float(start.get("limit", 60)) + 6)
            peer = rpc.Peer(stdin, stdout, "s", handler=_module_get)
            names = [str(n) for n in start.get("forbids", [])]
            with forbid.forbidden(names, str(start.get("why", "")) or "this exercise asks you to write it yourself"):
                peer.send({"k": "started", "token": str(start.get("token", ""))})
                peer.serve()
            if starts is None:
                break
            os.write(idle, b"i")
            line = starts.readline(1 << 20)
            if not line:
                break
            start = json.loads(line)
    except rpc.ChannelClosed:
        pass
    except BaseException:  # noqa: BLE001 - a broken sandbox process just ends; the trusted test sees it hang up
        code = 1
    os._exit(code)


def _cpu_for(seconds: float) -> None:
    """The next test may use ``seconds`` more CPU time (the soft limit; the hard one stays where it was set)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = int(used.ru_utime + used.ru_stime + seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))


def _module_get(module: str, name: str, args: list, kwargs: dict):
    """``exercises.<module>.<name>``: imported from the student's file on first use."""
    if not re.fullmatch(r"ex\d+_\w*", module):
        raise ModuleNotFoundError(f"No module named 'exercises.{module}'")
    return getattr(importlib.import_module(f"exercises.{module}"), name)


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 << 30


if __name__ == "__main__":
    sys.exit(main())
