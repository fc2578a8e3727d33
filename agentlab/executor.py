"""Running one turn's tool calls: one after another, or concurrently where that is safe.

A model may ask for several tools in one turn. Independent calls (two cities' weather) can run at
the same time: the turn then takes as long as its slowest call instead of the sum. Calls that share
mutable state cannot: if one writes what another reads, running both at once lets the reader see
the old value, and nothing reports an error. ``@tool(reads=..., writes=...)`` declares that state;
the conflict rule below keeps such calls in the order the model wrote them.

Conflict rule: call B (later in the turn) waits for call A when A writes a name B reads or writes,
or A reads a name B writes. Calls are grouped into *waves*; a wave runs concurrently, waves run in
order. ``Executor(parallel=True, respect_state=False)`` is the naive version that ignores the rule.

Every call is answered exactly once, in the order asked, whatever the tool returns. A tool that takes
longer than its ``timeout=`` (or, without one, ``DEFAULT_TIMEOUT_S``) is answered as an ``is_error``
result (its thread cannot be killed; it is abandoned, still running). A result over
``DEFAULT_RESULT_CAP`` characters is answered as an ``is_error`` naming its size and the cap (a
request carrying it could not fit any context window, and past 32 MB the API refuses the whole
request); text UTF-8 cannot encode (a lone surrogate) is sent as a visible ``\\uXXXX`` escape.
Errors come in one of two styles: ``"readable"`` (``run_tool``: what was wrong, what to do) or
``"raw"`` (``run_tool_raw``: the Python traceback).
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from agentlab.hints import hint, result_text
from agentlab.tools import Tool, ToolOutcome, run_tool, run_tool_raw, toolset
from agentlab.trace import Trace

DEFAULT_TIMEOUT_S = 60.0
"""Seconds a tool without ``timeout=`` may take before it is answered as timed out (``Executor.default_timeout_s``)."""
DEFAULT_RESULT_CAP = 1_000_000
"""Characters of a tool result sent to the model at most (``Executor.result_cap``): about 250,000 tokens,
more than any model's context window, so a longer result could never be read whole anyway."""


