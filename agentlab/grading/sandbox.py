"""The staging folder a class is graded in, and where each student's files go.

``Stage(instructor_repo)`` makes a private temp folder (mode 0711: others may pass, not list)::

    stage/repo/exercises/   the instructor's tests, conftest and data, but no ``exNN_*.py`` solution
    stage/lib/agentlab/     a copy of the lab, first on the workers' import path
    stage/homes/<n>/        one private folder per student (mode 0700, owned by the student's uid)

Only ``exNN_*.py`` modules whose names the instructor's own ``exercises/`` has are taken from a
submission (``home_for``); nothing else from it is copied, imported or collected. What each test
process may see and do is set in ``agentlab.grading.confine``; ``hidden_paths`` lists what root
covers up: the instructor's repository (all but the Python environment), the submissions and
the output folder.
"""

from __future__ import annotations

import compileall
import itertools
import os
import shutil
import site
import sys
import tempfile
from pathlib import Path

from agentlab.grading.submissions import MODULE

_CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_JUNK = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
_KEEP_ENV = {"PATH", "LANG", "LANGUAGE", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT"}


class Stage:
    """A staging folder for one gradebook run; removed on exit."""

    def __init__(self, instructor_repo: Path) -> None:
        self.instructor = Path(instructor_repo).resolve()
        self.root = Path(tempfile.mkdtemp(prefix="agentlab-grade-")).resolve()
        os.chmod(self.root, 0o711)
        self.repo = self.root / "repo"
        self.modules = sorted(p.name for p in (self.instructor / "exercises").iterdir() if MODULE.fullmatch(p.name))
        self._homes = itertools.count(1)  # next() is one step: students graded in parallel never share a number
        _copy_tests(self.instructor, self.repo)
        shutil.copytree(
            self.instructor / "agentlab", self.root / "lib" / "agentlab", ignore=lambda _d, n: _JUNK & set(n)
        )
        # Bytecode for the staged lab, written here by the trusted side: every worker and every student's
        # sandbox imports all of it, and neither may write __pycache__ (read-only, or PYTHONDONTWRITEBYTECODE).
        compileall.compile_dir(self.root / "lib" / "agentlab", quiet=2)
        (self.root / "homes").mkdir()
        for folder in (self.root / "lib", self.repo):
            _readable(folder)
        os.chmod(self.root / "homes", 0o711)

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def home_for(self, files: dict[str, bytes], uid: int | None) -> tuple[Path, dict[str, str]]:
        """A new private folder holding ``files`` (name -> bytes); returns it and module name -> path."""
        home = self.root / "homes" / str(next(self._homes))
        home.mkdir(mode=0o700)
        modules = {}
        for name, data in files.items():
            (home / name).write_bytes(data)
            modules[name.removesuffix(".py")] = str(home / name)
        if uid is not None:
            for path in [home, *home.iterdir()]:
                os.chown(path, uid, uid)
        return home, modules

    def environment(self) -> dict[str, str]:
        """The workers' environment: no keys or tokens, the staged lab first on the import path."""
        env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV or k.startswith("LC_")}
        home = str(self.root / "homes")
        env.update(
            HOME=home,
            TMPDIR=home,
            PYTHONPATH=str(self.root / "lib"),
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONIOENCODING="utf-8",
            PYTHONHASHSEED="0",
            MPLBACKEND="Agg",
        )
        return env

    def python_paths(self) -> list[str]:
        """Folders of the Python installation a student's uid must be able to read (outermost only)."""
        paths = sorted(
            {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages())}
        )
        return [p for p in paths if not any(p != q and p.startswith(q + os.sep) for q in paths)]

    def hidden_paths(self, *more: Path) -> list[str]:
        """Paths a student's test process must not see (as root they get covered by empty mounts)."""
        needed = [
            self.root,
            Path(sys.prefix),
            Path(sys.base_prefix),
            Path(sys.exec_prefix),
            Path(os.path.realpath(sys.executable)).parent,
            *map(Path, site.getsitepackages()),
        ]
        needed = [Path(os.path.realpath(p)) for p in needed]

        def hideable(path: Path) -> bool:
            return not any(n == path or path in n.parents for n in needed)

        hide = [p for p in sorted(self.instructor.iterdir()) if hideable(p.resolve())]
        hide += [Path(p).resolve() for p in more if Path(p).exists() and hideable(Path(p).resolve())]
        return [str(p) for p in hide]


def _copy_tests(instructor: Path, repo: Path) -> None:
    src = instructor / "exercises"

    def ignore(folder: str, names: list[str]) -> set[str]:
        solutions = {n for n in names if MODULE.fullmatch(n)} if Path(folder) == src else set()
        return solutions | (_JUNK & set(names))

    shutil.copytree(src, repo / "exercises", ignore=ignore)
    configs = [n for n in _CONFIG_FILES if (instructor / n).is_file()]
    for name in [*configs, "conftest.py"]:
        if (instructor / name).is_file():
            shutil.copy2(instructor / name, repo / name)
    if not configs:
        (repo / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def _readable(folder: Path) -> None:
    """World-readable (not writable): a student's uid may import from it, not change it."""
    for dirpath, dirnames, filenames in os.walk(folder):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
