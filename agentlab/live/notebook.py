"""Two student mistakes in a notebook, each answered with one line saying what to do (never a traceback).

- A cell run before the cells above it uses a name they define: ``NameError`` becomes one line naming the
  name and the cell's line, and saying to run the cells above first (:func:`out_of_order`).
- An exercise file edited after the kernel imported it: the notebook keeps running the old code, and a
  student who reruns a cell sees the old behaviour with no hint why. Before each cell, :func:`watch_exercises`
  compares each imported ``exercises.*`` module's file with the one the kernel read, and says once per edit
  to restart the kernel or turn on autoreload (``make grade`` always reads the saved file).

``agentlab.live.errors.install_notebook_handler`` installs both (``use()``, a notebook's first cell, calls it).
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

_seen: dict[str, tuple[int, float]] = {}
"""Each imported exercise module (its object's id) and its file's modification time, as the kernel read it."""
_said: set[tuple[str, float]] = set()


def out_of_order(err: NameError, tb: Any = None) -> str:
    """One line for a name used before it was defined: in a notebook, most often a cell run before the ones above it."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    line = f" (line {frames[-1].lineno} of the cell)" if frames else ""
    return (
        f"NameError{line}: {err}. If a cell above defines it, run the cells above first "
        "(Run > Run All Above Selected Cell): the notebook's cells build on each other, in order."
    )


def _exercise_modules() -> dict[str, Any]:
    for _ in range(5):  # bounded: another thread importing while this copies sys.modules makes the copy fail
        try:
            modules = dict(sys.modules)
            break
        except RuntimeError:  # "dictionary changed size during iteration" (a notebook 12b run in JupyterLab did)
            continue
    else:
        return {}
    return {
        name: module
        for name, module in modules.items()
        if name.startswith("exercises.") and getattr(module, "__file__", None)
    }


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def note_imports() -> None:
    """After a cell: remember the file of each exercise module the kernel has newly imported (or reloaded)."""
    for name, module in _exercise_modules().items():
        known = _seen.get(name)
        if (known is None or known[0] != id(module)) and (m := _mtime(module.__file__)) is not None:
            _seen[name] = (id(module), m)


def stale_lines(autoreload: bool = False) -> list[str]:
    """Before a cell: one line for each imported exercise file edited since (once per edit; none with autoreload)."""
    lines = []
    for name, module in _exercise_modules().items():
        path, known = module.__file__, _seen.get(name)
        now = _mtime(path)
        if now is None or known is None or known[0] != id(module) or now <= known[1]:
            continue
        if autoreload:  # autoreload reloads it before the cell runs
            _seen[name] = (id(module), now)
            continue
        if (name, now) not in _said:
            _said.add((name, now))
            rel = "exercises/" + os.path.basename(path)
            lines.append(
                f"agentlab: {rel} changed after this kernel imported it, so the notebook still runs the old code: "
                "restart the kernel (Kernel > Restart Kernel), or run %load_ext autoreload and %autoreload 2 once. "
                "make grade always reads the saved file."
            )
    return lines


def watch_exercises(shell: Any) -> None:
    """Register the two checks with an IPython shell (once per shell)."""
    if getattr(shell, "_agentlab_watching", False):
        return
    shell._agentlab_watching = True

    def before(*_: Any) -> None:
        loaded = "autoreload" in getattr(getattr(shell, "extension_manager", None), "loaded", set())
        for line in stale_lines(autoreload=loaded):
            print(line)

    shell.events.register("pre_run_cell", before)
    shell.events.register("post_run_cell", lambda *_: note_imports())
