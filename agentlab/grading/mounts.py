"""Capped, no-follow folders for a student's sandbox: tmpfs mounts the grading worker makes as root.

Each student's sandbox gets two tmpfs mounts, made in the worker's own mount namespace (so they
vanish with it and never show on the machine): its ``/tmp`` and the scratch folder the tests'
``tmp_path`` folders live in. Both cap bytes and files (``nr_inodes``), so a submission that makes
100,000 empty files or writes past the cap gets ``No space left on device`` in its own test and
nothing else fills up. The scratch mount is also ``nosymfollow`` in the worker's view: the trusted
test (root) reading a file the student's code wrote there gets ``Too many levels of symbolic
links`` for a planted symlink instead of following it to ``/etc/shadow`` or the solutions; inside
the sandbox (bwrap binds it anew) symlinks work as usual for the student's own code.

Without root nothing is mounted (``enabled()`` is False): the scratch folder is a plain folder.
"""

from __future__ import annotations

import ctypes
import os

SCRATCH_BYTES = 64 << 20
"""Bytes all of one student's ``tmp_path`` folders may hold together."""
MAX_FILES = 4096
"""Files and folders each of a sandbox's writable mounts (``/tmp``, scratch) may hold."""
_CLONE_NEWNS, _MS_NOSUID, _MS_NODEV, _MS_NOSYMFOLLOW, _MS_REC, _MS_PRIVATE = 0x00020000, 2, 4, 256, 16384, 1 << 18
_MNT_DETACH = 2
_libc = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None
_state = {"private": False}


def enabled() -> bool:
    """True where the worker can make the capped mounts (root on Linux)."""
    return os.name == "posix" and os.geteuid() == 0 and os.path.isdir("/proc/self")


def private_namespace() -> None:
    """Move this process (the worker) into a mount namespace of its own, once; mounts made later stay in it."""
    if _state["private"]:
        return
    if _libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(mount namespace) for the sandboxes' capped folders")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _state["private"] = True


def capped(path: str, size: int, mode: int, no_follow: bool) -> None:
    """Mount a tmpfs of ``size`` bytes and ``MAX_FILES`` files on ``path`` (no devices, no setuid)."""
    flags = _MS_NOSUID | _MS_NODEV | (_MS_NOSYMFOLLOW if no_follow else 0)
    _mount("tmpfs", path, "tmpfs", flags, f"size={size},nr_inodes={MAX_FILES},mode={mode:o}")


def unmount(path: str) -> None:
    """Detach a mount made by ``capped`` (nothing if it is not mounted)."""
    if os.path.ismount(path):
        _libc.umount2(path.encode(), _MNT_DETACH)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {fstype or 'bind'} on {target}: {os.strerror(errno)}")