def escape_unencodable(text: str) -> str:
    """``text`` with every lone surrogate (which UTF-8, the trace and the API cannot carry) as a visible ``\\udXXX``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def conflicts(a: Tool | None, b: Tool | None) -> bool:
    """True when ``b`` must wait for ``a``: one writes state the other reads or writes."""
    if a is None or b is None:
        return False
    return bool(a.writes & (b.reads | b.writes) or a.reads & b.writes)


def waves(calls: list[Tool | None]) -> list[list[int]]:
    """Group call positions into waves: each call goes one wave after the last earlier call it conflicts with."""
    wave_of: list[int] = []
    for i, t in enumerate(calls):
        wave_of.append(max((wave_of[j] + 1 for j in range(i) if conflicts(calls[j], t)), default=0))
    return [[i for i, w in enumerate(wave_of) if w == k] for k in range(max(wave_of, default=-1) + 1)]


def not_run(content: list[dict], stopped: Any, lang: str = "en") -> list[dict]:
    """Answers for tool calls the harness refused to run because a guard stopped the run, in ``lang``
    (``"en"`` or ``"zh"``: the task's language, as the readable errors)."""
    why = hint(
        f"Not run: the harness stopped the run ({stopped.guard} {stopped.observed} over the limit {stopped.limit}).",
        lang,
    )
    return [
        {"type": "tool_result", "tool_use_id": b["id"], "content": why, "is_error": True}
        for b in content
        if b.get("type") == "tool_use"
    ]


@dataclass(frozen=True)
class Executor:
    """Runs the ``tool_use`` blocks of one turn and returns their ``tool_result`` blocks, in order."""

    parallel: bool = False
    """Run calls of one wave concurrently (threads)."""
    respect_state: bool = True
    """Apply the conflict rule; ``False`` (with ``parallel``) runs every call at once, the naive way."""
    errors: str = "readable"
    """``"readable"`` or ``"raw"`` (Python tracebacks), the style of every error the model reads."""
    max_result_chars: int | None = None
    """Cut longer results to this many characters (readable style adds a note saying so)."""
    lang: str = "en"
    """Language of the readable hints the harness adds (``"en"`` or ``"zh"``)."""
    default_timeout_s: float | None = DEFAULT_TIMEOUT_S
    """Seconds a tool without its own ``timeout=`` may take (``None``: unbounded, as before issue 22)."""
    result_cap: int | None = DEFAULT_RESULT_CAP
    """A longer result is answered as ``is_error`` naming its size and this cap (``None``: no cap)."""

    def __post_init__(self) -> None:
        if self.errors not in ("readable", "raw"):
            raise ValueError(f"Executor(errors={self.errors!r}): errors must be 'readable' or 'raw'")
        if self.lang not in ("en", "zh"):
            raise ValueError(f"Executor(lang={self.lang!r}): lang must be 'en' or 'zh'")
        if self.max_result_chars is not None and (
            not isinstance(self.max_result_chars, int) or self.max_result_chars < 1
        ):
            raise ValueError(f"Executor(max_result_chars={self.max_result_chars!r}): give a whole number >= 1, or None")
        if self.result_cap is not None and (
            not isinstance(self.result_cap, int) or isinstance(self.result_cap, bool) or self.result_cap < 1
        ):
            raise ValueError(
                f"Executor(result_cap={self.result_cap!r}): give a whole number of characters >= 1, or None"
            )
        if self.default_timeout_s is not None and (
            isinstance(self.default_timeout_s, bool)
            or not isinstance(self.default_timeout_s, (int, float))
            or not self.default_timeout_s > 0
        ):
            raise ValueError(
                f"Executor(default_timeout_s={self.default_timeout_s!r}): give seconds > 0, e.g. 60, or None"
            )

    def __call__(
        self, content: list[Any], tools: dict[str, Tool] | list[Tool], trace: Trace | None = None, turn: int = 0
    ) -> list[dict]:
        by_name = tools if isinstance(tools, dict) else toolset(tools)
        trace = trace if trace is not None else Trace()
        blocks = [b.model_dump(mode="json", exclude_none=True) if hasattr(b, "model_dump") else b for b in content]
        blocks = [b for b in blocks if b.get("type") == "tool_use"]
        calls = [by_name.get(b["name"]) for b in blocks]
        plan = waves(calls) if self.respect_state else [list(range(len(blocks)))]
        if not self.parallel:
            plan = [[i] for i in range(len(blocks))]
        outcomes: list[ToolOutcome | None] = [None] * len(blocks)
        for wave in plan:
            for i in wave:
                trace.event(
                    "tool_call", turn=turn, id=blocks[i]["id"], name=blocks[i]["name"], input=blocks[i].get("input")
                )
            self._run_wave(wave, blocks, by_name, outcomes)
            for i in wave:
                trace.event(
                    "tool_result",
                    turn=turn,
                    id=blocks[i]["id"],
                    content=outcomes[i].content,
                    is_error=outcomes[i].is_error,
                )
        results = []
        for b, out in zip(blocks, outcomes):
            result = {"type": "tool_result", "tool_use_id": b["id"], "content": out.content}
            if out.is_error:
                result["is_error"] = True
            results.append(result)
        return results

    def _run_wave(self, wave: list[int], blocks: list[dict], by_name: dict[str, Tool], outcomes: list) -> None:
        """Run the calls of one wave, each on a worker thread when concurrent or timed, and wait for each (a call
        alone in its wave is handed over on this thread's core: ``_Workers``)."""
        limits = {i: self._limit(by_name, blocks[i]["name"]) for i in wave}
        if len(wave) == 1 and limits[wave[0]] is None:
            outcomes[wave[0]] = self._one(by_name, blocks[wave[0]])
            return
        here = _where_am_i()  # this thread's core and cores, or None (machinery at the end of this file)
        hold = here is not None and len(wave) == 1  # one call alone: handed over on this thread's core
        try:
            if hold:
                _set_cores({here[0]})
            running = {
                i: _workers.start(
                    lambda i=i: outcomes.__setitem__(i, self._kept(by_name, blocks[i])),
                    core=here[0] if hold else None,
                    cores=here[1] if here else None,
                )
                for i in wave
            }
            t0 = time.monotonic()
            for i, done in running.items():
                limit = limits[i]
                if not done.acquire(timeout=-1 if limit is None else max(0.0, limit - (time.monotonic() - t0))):
                    outcomes[i] = self._timed_out(blocks[i]["name"], limit)
                elif outcomes[i] is None:  # a fault of the harness's own on the worker: answered all the same
                    said = f"{blocks[i]['name']} stopped with RuntimeError: the harness failed to run it"
                    outcomes[i] = ToolOutcome(hint(said, self.lang), True)
        finally:
            if hold:  # its own cores back after a timeout or Ctrl-C too (the builtin first: the least to interrupt)
                try:
                    os.sched_setaffinity(0, here[1])
                except OSError:
                    pass

    def _kept(self, by_name: dict[str, Tool], block: dict) -> ToolOutcome:
        """``_one`` on a kept worker: a tool that ends its thread (``sys.exit()``) is answered as an error, and the
        worker lives on for the next call."""
        try:
            return self._one(by_name, block)
        except BaseException as e:  # noqa: BLE001 (SystemExit from a tool: a worker must outlive any tool)
            try:
                said = f"{type(e).__name__}: {e}"
            except Exception:  # noqa: BLE001 (an exception whose str() raises: Python's own words for it)
                said = f"{type(e).__name__}: <exception str() failed>"
            return ToolOutcome(hint(f"{block['name']} stopped with {said}", self.lang), True)

    def _limit(self, by_name: dict[str, Tool], name: str) -> float | None:
        """Seconds the named tool may take: its own ``timeout=``, else the default (an unknown tool is not run)."""
        t = by_name.get(name)
        return None if t is None else (t.timeout or self.default_timeout_s)

    def _one(self, by_name: dict[str, Tool], block: dict) -> ToolOutcome:
        """One call, capped and made encodable: whatever the tool returned, the run goes on."""
        out = self._call(by_name, block)
        content = out.content if isinstance(out.content, str) else str(out.content)
        if self.result_cap is not None and len(content) > self.result_cap:
            return ToolOutcome(
                hint(
                    f"{block['name']} returned {len(content):,} characters, over the cap of "
                    f"{self.result_cap:,} (Executor(result_cap=...)); return less, e.g. a summary "
                    "or one page of the data",
                    self.lang,
                ),
                True,
            )
        return ToolOutcome(escape_unencodable(content), out.is_error)

    def _call(self, by_name: dict[str, Tool], block: dict) -> ToolOutcome:
        """One call in the chosen error style, its result cut to ``max_result_chars``."""
        name, inp = block["name"], block.get("input")
        if self.errors == "raw":
            out = run_tool_raw(by_name, name, inp)
        else:
            out = run_tool(by_name, name, inp)
            if out.is_error:
                out = ToolOutcome(hint(out.content, self.lang), True)
        if not out.is_error and self.lang != "en":  # a Chinese task reads the course tools' confirmations in Chinese
            out = ToolOutcome(result_text(out.content, self.lang), False)
        cap = self.max_result_chars
        if cap is None or len(out.content) <= cap:
            return out
        note = (
            ""
            if self.errors == "raw"
            else "\n" + hint(f"[truncated: {cap} of {len(out.content)} characters shown]", self.lang)
        )
        return ToolOutcome(out.content[:cap] + note, out.is_error)

    def _timed_out(self, name: str, limit: float) -> ToolOutcome:
        if self.errors == "raw":
            # what Python would print, minus the harness's own frames: no answer names the package's files
            return ToolOutcome(
                f'Traceback (most recent call last):\n  File "<tool {name}>", in {name}\n'
                f"TimeoutError: no answer within {limit:g} s",
                True,
            )
        return ToolOutcome(
            hint(f"{name} did not answer within {limit:g} s and was abandoned; try again", self.lang), True
        )


# The kept worker threads a timed or concurrent call runs on: machinery the lesson above does not need.


class _Workers:
    """Daemon threads kept between tool calls. Starting a thread for every call cost about 400 µs of CPU a
    turn, more than the rest of the harness (``benchmarks/loop_overhead.py``); a kept worker is handed the
    call through its queue. A worker whose call times out is abandoned as before, still running; it rejoins
    the idle ones only if its tool ever returns.

    A caller waiting for one call alone holds itself and the worker on its own core for the hand-over
    (Linux): a worker woken on the other core cost about 50 µs of CPU a call on this 2-core machine, on
    the caller's about 14 µs. Every tool runs on its caller's own cores, as it would on the caller's
    thread: the hand-over pins nothing the tool starts."""

    def __init__(self) -> None:
        self._idle: queue.SimpleQueue = queue.SimpleQueue()

    def start(self, call: Callable[[], None], core: int | None = None, cores: set[int] | None = None) -> threading.Lock:
        """Run ``call`` on an idle worker (a new one if none is idle): woken on ``core`` if given, run on the
        caller's ``cores`` if given; the lock returned is released once it has run."""
        done = threading.Lock()
        done.acquire()
        try:
            inbox, tid = self._idle.get_nowait()
        except queue.Empty:
            inbox, tid = queue.SimpleQueue(), None  # a new thread starts on the caller's cores, held or not
            threading.Thread(target=self._work, args=(inbox,), daemon=True, name="agentlab-tool").start()
        if core is not None and tid is not None:
            _set_cores({core}, tid)
        inbox.put((call, done, cores))
        return done

    def _work(self, inbox: queue.SimpleQueue) -> None:
        me = threading.get_native_id()
        while True:  # a kept daemon worker: one call a round, waiting in between; it ends with the process
            call, done, cores = inbox.get()
            if cores is not None:  # the caller's own cores, before the tool starts anything
                _set_cores(cores)
            try:
                call()  # _kept answers whatever a tool raises
            except BaseException:  # noqa: BLE001 (a fault of ours: the caller finds no outcome and says so)
                pass
            finally:
                self._idle.put((inbox, me))  # before the release: once the caller runs again, this thread only waits
                done.release()


@functools.cache
def _sched_getcpu() -> Callable[[], int] | None:
    """The C library's ``sched_getcpu`` (the core the calling thread is on), or None where there is none."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    import ctypes  # only here: about 2 ms to import, and only Linux gets this far

    try:
        return ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):
        return None


def _where_am_i() -> tuple[int, set[int]] | None:
    """(the core this thread runs on, the cores it may run on), or None where they cannot be read."""
    getcpu = _sched_getcpu()
    if getcpu is None:
        return None
    try:
        core, cores = getcpu(), os.sched_getaffinity(0)
    except OSError:
        return None
    return (core, cores) if core >= 0 else None  # -1: the C library could not say (a seccomp filter, say)


def _set_cores(cores: set[int], tid: int = 0) -> None:
    """Let this thread (or the thread ``tid``) run on ``cores`` only, where the OS lets it be set."""
    with contextlib.suppress(OSError, ValueError):
        os.sched_setaffinity(tid, cores)


_workers = _Workers()
# A forked child (the gradebook forks) has none of its parent's threads: it starts with no idle workers.
os.register_at_fork(after_in_child=lambda: globals().update(_workers=_Workers()))
