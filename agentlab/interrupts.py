"""Ctrl-C (SIGINT) and SIGTERM still end a run with a ``stop`` event in its trace.

Python turns SIGINT into ``KeyboardInterrupt``; SIGTERM, by default, kills the process with no
chance to write anything. ``stop_on_signals`` makes SIGTERM raise ``Terminated`` for the length of
a run (main thread only: Python allows signal handlers nowhere else), and writes
``stop reason="interrupted"`` naming the signal before the exception goes on up.

A run in another thread gets no signal: Ctrl-C interrupts the main thread, which may then end the
program while the run's (daemon) thread is still going. So every run inside ``stop_on_signals`` is
registered, and at interpreter exit any still without its ``stop`` gets one
(``reason="interrupted"``, ``detail`` saying the process exited), written from the exiting thread
(traces are thread-safe).

SIGTERM, which would kill the process before any exit hook, gets the same: when this module is imported
in the main thread and SIGTERM still has Python's default (kill), a handler is installed that writes
the ``stop`` for every registered run, in any thread, then restores the default and sends SIGTERM
again, so the process still ends exactly as it would have (killed by SIGTERM, status -15). A handler
someone else installed is left alone. A run in the main thread replaces it for its length (above).
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import weakref
from contextlib import contextmanager
from typing import Iterator

from agentlab.run import StopReason


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during a run (a ``KeyboardInterrupt`` so code that handles Ctrl-C handles it too)."""


def _raise_terminated(signum, frame):  # noqa: ARG001
    raise Terminated("SIGTERM")


_running: "weakref.WeakSet" = weakref.WeakSet()
"""The traces of runs inside ``stop_on_signals`` right now, in any thread."""


def stop_unfinished_runs() -> int:
    """Write ``stop reason="interrupted"`` into every registered run's trace that has none; how many (run at exit)."""
    stopped = 0
    for trace in list(_running):
        if not trace.stopped:
            try:
                trace.stop(
                    StopReason.INTERRUPTED.value,
                    detail="the process exited while this run was still going (in a thread no signal reaches)",
                )
                stopped += 1
            except Exception:  # noqa: BLE001 -- at exit, one broken trace must not keep the others from their stop
                pass
    return stopped


atexit.register(stop_unfinished_runs)


def _stop_runs_then_die(signum, frame):  # noqa: ARG001
    """Default SIGTERM, after every registered run has its ``stop`` (the runs are in other threads)."""
    for trace in list(_running):
        if not trace.stopped:
            try:
                trace.stop(
                    StopReason.INTERRUPTED.value,
                    signal="SIGTERM",
                    detail="SIGTERM ended the process while this run was going in another thread",
                )
            except Exception:  # noqa: BLE001 -- one broken trace must not keep the others from their stop
                pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
    signal.signal(signal.SIGTERM, _stop_runs_then_die)


_main_runs = 0
"""How many runs are inside ``stop_on_signals`` in the main thread now (stepped runs interleave, e.g. a batch)."""
_before_runs = None
"""The SIGTERM handler the outermost of them replaced, put back when the last of them ends."""


@contextmanager
def stop_on_signals(trace) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM write the trace's ``stop`` event, then propagate; in any thread, an
    exit of the process before the run ends writes it too.

    Main-thread runs are counted rather than nested: runs stepped side by side (``run_batched``) end in any
    order, so the handler from before the first of them comes back when the last one ends."""
    global _main_runs, _before_runs
    main = threading.current_thread() is threading.main_thread()
    if main:
        if _main_runs == 0:
            _before_runs = signal.signal(signal.SIGTERM, _raise_terminated)
        _main_runs += 1
    _running.add(trace)
    try:
        yield
    except KeyboardInterrupt as e:
        if not trace.stopped:
            trace.stop(StopReason.INTERRUPTED.value, signal="SIGTERM" if isinstance(e, Terminated) else "SIGINT")
        raise
    finally:
        _running.discard(trace)
        if main:
            _main_runs -= 1
            # a generator closed by the garbage collector may end here in another thread, where no handler can be set
            if _main_runs == 0 and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, _before_runs)
