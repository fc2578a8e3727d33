"""Import an exercise module on first use, so a broken submission fails its tests one by one.

A test file that does ``from exercises.ex02_loop import run_loop`` at the top cannot even be
collected when the student's module has a syntax error or loops at import: the whole file is
lost. With ``loop = lazy_import("exercises.ex02_loop")`` the import happens inside the first test that
uses it, under its time limit, and its error becomes its failure line (and again in each later one).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
from typing import Any

_EXERCISE = re.compile(r"exercises\.(ex\d+_\w*)")


remote = None
"""In the gradebook's trusted test process: the ``channel.Peer`` of the student's sandbox, where the
module really lives (``agentlab.grading.runner`` sets it); None for ``make grade``, which imports it here."""


class LazyModule:
    """Stands in for a module; imports it the first time a public attribute is read."""

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # pytest and friends probe dunder/private names: never import for them
            raise AttributeError(attr)
        if remote is not None:  # a function of the student's comes back as a handle: each call is one round trip
            return remote.get(self._lazy_name.rpartition(".")[2], attr)
        return getattr(importlib.import_module(self._lazy_name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._lazy_name!r}>"


def lazy_import(name: str) -> Any:
    """``lazy_import("exercises.ex02_loop").run_loop(...)`` imports the module at that call."""
    return LazyModule(name)


class ExerciseFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: ``exercises.exNN_*`` is imported from ``modules`` (module name -> file)
    and from nowhere else; ``package=True`` also provides the ``exercises`` package itself (the sandbox,
    where there is no ``exercises`` folder)."""

    def __init__(self, modules: dict[str, str], package: bool = False, compiled: dict | None = None) -> None:
        self.modules, self.package, self.compiled = modules, package, compiled or {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "exercises" and self.package:
            return importlib.util.spec_from_loader("exercises", loader=None, is_package=True)
        match = _EXERCISE.fullmatch(fullname)
        if not match:
            return None
        file = self.modules.get(match[1])
        if file is None:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        code = self.compiled.get(file)
        if code is None:
            return importlib.util.spec_from_file_location(fullname, file)
        return importlib.util.spec_from_file_location(fullname, file, loader=_Compiled(fullname, file, code))


class _Compiled(importlib.machinery.SourceFileLoader):
    """A module file's loader whose code was compiled ahead (the same ``compile`` the import system runs)."""

    def __init__(self, fullname: str, path: str, code) -> None:
        super().__init__(fullname, path)
        self.code = code

    def get_code(self, fullname: str):
        return self.code
