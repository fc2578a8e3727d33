"""Kill what a test left behind: every process of the student's uid, and every orphan we inherited.

The worker makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``, Linux), so a process that
double-forks and calls ``setsid`` to escape still becomes the worker's child when its parent dies.
``reap(uid)`` kills all of those, and, as root, every process of the student's uid at once
(``kill(-1)`` from a helper running as that uid: the kernel signals them all in one pass, so a
process that keeps forking cannot slip through).
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_libc = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None


def become_subreaper() -> bool:
    """Make orphans of our descendants our children (Linux), so ``reap`` can find them."""
    return _libc is not None and _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def reap(uid: int | None, children: bool = True, keep: tuple[int, ...] = ()) -> int:
    """Kill every process of ``uid`` (as root) and, with ``children``, every child of ours still around.

    Returns how many were seen. Children whose pid is in ``keep`` (the worker's sandboxes) are spared.
    """
    killed = 0
    for _ in range(200):  # bounded: each round kills all it sees, forks included (kill(-1) is atomic)
        found = [p for p in _children() if p not in keep] if children else []
        if uid is not None:
            found += _kill_uid(uid)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if children and not keep:
            _wait_any()
        elif children:  # wait only for those killed: a sandbox's exit status stays its Popen's
            for pid in found:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
        if not found:
            break
        killed += len(found)
    return killed


def _children() -> list[int]:
    """Pids whose parent is this process (orphans reparented to us included)."""
    try:  # Linux keeps the list per thread: cheap, no scan of every process
        return [
            int(pid)
            for task in os.listdir("/proc/self/task")
            for pid in Path(f"/proc/self/task/{task}/children").read_text().split()
        ]
    except OSError:
        pass
    me, found = os.getpid(), []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                found.append(int(entry))
    return found


def processes_of(uid: int) -> list[int]:
    """Pids of the processes of ``uid`` still alive (not zombies), from /proc."""
    seen = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid and alive(int(entry)):
                    seen.append(int(entry))
            except OSError:
                continue
    return seen


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie has died: only its parent's wait is left), from /proc."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _kill_uid(uid: int) -> list[int]:
    """As ``uid``, kill(-1): every process of that uid dies at once. Returns those seen before."""
    seen = processes_of(uid)
    if seen:
        pid = os.fork()
        if pid == 0:
            try:
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    return seen


def _wait_any() -> None:
    while True:  # bounded: reap() calls it after SIGKILLing every child, so it collects the dead and stops at none
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
