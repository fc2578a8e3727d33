"""Run the instructor's exercise tests on one set of exercise modules, in a throw-away folder.

What is done (full sandboxing is out of scope): a separate ``python -m pytest`` process, with
cwd in a temp copy holding the instructor's ``exercises/`` (tests, conftest, data) minus its
``exNN_*.py`` solutions, plus the student's modules; ``PYTHONPATH`` holding only ``agentlab`` (so
no instructor solution can be imported; it is a copy, so edits to it stay in the temp folder);
HOME and TMPDIR inside the temp folder; a scrubbed environment (no API keys); a wall-clock limit
that kills the whole process group; files capped at ``MAX_FILE_BYTES`` on POSIX; output to a file
of which only the last ``OUTPUT_TAIL`` bytes are read. Not done: student code still runs as you,
can read and write your files by absolute path, use the network, and could tamper with the
grading plugin in its own process. Grade in a container or a throw-away account if that matters.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agentlab.grading.report import GradeReport
from agentlab.grading.submissions import MODULE

OUTPUT_TAIL = 64 * 1024
"""Bytes of pytest output kept (the end of it)."""
MAX_FILE_BYTES = 32 << 20
"""Largest file the test process may write (POSIX); bigger writes fail with OSError."""
_CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_JUNK = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
_KEEP_ENV = {"PATH", "LANG", "LANGUAGE", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT"}


@dataclass
class RunResult:
    """Outcome of one isolated pytest run."""

    report: GradeReport | None
    """The ``--grade-json`` report (a partial snapshot if the run was killed); None if none was written."""
    timed_out: bool
    """True if the run hit the wall-clock limit and was killed."""
    returncode: int | None
    """pytest's exit code; None when killed."""
    output_tail: str
    """The last ``OUTPUT_TAIL`` bytes of pytest's stdout and stderr."""
    seconds: float
    """Wall-clock duration."""


def prepare(instructor_repo: Path, base: Path) -> Path:
    """Lay out ``base``: repo/ (the cwd), home/, tmp/, lib/agentlab. Returns repo/exercises."""
    repo, src = base / "repo", instructor_repo / "exercises"

    def ignore(folder: str, names: list[str]) -> set[str]:
        solutions = {n for n in names if MODULE.fullmatch(n)} if Path(folder) == src else set()
        return solutions | (_JUNK & set(names))

    shutil.copytree(src, repo / "exercises", ignore=ignore)
    configs = [n for n in _CONFIG_FILES if (instructor_repo / n).is_file()]
    for name in [*configs, "conftest.py"]:  # a root conftest.py applies to `make grade` too
        if (instructor_repo / name).is_file():
            shutil.copy2(instructor_repo / name, repo / name)
    if not configs:
        (repo / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for name in ("home", "tmp", "lib"):
        (base / name).mkdir()
    # a copy, not a link: a submission that edits agentlab only spoils its own run
    shutil.copytree(instructor_repo / "agentlab", base / "lib" / "agentlab", ignore=lambda _d, n: _JUNK & set(n))
    return repo / "exercises"


def run_tests(base: Path, timeout: float) -> RunResult:
    """Run pytest on ``base``/repo/exercises (laid out by ``prepare``) for at most ``timeout`` s."""
    repo, report_path, log_path = base / "repo", base / "grade.json", base / "output.log"
    cmd = [sys.executable, "-m", "pytest", "exercises", "-q", "--tb=no", "--show-capture=no", "--no-header",
           "-p", "no:cacheprovider", "--continue-on-collection-errors", f"--rootdir={repo}",
           f"--grade-json={report_path}"]
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=repo, env=_environment(base), stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_limits if os.name == "posix" else None)
        try:
            returncode, timed_out = proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            returncode, timed_out = None, True
        finally:
            _kill_group(proc)  # also whatever the student's code left running, and on Ctrl-C
    seconds = time.monotonic() - start
    try:
        report = GradeReport.read(report_path)
    except (OSError, ValueError, TypeError, KeyError):
        report = None
    return RunResult(report, timed_out, returncode, _tail(log_path), seconds)


def _environment(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV or k.startswith("LC_")}
    home, tmp = str(base / "home"), str(base / "tmp")
    env.update(HOME=home, USERPROFILE=home, TMPDIR=tmp, TEMP=tmp, TMP=tmp, PYTHONPATH=str(base / "lib"),
               PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8", PYTHONHASHSEED="0", MPLBACKEND="Agg")
    return env


def _limits() -> None:
    """Runs in the child before exec (POSIX): cap file sizes, no core dumps."""
    import resource

    for limit, value in ((resource.RLIMIT_FSIZE, MAX_FILE_BYTES), (resource.RLIMIT_CORE, 0)):
        _soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))  # hard limit too: the student's code cannot lift it


def _kill_group(proc: subprocess.Popen) -> None:
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    elif proc.poll() is None:
        proc.kill()
    proc.wait()


def _tail(path: Path) -> str:
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - OUTPUT_TAIL))
        return f.read().decode("utf-8", errors="replace")
