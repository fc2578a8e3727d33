"""The process that runs a student's functions: inside the sandbox, never in the grader's process.

Started by the worker (``agentlab.grading.worker``) through ``agentlab.grading.bwrap`` as
``python -m agentlab.grading.student_server [--uid N] [--pidns]`` with stdin/stdout as its only
channel. It imports the lab once, says ``{"k": "ready"}``, then for each graded test reads one
``{"op": "start", "token", "modules", "forbids", "why", "limit"}`` line and hands it to the process that
runs the student's code: a fork that drops to the student's uid (``--uid``), caps memory, CPU, files and
processes, maps ``exercises.exNN_*`` to the student's files, guards the forbidden functions
(``agentlab.grading.forbid``) and answers the trusted test's requests (``agentlab.grading.channel``)
until it says ``end``. With ``--pidns`` (a pid namespace of its own) that process is kept from test to
test of one student while the tests' forbids stay the same (``agentlab.grading.student_process``; a process
is sealed for its forbids, ``forbid.seal``, and never serves a test without them), as their tests share one
process under ``make grade``;
every other process it started dies after each test. It is killed, and the test lost, after ``limit`` seconds; without
``--pidns`` every test gets a fresh fork. The student's module files are compiled once by the server
(``_compile``: compiling runs none of their code) instead of in every process that imports them.

Between two students the worker may keep this server (``StudentSandbox.recycle``): it kills every
process of the student's uid, empties the folders the student could write, and sends
``{"op": "reset", "token"}``; the server then removes what the uid left in the sandbox's own IPC
namespace (System V shared memory, semaphores and message queues; POSIX message queues cannot be
made at all, ``RLIMIT_MSGQUEUE`` is 0) and clears the uid's kernel keyrings (the student's process also
gets a session keyring of its own), forgets the compiled modules, and answers
``{"k": "reset", "token", "left": n}`` (n: IPC objects of the uid still there; 0 or the sandbox is
not reused). The server itself never runs a student's code, so nothing of one student reaches the next.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import signal
import sys

from agentlab.grading.student_process import (
    KEYCTL_CLEAR,
    LIBC,
    USER_KEYRING,
    USER_SESSION_KEYRING,
    StudentProcess,
    become,
    collect_exited,
    drop,
    keyctl,
    kill_all_but,
    quietly,
)

MAX_COMPILE_BYTES = 1 << 20
"""Largest module file compiled ahead by the server (a submission's module is at most this size anyway)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="student_server")
    parser.add_argument("--uid", type=int, default=None)
    parser.add_argument("--pidns", action="store_true")
    args = parser.parse_args(argv)
    from agentlab.grading.warmup import warm_up

    warm_up()
    gc.freeze()  # the warm objects stay put: a fork copies fewer pages
    stdin, stdout = os.fdopen(0, "rb", buffering=0), os.fdopen(1, "wb", buffering=0)
    stdout.write(b'{"k": "ready"}\n')
    compiled: dict[str, object] = {}
    kept: StudentProcess | None = None  # the student's process, kept from test to test (in a pid namespace only)
    while True:  # one round per test; ends when the worker closes our stdin
        line = stdin.readline(1 << 20)  # unbuffered: nothing meant for a test's process is read here
        if not line:
            drop(kept)
            return 0
        try:
            start = json.loads(line)
        except ValueError:
            continue  # stale bytes of an earlier test
        if isinstance(start, dict) and start.get("op") == "reset":
            kept = drop(kept)
            compiled.clear()
            left = _reset(args.uid)
            stdout.write(
                json.dumps({"k": "reset", "token": str(start.get("token", "")), "left": left}).encode() + b"\n"
            )
            continue
        if not isinstance(start, dict) or start.get("op") != "start":
            continue
        code = _compile(start.get("modules"), compiled)
        # the same files and the same forbids: a process sealed for some forbids never serves a test without them
        forbids = [sorted(map(str, start.get("forbids") or [])), str(start.get("why", ""))]
        key = json.dumps([start.get("modules"), sorted(compiled.get(p, ("",))[0] for p in code), forbids], default=str)
        if kept is not None and (kept.key != key or not kept.hand(line)):
            kept = drop(kept)  # other files (or it cannot take the line): a fresh process, and nothing of the old
            _end_the_rest(args.pidns)
        if kept is None:
            kept = StudentProcess.fork(start, args.uid, code, key, reuse=args.pidns)
        status = kept.wait(float(start.get("limit", 60)) + 5)
        if status is None:  # it served the test and waits for the next one; every other process dies
            kill_all_but(kept.pid)
            continue
        _end_the_rest(args.pidns)
        kept = None
        gone = {"k": "gone", "token": str(start.get("token", "")), "why": _why(status)}
        stdout.write(json.dumps(gone).encode() + b"\n")


def _end_the_rest(pidns: bool) -> None:
    """In our own pid namespace everything else is the student's: it dies. Then reap what has exited."""
    if pidns:
        quietly(lambda: os.kill(-1, signal.SIGKILL))
    collect_exited()


def _why(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return f"was killed by {name}" + (" (out of memory, or its time was up?)" if sig == signal.SIGKILL else "")
    return f"exited with code {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status}"


def _compile(modules, compiled: dict) -> dict:
    """The student's module files compiled once, here, for every fork that imports them (compiling runs none of their code).

    ``compiled`` maps path -> (sha256 of the bytes, code): a file whose bytes changed is compiled again (by
    content, not by time and size: the next student's file at the same path may match those). One that does
    not compile is left to the student's process, which compiles it itself and fails that test with the real error.
    Returns path -> code for the files compiled."""
    for path in dict(modules).values() if isinstance(modules, dict) else ():
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


def _ipc_of(uid: int) -> list[tuple[str, int]]:
    """System V IPC objects (kind, id) in this IPC namespace that ``uid`` owns or created."""
    found = []
    for kind, column in _IPC_TABLES:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                rows = [line.split() for line in f.readlines()[1:]]
        except OSError:
            continue
        found += [
            (kind, int(row[1]))
            for row in rows
            if len(row) > column + 2 and uid in (int(row[column]), int(row[column + 2]))
        ]
    return found


def _reset(uid: int | None) -> int:
    """As ``uid``: kill what is left of its processes here and remove its IPC objects; how many objects remain."""
    if uid is None:
        return 0
    pid = os.fork()
    if pid == 0:
        try:
            become(uid)
            quietly(lambda: os.kill(-1, signal.SIGKILL))
            remove = {
                "shm": lambda i: LIBC.shmctl(i, _IPC_RMID, None),
                "sem": lambda i: LIBC.semctl(i, 0, _IPC_RMID),
                "msg": lambda i: LIBC.msgctl(i, _IPC_RMID, None),
            }
            for kind, ident in _ipc_of(uid):
                remove[kind](ident)
            for keyring in (USER_KEYRING, USER_SESSION_KEYRING):  # the uid's own keyrings outlive its processes
                keyctl(KEYCTL_CLEAR, keyring)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    collect_exited()  # the leftovers the kill above ended
    return len(_ipc_of(uid))


if __name__ == "__main__":
    sys.exit(main())
