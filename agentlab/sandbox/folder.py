"""``Folder``: files reached only relative to an open directory, never through a link (see ``__init__``)."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from agentlab.tools import ToolError

NAME_MAX = 255
"""Longest name of one file or folder, in UTF-8 bytes (Linux's and macOS's ``NAME_MAX``)."""
PATH_MAX = 1024
"""Longest path inside the folder, in UTF-8 bytes."""
DEVICE_NAMES = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9]|conin\$|conout\$)$", re.I)
"""Names Windows reserves for devices (with any extension): refused everywhere, so a folder copied there still works."""
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = (
    os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
)  # O_NONBLOCK: a planted FIFO cannot hang an open


class SandboxPathError(ToolError):
    """A path a sandboxed tool refuses (outside its folder, a link, a device name...): nothing was touched."""


class Folder:
    """A folder a tool reads and writes in; every path is checked, then opened relative to the folder's fd."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        """The folder (created on first write)."""
        self._held = threading.local()

    # --- names -------------------------------------------------------------------------------------
    @staticmethod
    def parts(rel: object, shown: str) -> list[str]:
        """``rel`` split into checked names (``[]`` is the folder itself); ``shown`` is how errors name the path."""
        if not isinstance(rel, str):
            raise SandboxPathError(
                f"path {rel!r} is a {type(rel).__name__}; give the path as a string, e.g. 'notes.md'."
            )
        problem = _problem(rel)
        if problem:
            raise SandboxPathError(f"path {shown!r} {problem}. Nothing was changed.")
        return [p for p in rel.split("/") if p]

    # --- locking -----------------------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the folder's writer lock (``fcntl.flock`` on the folder: threads and processes alike); re-entrant per thread."""
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    # --- reading -----------------------------------------------------------------------------------
    def kind(self, names: list[str], shown: str = "") -> str | None:
        """``"file"``, ``"dir"``, ``"other"`` (a link, a device...) or ``None`` (nothing there), without following links."""
        if not names:
            return "dir" if self.root.is_dir() else None
        try:
            with self._parent(names, create=False, shown=shown) as fd:
                mode = os.stat(names[-1], dir_fd=fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"

    def read(self, names: list[str], shown: str) -> str:
        """The text of a regular file with one link; ``FileNotFoundError`` if there is none."""
        with self._parent(names, create=False, shown=shown) as dfd:
            fd = self._open_file(dfd, names[-1], os.O_RDONLY, shown)
        with os.fdopen(fd, "r", encoding="utf-8") as fh:
            return fh.read()

    def files(self, names: list[str], shown: str) -> list[str]:
        """Paths (relative to the folder) of every regular file at or below ``names``, links not followed."""
        found: list[str] = []
        try:
            with self._parent(names + ["."], create=False, shown=shown) as fd:
                for top, _dirs, filenames, dirfd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
                    for name in filenames:
                        if stat.S_ISREG(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode):
                            found.append("/".join(names + [p for p in top.split("/") if p not in ("", ".")] + [name]))
        except FileNotFoundError:
            return []
        return sorted(found)

    # --- writing -----------------------------------------------------------------------------------
    def append(self, names: list[str], text: str, shown: str) -> None:
        """Append ``text`` to a file (created if missing), under the lock."""
        with self.locked(), self._parent(names, create=True, shown=shown) as dfd:
            fd = self._open_file(dfd, names[-1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, shown)
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(text)

    def write(self, names: list[str], text: str, shown: str, *, exclusive: bool = False) -> None:
        """Replace a file's content atomically (unique temp file, ``os.replace``); ``exclusive``: refuse if it exists."""
        with self.locked(), self._parent(names, create=True, shown=shown) as dfd:
            if exclusive and _exists(names[-1], dfd):
                raise FileExistsError(shown)
            self._refuse_link(dfd, names[-1], shown)
            tmp = f".{names[-1][:200]}.{secrets.token_hex(6)}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=dfd)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
                    fh.write(text)
                os.replace(tmp, names[-1], src_dir_fd=dfd, dst_dir_fd=dfd)
            except BaseException:
                os.unlink(tmp, dir_fd=dfd)
                raise

    def delete(self, names: list[str], shown: str) -> None:
        """Remove a file, or a folder and all in it (links removed, never followed)."""
        with self.locked(), self._parent(names, create=False, shown=shown) as dfd:
            mode = os.stat(names[-1], dir_fd=dfd, follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                shutil.rmtree(names[-1], dir_fd=dfd)  # dir_fd: the symlink-attack-resistant rmtree
            else:
                os.unlink(names[-1], dir_fd=dfd)

    def rename(self, src: list[str], dst: list[str], shown_src: str, shown_dst: str) -> None:
        """Move ``src`` to ``dst`` (which must not exist), under the lock."""
        with (
            self.locked(),
            self._parent(src, create=False, shown=shown_src) as sfd,
            self._parent(dst, create=True, shown=shown_dst) as dfd,
        ):
            if _exists(dst[-1], dfd):
                raise FileExistsError(shown_dst)
            os.stat(src[-1], dir_fd=sfd, follow_symlinks=False)  # FileNotFoundError if missing
            os.replace(src[-1], dst[-1], src_dir_fd=sfd, dst_dir_fd=dfd)

    # --- internals ---------------------------------------------------------------------------------
    @contextmanager
    def _parent(self, names: list[str], *, create: bool, shown: str = "") -> Iterator[int]:
        """An fd of the folder holding ``names[-1]``, reached one name at a time without following a link."""
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in names[:-1]:
                if create:
                    try:
                        os.mkdir(name, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    nxt = os.open(name, _DIR, dir_fd=fd)
                except OSError as e:
                    if e.errno in (errno.ELOOP, errno.ENOTDIR):
                        raise SandboxPathError(
                            f"path {shown!r}: {name!r} on the way is a symlink or not a folder, and a link "
                            "leads outside the folder: links are not followed. Nothing was changed."
                        ) from None
                    raise
                os.close(fd)
                fd = nxt
            yield fd
        finally:
            os.close(fd)

    @staticmethod
    def _open_file(dfd: int, name: str, flags: int, shown: str) -> int:
        try:
            fd = os.open(name, flags | _NOFOLLOW, 0o644, dir_fd=dfd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
                raise SandboxPathError(
                    f"path {shown!r} is a symlink, a folder or a device, not a plain file (a link "
                    "leads outside the folder: links are not followed). Nothing was changed."
                ) from None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(fd)
            what = "has another hard link" if stat.S_ISREG(st.st_mode) else "is not a plain file"
            raise SandboxPathError(
                f"path {shown!r} {what}; refusing it, as it leads outside the folder. Nothing was changed."
            )
        os.set_blocking(fd, True)
        return fd

    @staticmethod
    def _refuse_link(dfd: int, name: str, shown: str) -> None:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink != 1) or stat.S_ISDIR(st.st_mode):
            raise SandboxPathError(
                f"path {shown!r} is a symlink, a hard link or a folder, not a plain file (a link "
                "leads outside the folder); it is left as it is. Nothing was changed."
            )


def _exists(name: str, dfd: int) -> bool:
    try:
        os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _problem(rel: str) -> str:
    """What is wrong with ``rel`` as a path inside a folder, or ``""``."""
    if "\x00" in rel:
        return "contains a NUL character"
    if rel.startswith("/") or re.match(r"^[A-Za-z]:", rel) or rel.startswith("\\"):
        return "is absolute; give a path inside the folder, e.g. 'notes.md'"
    if len(rel.encode("utf-8", "surrogatepass")) > PATH_MAX:
        return f"is {len(rel.encode('utf-8', 'surrogatepass'))} bytes long; the limit is {PATH_MAX}"
    for name in rel.split("/"):
        if name in ("..", "."):
            return f"has {name!r} in it, which leads outside the folder or names it; give a path inside the folder without '.' or '..'"
        if len(name.encode("utf-8", "surrogatepass")) > NAME_MAX:
            return f"has a name of {len(name.encode('utf-8', 'surrogatepass'))} bytes; the limit is {NAME_MAX}"
        if any(ord(c) < 32 for c in name):
            return "contains a control character"
        if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
            return "contains a lone surrogate (not valid Unicode text)"
        if DEVICE_NAMES.match(name.split(".")[0].rstrip(" ")):
            return f"names the device {name.split('.')[0]!r}; pick another name"
    return ""
