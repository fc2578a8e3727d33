"""The grade report: written by the pytest plugin (``--grade-json PATH``), read by the gradebook.

JSON layout (``GradeReport.to_dict``)::

    {"complete": true,
     "total": {"earned": 5, "possible": 8},
     "exercises": {"1.1": {"earned": 2, "possible": 2}, ...},
     "tests": [{"nodeid": ..., "name": ..., "exercise": "1.1", "points": 2, "earned": 2,
                "outcome": "passed", "reason": ""}, ...],
     "load_errors": [{"nodeid": "exercises/tests/test_ex03_x.py", "reason": "SyntaxError: ..."}]}
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class GradedTest:
    """One graded test, i.e. one test carrying ``@pytest.mark.points(n)``."""

    nodeid: str
    """pytest node id, e.g. ``exercises/tests/test_ex02_loop.py::test_stops``."""
    name: str
    """Test name as shown in the table (the node id without the file)."""
    exercise: str
    """Exercise id from ``@pytest.mark.exercise("2.1")``."""
    points: float
    """Points the test is worth."""
    earned: float = 0
    """Points earned: all of ``points`` if the test passed, else 0."""
    outcome: str = "not run"
    """``passed``, ``failed``, ``error`` (setup/teardown), ``skipped`` or ``not run``."""
    reason: str = ""
    """One readable line saying why the points were lost; empty when passed."""
    detail: str = ""
    """The whole failure message and a short traceback ending at the student's frame; empty when passed."""


@dataclass
class GradeReport:
    """Every graded test of one pytest run, plus test files that could not be loaded."""

    tests: list[GradedTest] = field(default_factory=list)
    """Graded tests in collection order."""
    load_errors: list[dict[str, str]] = field(default_factory=list)
    """Test files that failed to import: ``{"nodeid": ..., "reason": ...}``."""
    complete: bool = False
    """True once the session finished; False in the snapshots written after each test."""

    def exercises(self) -> dict[str, tuple[float, float]]:
        """Exercise id -> (earned, possible), in natural exercise order."""
        sums: dict[str, tuple[float, float]] = {}
        for t in self.tests:
            earned, possible = sums.get(t.exercise, (0, 0))
            sums[t.exercise] = (earned + t.earned, possible + t.points)
        return {ex: sums[ex] for ex in sorted(sums, key=exercise_key)}

    def total(self) -> tuple[float, float]:
        """(earned, possible) over all graded tests."""
        return sum(t.earned for t in self.tests), sum(t.points for t in self.tests)

    def to_dict(self) -> dict:
        earned, possible = self.total()
        return {
            "complete": self.complete,
            "total": {"earned": earned, "possible": possible},
            "exercises": {ex: {"earned": e, "possible": p} for ex, (e, p) in self.exercises().items()},
            "tests": [asdict(t) for t in self.tests],
            "load_errors": list(self.load_errors),
        }

    @classmethod
    def from_dict(cls, data: dict) -> GradeReport:
        return cls(
            tests=[GradedTest(**t) for t in data.get("tests", [])],
            load_errors=list(data.get("load_errors", [])),
            complete=bool(data.get("complete", False)),
        )

    def write(self, path: Path) -> None:
        """Write atomically, so a run killed mid-write leaves the previous snapshot intact."""
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        os.replace(tmp, path)

    @classmethod
    def read(cls, path: Path) -> GradeReport:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


def exercise_key(exercise: str) -> list:
    """Natural sort key: "2.10" after "2.9"."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", exercise)]


def fmt_points(value: float) -> str:
    """3.0 -> "3", 2.5 -> "2.5"."""
    return f"{value:g}"
