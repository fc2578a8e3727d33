"""Trusted work a graded test needs, done once per grading process instead of once per test.

Some tests compare a submission with something the grader works out itself: exercise 3.3 runs every
task variant as agent and as workflow to know which design is cheapest; 11.1 and 11.2 run the
reference guard over the injection suite. The gradebook tears down every fixture after each test
(``agentlab.grading.runner``), so a ``scope="module"`` fixture there is recomputed for every test, for
every student.
Decorate such a computation (no arguments, a value of plain data) with ``@shared`` in the
instructor's test module and call it from the test::

    @shared
    def reference_rows():
        return [row_of(r) for r in run_suite(GUARD)]

The worker calls every ``@shared`` function once after collecting the tests and before it forks
(``compute_all``), so every fork inherits the value; plain ``make grade`` computes it on first use.
Only the trusted side runs it, before any submission is graded, and its value depends on nothing a
submission contains: a shared function that touches an exercise module fails in the worker (nothing
of a student's is importable there), is left uncomputed, and runs inside each test as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FUNCTIONS: dict[str, Callable[[], Any]] = {}
_VALUES: dict[str, Any] = {}


def shared(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn()`` computed at most once per process; later calls return that first value."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    _FUNCTIONS[key] = fn

    def once() -> Any:
        if key not in _VALUES:
            _VALUES[key] = fn()
        return _VALUES[key]

    once.__name__, once.__doc__, once.__wrapped__ = fn.__name__, fn.__doc__, fn  # type: ignore[attr-defined]
    return once


def compute_all() -> list[str]:
    """Compute every registered function not yet computed; return ``"name: error"`` for each that failed."""
    failed = []
    for key, fn in list(_FUNCTIONS.items()):
        if key not in _VALUES:
            try:
                _VALUES[key] = fn()
            except Exception as e:  # noqa: BLE001 - the test computes it itself, and fails there if it must
                failed.append(f"{key}: {type(e).__name__}: {e}")
    return failed
