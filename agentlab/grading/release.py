"""Write the student edition of the repo: a copy with every solution region replaced by a stub.

Solutions sit between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` comment lines (nbgrader's
convention) in ``.py`` files and in notebook code cells; see ``agentlab.grading.solutions``.
Everything is checked before anything is written, so a bad marker leaves no half-written copy.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from agentlab.grading.solutions import SolutionMarkerError, strip_code, strip_text

SKIP_NAMES = {".git", ".venv", "__pycache__", ".pytest_cache", ".ipynb_checkpoints", "runs", "notes", "build"}
"""Files and folders never copied (plus anything ending in ``.egg-info``)."""
INSTRUCTOR_ONLY = {"answer_key.md"}
"""Names under ``docs/`` that stay with the instructor: the instructor kit's answers to the ungraded questions."""
STUDENT_README = Path(__file__).with_name("STUDENT_README.md")
"""Replaces the instructor's README.md in the student edition."""
STUDENT_README_ZH = Path(__file__).with_name("STUDENT_README.zh-CN.md")
"""The same in Chinese: the student edition's README.zh-CN.md."""


def _instructor_only(rel: Path) -> bool:
    """The instructor kit's answer key (``docs/<lang>/answer_key.md``): never in the student edition."""
    return rel.parts[0] == "docs" and rel.name in INSTRUCTOR_ONLY


def _generated(rel: Path) -> bool:
    """Output of a run (figures such as compare.png; .gitignore's ``*.png`` except ``docs/``): never released."""
    return rel.suffix == ".png" and rel.parts[0] != "docs"


@dataclass
class ReleaseReport:
    """What ``release_student`` wrote."""

    out_dir: Path
    """Folder holding the student edition."""
    files: int = 0
    """Files written in total (copied unchanged or stubbed)."""
    stubbed: dict[str, list[str]] = field(default_factory=dict)
    """Repo-relative path -> the exercise line of each solution region replaced in that file."""

    @property
    def regions(self) -> int:
        """Number of solution regions replaced."""
        return sum(len(v) for v in self.stubbed.values())


def release_student(src_repo: Path, out_dir: Path) -> ReleaseReport:
    """Copy ``src_repo`` to ``out_dir`` (which must be new or empty) with the solutions stubbed.

    Raises ``SolutionMarkerError`` (naming file and line) for unbalanced or misplaced markers,
    ``FileExistsError`` if ``out_dir`` has files, ``NotADirectoryError`` if ``src_repo`` is no folder.
    """
    src, out = Path(src_repo).resolve(), Path(out_dir).resolve()
    if not src.is_dir():
        raise NotADirectoryError(f"source repo {src} is not a folder")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} already exists and is not an empty folder")
    plan: list[tuple[Path, str | None]] = []  # (relative path, new text or None = copy as is)
    report = ReleaseReport(out_dir=out)
    for rel in _files(src, skip=out):
        if _generated(rel) or _instructor_only(rel):
            continue
        new_text, exercises = _transform(src / rel, rel.as_posix())
        if rel.as_posix() == "README.md" and STUDENT_README.is_file():
            new_text = STUDENT_README.read_text("utf-8")
            if STUDENT_README_ZH.is_file():
                plan.append((Path("README.zh-CN.md"), STUDENT_README_ZH.read_text("utf-8")))
        plan.append((rel, new_text))
        if exercises:
            report.stubbed[rel.as_posix()] = exercises
    for rel, new_text in plan:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if new_text is None:
            shutil.copy2(src / rel, target, follow_symlinks=False)
        else:
            target.write_text(new_text, encoding="utf-8", newline="")
        report.files += 1
    out.mkdir(parents=True, exist_ok=True)
    return report


def _files(src: Path, skip: Path) -> list[Path]:
    """Repo-relative paths of the files to release, sorted; symlinks are kept as links."""
    found = []
    for dirpath, dirnames, filenames in os.walk(src):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            if _skipped(d) or (here / d).resolve() == skip:
                continue
            if (here / d).is_symlink():
                filenames.append(d)  # copy the link itself, do not descend
            else:
                keep.append(d)
        dirnames[:] = keep
        found += [(here / f).relative_to(src) for f in filenames if not _skipped(f)]
    return sorted(found)


def _skipped(name: str) -> bool:
    return name in SKIP_NAMES or name.endswith(".egg-info")


def _transform(path: Path, label: str) -> tuple[str | None, list[str]]:
    """(new text, exercises) for a file with solution regions, (None, []) to copy it unchanged."""
    if path.is_symlink() or path.suffix not in (".py", ".ipynb"):
        return None, []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None, []
    if "SOLUTION" not in text:
        return None, []
    if path.suffix == ".py":
        new, exercises = strip_code(text, label)
        return (new, exercises) if exercises else (None, [])
    return _notebook(text, label)


def _notebook(text: str, label: str) -> tuple[str | None, list[str]]:
    """Stub code cells, replace answers in markdown cells, clear outputs if anything was stubbed."""
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        raise SolutionMarkerError(f"{label}:{e.lineno}: not a valid notebook (JSON error: {e.msg})") from e
    found: list[str] = []
    for number, cell in enumerate(nb.get("cells", []), 1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        cell_label = f"{label} cell {number}"
        if cell.get("cell_type") == "code":
            new, exercises = strip_code(source, cell_label, notebook=True)
        else:
            new, exercises = strip_text(source, cell_label)
        if exercises:
            cell["source"] = new.splitlines(keepends=True)
            found += exercises
    if not found:
        return None, []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":  # outputs may show what the solutions computed
            cell["outputs"], cell["execution_count"] = [], None
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n", found


__all__ = ["ReleaseReport", "SolutionMarkerError", "release_student"]
