"""Find student submissions and pull the exercise modules (``exNN_*.py``) out of them.

A submission is a folder or a ``.zip`` file in the submissions folder; its name is the student's.
The modules may sit at its top, in an ``exercises/`` folder, or one folder deeper: the shallowest
folder holding ``exNN_*.py`` files wins. Nothing else is taken (never the student's tests).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MODULE = re.compile(r"ex\d+_\w*\.py")
"""File name of an exercise module, e.g. ``ex02_loop.py``."""
MAX_MODULE_BYTES = 1 << 20
"""Largest exercise module accepted (1 MiB)."""
_IGNORED_DIRS = {"tests", "__pycache__", "__MACOSX", ".venv", "venv", "site-packages", "node_modules", ".git"}
_MAX_DEPTH = 4


class SubmissionError(Exception):
    """The submission cannot be read; the message is the short reason for the gradebook."""


@dataclass
class Submission:
    """One student's hand-in."""

    student: str
    """Student name: the folder name, or the zip file name without ``.zip``."""
    path: Path
    """The folder or zip file."""


def find_submissions(folder: Path) -> list[Submission]:
    """Every sub-folder and ``.zip`` file of ``folder``, sorted by student name."""
    found: dict[str, Submission] = {}
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith(".") or entry.name == "__MACOSX":
            continue
        if entry.is_dir():
            name = entry.name
        elif entry.suffix.lower() == ".zip" and entry.is_file():
            name = entry.stem if entry.stem not in found else entry.name
        else:
            continue
        found[name] = Submission(name, entry)
    return [found[k] for k in sorted(found, key=str.lower)]


def read_modules(submission: Submission) -> dict[str, bytes]:
    """The student's exercise modules: file name -> contents (nothing else is read)."""
    out: dict[str, bytes] = {}
    if submission.path.is_dir():
        files = {rel: submission.path / rel for rel in _folder_modules(submission.path)}
        for rel in choose_modules(list(files)):
            if not stat.S_ISREG(files[rel].lstat().st_mode):  # a FIFO or a device would block the whole class
                raise SubmissionError(f"{rel} is not a regular file")
            if files[rel].stat().st_size > MAX_MODULE_BYTES:
                raise SubmissionError(f"{rel} is larger than {MAX_MODULE_BYTES >> 20} MiB")
            out[rel.name] = files[rel].read_bytes()
        return out
    try:
        with zipfile.ZipFile(submission.path) as zf:
            members = {PurePosixPath(i.filename.replace("\\", "/")): i for i in zf.infolist() if not i.is_dir()}
            for rel in choose_modules([p for p in members if _wanted(p)]):
                with zf.open(members[rel]) as f:
                    data = f.read(MAX_MODULE_BYTES + 1)
                if len(data) > MAX_MODULE_BYTES:
                    raise SubmissionError(f"{rel} is larger than {MAX_MODULE_BYTES >> 20} MiB")
                out[rel.name] = data
            return out
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as e:
        raise SubmissionError(f"cannot read the zip file: {e}") from e


@dataclass
class Taken:
    """A submission's exercise modules as the gradebook read them, before any student's code ran."""

    files: dict[str, bytes] | None
    """File name -> contents; None when the submission could not be read."""
    error: str
    """Why it could not be read (empty when it could)."""
    digest: str
    """sha256 over the names and contents read (or the error): what ``changed`` compares with."""


def take(submission: Submission) -> Taken:
    """Read ``submission``'s modules now; what is graded is this copy, whatever happens on disk later."""
    try:
        files = read_modules(submission)
    except SubmissionError as e:
        return Taken(None, str(e), hashlib.sha256(str(e).encode()).hexdigest())
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return Taken(files, "", h.hexdigest())


def changed(submission: Submission, taken: Taken) -> bool:
    """Whether the submission on disk now differs from the copy ``take`` read."""
    return take(submission).digest != taken.digest


def copy_modules(submission: Submission, dest: Path) -> list[str]:
    """Write the student's exercise modules into ``dest``; return their file names."""
    files = read_modules(submission)
    for name, data in files.items():
        (dest / name).write_bytes(data)
    return sorted(files)


def _folder_modules(root: Path) -> list[PurePosixPath]:
    """Relative paths of candidate modules in a folder, pruning venvs, tests and deep trees."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if len(rel_dir.parts) >= _MAX_DEPTH:
            dirnames[:] = []
        dirnames[:] = [d for d in dirnames if d not in _IGNORED_DIRS and not d.startswith(".")]
        for name in filenames:
            rel = PurePosixPath(*rel_dir.parts, name)
            if _wanted(rel) and not (Path(dirpath) / name).is_symlink():
                found.append(rel)
    return found


def _wanted(rel: PurePosixPath) -> bool:
    """An exercise module at a safe, shallow relative path."""
    parts = rel.parts
    if rel.is_absolute() or ".." in parts or len(parts) > _MAX_DEPTH + 1:
        return False
    if any(p in _IGNORED_DIRS or p.startswith(".") for p in parts[:-1]):
        return False
    return MODULE.fullmatch(rel.name) is not None


def choose_modules(candidates: list[PurePosixPath]) -> list[PurePosixPath]:
    """The modules of the shallowest folder holding any (an ``exercises`` folder wins ties)."""
    if not candidates:
        raise SubmissionError("no exNN_*.py exercise modules found")
    folders = {p.parent for p in candidates}
    best = min(folders, key=lambda f: (len(f.parts), f.name != "exercises", str(f)))
    return sorted(p for p in candidates if p.parent == best)
