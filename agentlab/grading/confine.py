"""Confine a freshly forked test process before it runs any student code (Linux; POSIX fallbacks).

``enter(jail)`` runs in the child right after ``fork``. It always: starts a new session, caps
memory, CPU time, file size and open files, points stdin/stdout/stderr away from the grader, and
closes every inherited descriptor but the result pipe. As root it also: moves the process into
its own mount and network namespaces, covers the instructor's repository (all but the Python
environment), the submissions folder and the output folder with empty read-only mounts, then
becomes the student's unprivileged uid (no groups) with a process-count limit.

What a test leaves behind is killed by ``agentlab.grading.reap``.
"""

from __future__ import annotations

import ctypes
import os
import resource
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MEMORY_BYTES = 1 << 30
"""Address space a test process may add to what the warm worker already holds (1 GiB)."""
MAX_FILE_BYTES = 32 << 20
"""Largest file a test process may write."""
MAX_PROCESSES = 64
"""Processes the student's uid may have at once (as root)."""
MAX_OPEN_FILES = 256
"""Open descriptors per test process."""
_CLONE_NEWNS, _CLONE_NEWNET = 0x00020000, 0x40000000
_MS_RDONLY, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 4096, 16384, 1 << 18
_libc = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None


@dataclass
class Jail:
    """How to confine one student's test process."""

    home: Path
    """The student's private folder: cwd, HOME and TMPDIR."""
    cpu_seconds: int
    """CPU time limit of one test process."""
    uid: int | None = None
    """Unprivileged uid to run as (root only); None keeps the grader's."""
    hide: list[str] = field(default_factory=list)
    """Paths covered with empty read-only mounts (root only)."""
    reveal: list[str] = field(default_factory=list)
    """Folders the student's uid must read (the Python installation) though a parent bars it (root only)."""
    keep_fds: tuple[int, ...] = ()
    """Descriptors left open (the result pipe)."""


def is_root() -> bool:
    return os.name == "posix" and os.geteuid() == 0


def enter(jail: Jail) -> None:
    """Called in the forked child; raises OSError if a step that isolation depends on fails."""
    os.setsid()
    if jail.uid is not None:
        _namespaces(jail.hide, jail.reveal)
    _redirect_stdio()
    _limits(jail)
    if jail.uid is not None:
        os.setgroups([])
        os.setresgid(jail.uid, jail.uid, jail.uid)
        os.setresuid(jail.uid, jail.uid, jail.uid)
    os.closerange(3, 1 << 16) if not jail.keep_fds else _close_others(jail.keep_fds)
    os.chdir(jail.home)
    for name in ("HOME", "USERPROFILE", "TMPDIR", "TEMP", "TMP"):
        os.environ[name] = str(jail.home)
    tempfile.tempdir = str(jail.home)  # the worker may have cached its own


def barred(path: str) -> str | None:
    """The highest folder on the way to ``path`` that others may not enter (mode lacks o+x), or None."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        folder = os.sep.join(parts[:i])
        try:
            if not os.stat(folder).st_mode & 0o001:
                return folder
        except OSError:
            return None
    return None


def _namespaces(hide: list[str], reveal: list[str]) -> None:
    if _libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(mount, network namespaces)")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    # e.g. a pyenv Python in root's home (mode 0700): cover that home with an empty tmpfs and put
    # back only the Python installation, so the uid can import the standard library and no more
    handles = [(path, barred(path), os.open(path, getattr(os, "O_PATH", os.O_RDONLY))) for path in reveal]
    covered: set[str] = set()
    for path, blocker, fd in handles:
        if blocker is not None:
            if blocker not in covered:
                _mount("tmpfs", blocker, "tmpfs", 0, "size=64k,mode=755")
                covered.add(blocker)
            os.makedirs(path, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
        os.close(fd)
    for path in hide:
        if os.path.isdir(path) and not os.path.islink(path):
            _mount("tmpfs", path, "tmpfs", _MS_RDONLY, "size=4k,mode=555")
        elif os.path.isfile(path) and not os.path.islink(path):
            _mount("/dev/null", path, None, _MS_BIND)
            _mount(None, path, None, _MS_BIND | _MS_RDONLY | (1 << 5))  # remount read-only


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise OSError(ctypes.get_errno(), f"mount over {target}")


def _redirect_stdio() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _limits(jail: Jail) -> None:
    vsize = _vm_size()
    caps = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, MAX_FILE_BYTES),
        (resource.RLIMIT_CPU, jail.cpu_seconds),
        (resource.RLIMIT_NOFILE, MAX_OPEN_FILES),
        (resource.RLIMIT_AS, vsize + MEMORY_BYTES),
    ]
    if jail.uid is not None:
        caps.append((resource.RLIMIT_NPROC, MAX_PROCESSES))
    for limit, value in caps:
        _soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))  # hard limit too: the student's code cannot lift it


def _vm_size() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 << 30


def _close_others(keep: tuple[int, ...]) -> None:
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 16)


def allow_cpu(seconds: float) -> None:
    """This process may use ``seconds`` more CPU time from now (the soft limit; the hard one stays where it was set)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = int(used.ru_utime + used.ru_stime + seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
