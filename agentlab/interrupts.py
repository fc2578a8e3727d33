"""Ctrl-C (SIGINT) and SIGTERM still end a run with a ``stop`` event in its trace.

Python turns SIGINT into ``KeyboardInterrupt``; SIGTERM, by default, kills the process with no
chance to write anything. ``stop_on_signals`` makes SIGTERM raise ``Terminated`` for the length of
a run (main thread only: Python allows signal handlers nowhere else), and writes
``stop reason="interrupted"`` naming the signal before the exception goes on up.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

from agentlab.run import StopReason


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during a run (a ``KeyboardInterrupt`` so code that handles Ctrl-C handles it too)."""


def _raise_terminated(signum, frame):  # noqa: ARG001
    raise Terminated("SIGTERM")


@contextmanager
def stop_on_signals(trace) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM write the trace's ``stop`` event, then propagate."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if main else None
    try:
        yield
    except KeyboardInterrupt as e:
        if not trace.stopped:
            trace.stop(StopReason.INTERRUPTED.value, signal="SIGTERM" if isinstance(e, Terminated) else "SIGINT")
        raise
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
