"""How much does agentlab's loop add per turn, over a plain SDK while-loop doing the same turns?

    python benchmarks/loop_overhead.py            # full run: N = 5, 20, 100, median of 9 reps (~45 s)
    python benchmarks/loop_overhead.py --quick    # smoke run: N = 5, 20, one rep, no profile (~3 s)

Both sides use the real ``anthropic.Anthropic`` client over the same trivial transport: an
``httpx2.MockTransport`` that answers instantly with canned Messages API JSON (``tool_use`` of a
``noop`` tool on turns 1..N-1, ``end_turn`` text on turn N, with ``usage``). agentlab's simulator is
*not* used, so nothing here measures it. Variants, interleaved in a new order for every N and rep:

- ``plain``: ``while reply.stop_reason == "tool_use"``: append the assistant content (as dicts), run
  ``noop``, append one user message with a ``tool_result`` per ``tool_use``, call again. Same model,
  messages, tools and max_tokens as agentlab; a first run checks every variant sends identical bodies.
- ``agentlab+trace``: ``agentlab.run_agent`` on a client with ``middleware=[agentlab.Meter()]``,
  writing its JSONL trace to a fresh temp file (metering and tracing are part of agentlab's work).
- ``agentlab``: the same with ``trace=None``.
- ``plain(objects)``: the plain loop keeping the SDK's content blocks in the history (for information).

Both loops re-send the growing history, so both get slower per turn as N grows (the SDK copies and
encodes the whole history each call); the ratio and the per-turn *difference* isolate agentlab's own
work. The transport handler timestamps every request, so each turn (request k to request k+1) is
timed; early vs late turns at N=100, each turn split into the SDK call and the loop's own code, and
deterministic function-call counts at each N show whether agentlab's own per-turn work grows with
history. When agentlab is over target, a cProfile breakdown and a profiler-free what-if (agentlab's
costs removed one by one by patching it in this process only) say where its time goes.

Clock: each turn is timed in process CPU time (``time.process_time``, user + system) by default, so
other processes on the same cores do not land in the numbers; wall-clock ratios are printed too
(``--clock wall`` makes wall time the primary clock).

This is a measurement, not a test: it prints the numbers and a verdict per N and exits 0 whatever
they say. Target (from the issue): agentlab per-turn time <= 1.10x the plain loop at every N.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import itertools
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import anthropic
import httpx2

import agentlab

TARGET = 1.10
MODEL = "claude-sonnet-4-6"  # priced by genai-prices, not on the SDK's deprecation list (no warning per call)
MAX_TOKENS = 1024
TASK = "Call the noop tool until you are told to stop, then say done."
BASE_URL = "https://bench.invalid"
FULL_NS = (5, 20, 100)
QUICK_NS = (5, 20)
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
EARLY = (2, 11)     # turn windows for the slope (inclusive); turn 1 includes set-up,
LATE_OFFSET = 10    # the last turn includes the run's finalisation, so both are left out


@agentlab.tool
def noop() -> str:
    """Do nothing and report that nothing was done."""
    return "ok"


TOOLS = [noop]
TOOL_SPECS = [t.spec() for t in TOOLS]
FUNCTIONS: dict[str, Callable[..., Any]] = {t.name: t.fn for t in TOOLS}


# --------------------------------------------------------------------------------------------
# The trivial transport: canned JSON, instantly, with a timestamp per request.
# --------------------------------------------------------------------------------------------

class CannedModel:
    """``httpx2.MockTransport`` handler: ``tool_use`` for turns 1..N-1, ``end_turn`` at turn N."""

    _runs = itertools.count(1)  # shared by every handler: no two runs in the process report the same usage

    def __init__(self) -> None:
        self.n = 0
        self.requests = 0
        self.stamps: list[tuple[float, float]] = []  # (wall, cpu) at each request
        self.bodies: list[bytes] = []
        self.capture = False
        self.captured: list[bytes] = []
        self._run = 0

    def reset(self, n: int) -> None:
        """Prepare a run of ``n`` turns: zero the request count, pre-encode every response.

        Usage grows with the turn like a real conversation and differs between all runs of the
        process (whatever the variant), so work keyed on it (agentlab caches prices by token
        counts) is never flattered by hitting a cache filled by an earlier run's identical numbers.
        """
        self._run = next(self._runs)
        self.n, self.requests = n, 0
        self.stamps = []
        self.captured = []
        self.bodies = [self._body(k, n) for k in range(1, n + 1)]

    def _body(self, k: int, n: int) -> bytes:
        if k < n:
            content = [{"type": "tool_use", "id": f"toolu_bench_{k:04d}", "name": "noop", "input": {}}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": "Done: noop was called as asked."}]
            stop = "end_turn"
        return json.dumps({
            "id": f"msg_bench_{k:04d}", "type": "message", "role": "assistant", "model": MODEL,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 600 + 40 * k + self._run, "output_tokens": 12 + k % 7,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "service_tier": "standard"},
        }).encode()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.stamps.append((time.perf_counter(), time.process_time()))
        self.requests += 1
        if self.capture:
            self.captured.append(request.read())
        if self.requests > self.n:
            return httpx2.Response(500, json={"type": "error", "error": {"type": "api_error",
                                                                           "message": "benchmark: too many requests"}})
        return httpx2.Response(200, content=self.bodies[self.requests - 1],
                               headers={"content-type": "application/json"})


class PassThrough(anthropic.Middleware):
    """A middleware that does nothing: what the SDK's middleware path costs by itself."""

    def handle(self, request, call_next):  # type: ignore[override]
        return call_next(request)


class NullMeter(agentlab.Meter):
    """A Meter that records nothing (what-if only): agentlab finds it, but it does no work per call."""

    def handle(self, request, call_next):  # type: ignore[override]
        return call_next(request)


def make_client(handler: CannedModel, middleware: list[Any] | None = None) -> anthropic.Anthropic:
    extra: dict[str, Any] = {"middleware": middleware} if middleware else {}
    return anthropic.Anthropic(api_key="x", base_url=BASE_URL, max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), **extra)


# --------------------------------------------------------------------------------------------
# The two loops.
# --------------------------------------------------------------------------------------------

def plain_loop(client: anthropic.Anthropic, max_turns: int, *, as_objects: bool = False) -> str | None:
    """The course's loop on the bare SDK: re-send history until the model stops asking for tools.

    The assistant content goes into the history as plain dicts (``to_dict()``), like agentlab's, so
    the SDK encodes the same data the same way in both loops. ``as_objects=True`` keeps the SDK's
    content blocks instead (the docs idiom), which makes the SDK dump every block of the history
    again on every call: more re-send work, not agentlab's, reported for information only.
    """
    messages: list[dict] = [{"role": "user", "content": TASK}]
    reply = client.messages.create(model=MODEL, max_tokens=MAX_TOKENS, messages=messages, tools=TOOL_SPECS)
    turns = 1
    while reply.stop_reason == "tool_use" and turns < max_turns:
        messages.append({"role": "assistant",
                         "content": reply.content if as_objects else [b.to_dict() for b in reply.content]})
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": FUNCTIONS[b.name](**b.input)}
                   for b in reply.content if b.type == "tool_use"]
        messages.append({"role": "user", "content": results})
        reply = client.messages.create(model=MODEL, max_tokens=MAX_TOKENS, messages=messages, tools=TOOL_SPECS)
        turns += 1
    return reply.stop_reason


def agentlab_loop(client: anthropic.Anthropic, max_turns: int, trace: Path | None) -> str | None:
    run = agentlab.run_agent(client, TASK, TOOLS, model=MODEL, max_turns=max_turns, max_tokens=MAX_TOKENS,
                             trace=trace)
    return run.stop_reason.value


class Variant:
    def __init__(self, name: str, fn: Callable[[anthropic.Anthropic, int], str | None],
                 middleware: list[Any] | None = None, before: Callable[[], Any] | None = None) -> None:
        self.name, self.fn, self.before = name, fn, before
        self.handler = CannedModel()
        self.client = make_client(self.handler, middleware)

    def run(self, n: int, profiler: cProfile.Profile | None = None) -> dict[str, list[float]]:
        """One run of ``n`` turns: per clock, the seconds of each turn (request k to k+1; last: to return)."""
        self.handler.reset(n)
        if self.before is not None:
            self.before()
        gc.collect()
        if profiler is not None:
            profiler.enable()
        try:
            t0 = (time.perf_counter(), time.process_time())
            stop = self.fn(self.client, n + 1)  # allow one more turn than the script: the model ends it
            t1 = (time.perf_counter(), time.process_time())
        finally:
            if profiler is not None:
                profiler.disable()
        if stop != "end_turn" or self.handler.requests != n:
            raise RuntimeError(f"{self.name}: expected {n} turns ending in end_turn, got {self.handler.requests}"
                               f" requests ending in {stop}")
        bounds = [t0, *self.handler.stamps[1:], t1]
        return {clock: [b[i] - a[i] for a, b in zip(bounds, bounds[1:])] for i, clock in enumerate(("wall", "cpu"))}


class TraceFiles:
    """A fresh trace file per run (the previous one is deleted before the next run starts).

    Overwriting one path costs more on some filesystems (ext4 flushes a truncated-and-rewritten
    file on close); a new file per run is the cheaper, common case.
    """

    def __init__(self, folder: Path, prefix: str = "trace") -> None:
        self.folder, self.prefix, self.count = folder, prefix, 0
        self.path = folder / f"{prefix}-0.jsonl"

    def next(self) -> None:
        self.path.unlink(missing_ok=True)
        self.count += 1
        self.path = self.folder / f"{self.prefix}-{self.count}.jsonl"


def make_variants(tmp: Path) -> list[Variant]:
    traces = TraceFiles(tmp)
    return [
        Variant("plain", plain_loop),
        Variant("agentlab+trace", lambda c, n: agentlab_loop(c, n, traces.path), [agentlab.Meter()], before=traces.next),
        Variant("agentlab", lambda c, n: agentlab_loop(c, n, None), [agentlab.Meter()]),
        Variant("plain(objects)", lambda c, n: plain_loop(c, n, as_objects=True)),
    ]


def wire_check(variants: list[Variant], n: int = 5) -> str:
    """Run each variant once, capturing request bodies; say whether they match the plain loop's."""
    bodies = {}
    for v in variants:
        v.handler.capture = True
        try:
            v.run(n)
            bodies[v.name] = [json.loads(b) for b in v.handler.captured]
        finally:
            v.handler.capture = False
    ref = bodies["plain"]
    bad = [name for name, b in bodies.items() if b != ref]
    if bad:
        return f"wire check: request bodies DIFFER from the plain loop's for {', '.join(bad)} (comparison unfair)"
    return f"wire check: all variants sent identical request bodies ({n} turns, {len(ref[-1]['messages'])} messages at the end)"


# --------------------------------------------------------------------------------------------
# Measurement and report.
# --------------------------------------------------------------------------------------------

Data = dict[tuple[str, int], list[dict[str, list[float]]]]


def measure(variants: list[Variant], ns: tuple[int, ...], reps: int) -> Data:
    """``(variant, n) -> [{clock: per-turn seconds} of each rep]``, variants interleaved, in a new order each time."""
    out: Data = {(v.name, n): [] for v in variants for n in ns}
    order = list(variants)
    shuffle = random.Random(20240601).shuffle
    for rep in range(reps):
        for n in ns:
            shuffle(order)  # no variant always runs first, or always after the same one
            for v in order:
                out[(v.name, n)].append(v.run(n))
    return out


def per_turn_mean(data: Data, name: str, n: int, clock: str) -> float:
    """Median over reps of the run's mean seconds per turn."""
    return statistics.median(statistics.fmean(r[clock]) for r in data[(name, n)])


def per_turn_profile(data: Data, name: str, n: int, clock: str) -> list[float]:
    """Median over reps of each turn's seconds."""
    return [statistics.median(col) for col in zip(*(r[clock] for r in data[(name, n)]))]


def report(data: Data, ns: tuple[int, ...], reps: int, clock: str) -> list[tuple[int, float, float]]:
    us = 1e6
    other = "wall" if clock == "cpu" else "cpu"
    print()
    print(f"Per-turn mean time in us ({clock} clock), median of {reps} rep(s); ratio = agentlab / plain;"
          f" extra = agentlab+trace - plain")
    print(f"{'N':>5} {'plain':>9} {'agentlab+trace':>15} {'ratio':>8} {'agentlab(trace=None)':>21} {'ratio':>8}"
          f" {'extra':>8}  {f'ratios ({other})':>15}  {'plain(objects)*':>15}")
    ratios = []
    for n in ns:
        p, at, an, po = (per_turn_mean(data, v, n, clock) for v in ("plain", "agentlab+trace", "agentlab", "plain(objects)"))
        p2, at2, an2 = (per_turn_mean(data, v, n, other) for v in ("plain", "agentlab+trace", "agentlab"))
        ratios.append((n, at / p, an / p))
        print(f"{n:>5} {p * us:>9.1f} {at * us:>15.1f} {at / p:>7.3f}x {an * us:>21.1f} {an / p:>7.3f}x"
              f" {(at - p) * us:>8.1f}  {f'{at2 / p2:.3f}x/{an2 / p2:.3f}x':>15}  {po * us:>15.1f}")
    print("  * plain(objects): the plain loop keeping the SDK's content blocks in the history (docs idiom); the SDK")
    print("    then re-dumps every block of the history on every call. Not the reference: it sends the same bytes")
    print("    but does more re-send work than either loop with dict history.")
    print()
    for n, rt, rn in ratios:
        verdict = "within target" if rt <= TARGET else f"over target: {rt:.2f}x > {TARGET:.2f}x"
        other = "within target" if rn <= TARGET else f"over target: {rn:.2f}x > {TARGET:.2f}x"
        print(f"N={n:<3} ratio {rt:.3f}x (agentlab+trace vs plain): {verdict}   [trace=None: ratio {rn:.3f}x, {other}]")
    return ratios


def slope(data: Data, n: int, clock: str) -> bool:
    lo_a, lo_b = EARLY
    hi_a, hi_b = n - LATE_OFFSET, n - 1
    print()
    if hi_a <= lo_b:
        print(f"Slope: needs N >= {lo_b + LATE_OFFSET + 2} (run without --quick); skipped (see the call counts below).")
        return False
    print(f"Slope at N={n}: time per turn on early turns {lo_a}-{lo_b} vs late turns {hi_a}-{hi_b} (us, {clock}; each turn's")
    print("median over reps, averaged over the window; turn k = request k to request k+1, timed in the transport)")
    print(f"  {'variant':<16} {'early':>9} {'late':>9} {'late-early':>11} {'per turn of history':>20}")
    win = lambda xs, a, b: statistics.fmean(xs[a - 1:b]) * 1e6  # noqa: E731
    span = (hi_a + hi_b) / 2 - (lo_a + lo_b) / 2
    rows = {name: per_turn_profile(data, name, n, clock)
            for name in ("plain", "agentlab+trace", "agentlab", "plain(objects)")}
    for name, xs in rows.items():
        e, l_ = win(xs, lo_a, lo_b), win(xs, hi_a, hi_b)
        print(f"  {name:<16} {e:>9.1f} {l_:>9.1f} {l_ - e:>+11.1f} {(l_ - e) / span:>+17.3f} us")
    for name in ("agentlab+trace", "agentlab"):
        extra = [a - b for a, b in zip(rows[name], rows["plain"])]
        e, l_ = win(extra, lo_a, lo_b), win(extra, hi_a, hi_b)
        print(f"  extra of {name:<16} over plain: early {e:+6.1f} us/turn, late {l_:+6.1f} us/turn"
              f" ({(l_ - e) / span:+.3f} us per turn of history)")
    return True


def _flat(early: float, late: float) -> bool:
    return abs(late - early) <= max(0.10 * abs(early), 5.0)


class TimedMeter(agentlab.Meter):
    """agentlab's Meter, unchanged, timing its own work (everything in ``handle`` but ``call_next``)."""

    def __init__(self) -> None:
        super().__init__()
        self.own: list[float] = []

    def handle(self, request, call_next):  # type: ignore[override]
        inner = 0.0

        def timed_next(req):
            nonlocal inner
            t = time.process_time()
            try:
                return call_next(req)
            finally:
                inner = time.process_time() - t

        t0 = time.process_time()
        try:
            return super().handle(request, timed_next)
        finally:
            self.own.append(time.process_time() - t0 - inner)


def split(n: int, reps: int, tmp: Path) -> None:
    """Each turn split into the SDK call (``messages.create``) and the loop's own code around it (CPU time).

    The loop's own code is the time from one ``create`` returning to the next one starting, plus, for
    agentlab, its Meter's own work inside the call. If it stays flat from early to late turns while
    the SDK part grows, the growth is the SDK re-sending the history, not agentlab.
    """
    traces = TraceFiles(tmp, "split")
    meter = TimedMeter()
    pair = [Variant("plain", plain_loop), Variant("plain+middleware", plain_loop, [PassThrough()]),
            Variant("agentlab+trace", lambda c, k: agentlab_loop(c, k, traces.path), [meter], before=traces.next)]
    spans: dict[str, list[tuple[float, float]]] = {}
    for v in pair:
        create, name = v.client.messages.create, v.name

        def timed(*a: Any, _create=create, _name=name, **k: Any) -> Any:
            t = time.process_time()
            try:
                return _create(*a, **k)
            finally:
                spans[_name].append((t, time.process_time()))

        v.client.messages.create = timed  # type: ignore[method-assign]
    own: dict[str, list[list[float]]] = {v.name: [] for v in pair}
    sdk: dict[str, list[list[float]]] = {v.name: [] for v in pair}
    for _ in range(reps + 1):  # the first round warms up and is dropped
        for v in pair:
            spans[v.name], meter.own = [], []
            v.run(n)
            s = spans[v.name]
            m = meter.own if v.name == "agentlab+trace" else [0.0] * len(s)
            own[v.name].append([s[k + 1][0] - s[k][1] + m[k + 1] for k in range(n - 1)])  # turn k+1 = 1-based k+1
            sdk[v.name].append([s[k + 1][1] - s[k + 1][0] - m[k + 1] for k in range(n - 1)])
    lo_a, lo_b = EARLY
    hi_a, hi_b = n - LATE_OFFSET, n - 1
    win = lambda rows, a, b: statistics.fmean(  # noqa: E731
        statistics.median(col) for col in list(zip(*rows))[a - 2:b - 1]) * 1e6
    print(f"  Each turn split (cpu, median of {reps} reps, us): the loop's own code (from one messages.create returning")
    print("  to the next starting, plus agentlab's Meter's own work) and the SDK call (messages.create minus the Meter):")
    print(f"  {'':<18} {'own early':>10} {'own late':>9} {'SDK early':>10} {'SDK late':>9}")
    cell: dict[str, tuple[float, float, float, float]] = {}
    for v in pair:
        o, d = own[v.name], sdk[v.name]
        cell[v.name] = (win(o, lo_a, lo_b), win(o, hi_a, hi_b), win(d, lo_a, lo_b), win(d, hi_a, hi_b))
        print(f"  {v.name:<18}" + "".join(f" {x:>9.1f} " for x in cell[v.name]))
    oe, ol, se, sl = cell["agentlab+trace"]
    pe, pl_, pse, psl = cell["plain"]
    me, ml = cell["plain+middleware"][2:]
    print(f"  -> agentlab's own code per turn: {oe:.1f} us early, {ol:.1f} us late: "
          + ("flat, no per-turn work of its own that grows with history" if _flat(oe, ol)
             else f"GROWS by {ol - oe:+.1f} us over {hi_a - lo_a} turns of history"))
    print(f"  -> inside the SDK call, agentlab's turns take {se - pse:+.1f} us early and {sl - psl:+.1f} us late over plain's;"
          f" a do-nothing middleware: {me - pse:+.1f} / {ml - psl:+.1f} us")


def call_counts(variants: list[Variant], ns: tuple[int, ...]) -> None:
    """Function calls per run (cProfile's count: deterministic, unlike time) of agentlab+trace beyond plain.

    If agentlab did per-turn work that walks the history, its extra calls would grow faster than N.
    """
    by = {v.name: v for v in variants}
    total: dict[tuple[str, int], int] = {}
    for name in ("plain", "agentlab+trace"):
        for n in ns:
            prof = cProfile.Profile()
            by[name].run(n, prof)
            total[(name, n)] = pstats.Stats(prof).total_calls  # type: ignore[attr-defined]
    extra = {n: total[("agentlab+trace", n)] - total[("plain", n)] for n in ns}
    steps = [(a, b, (extra[b] - extra[a]) / (b - a)) for a, b in zip(ns, ns[1:])]
    print()
    print("Function calls per run (cProfile count; deterministic): agentlab+trace minus plain")
    print("  " + ", ".join(f"N={n}: plain {total[('plain', n)]}, extra {extra[n]:+d}" for n in ns))
    print("  extra calls per added turn: " + ", ".join(f"N {a}->{b}: {d:+.1f}" for a, b, d in steps), end="")
    if len(steps) < 2:
        print(" (three values of N are needed to tell growth; run without --quick)")
        return
    constant = max(d for *_, d in steps) - min(d for *_, d in steps) <= 0.01 * max(abs(d) for *_, d in steps)
    print(" -> constant per turn: agentlab does no per-turn work of its own that grows with history" if constant
          else " -> NOT constant: agentlab's per-turn work grows with history")


# --------------------------------------------------------------------------------------------
# Profile: where agentlab's per-turn time goes.
# --------------------------------------------------------------------------------------------

def _profile(v: Variant, n: int, runs: int) -> pstats.Stats:
    prof = cProfile.Profile(time.process_time)  # CPU time: other processes' load does not land on random functions
    for _ in range(runs):
        v.run(n, prof)
    return pstats.Stats(prof)


def _where(key: tuple[str, int, str]) -> str:
    file, line, name = key
    if file == "~":
        return name
    parts = Path(file).parts
    for root in ("agentlab", "anthropic", "httpx2", "pydantic", "jsonschema", "genai_prices", "json"):
        if root in parts:
            i = len(parts) - 1 - parts[::-1].index(root)
            return f"{'/'.join(parts[i:])}:{line}({name})"
    return f"{Path(file).name}:{line}({name})"


def _find(stats: pstats.Stats, file_suffix: str, name: str) -> tuple | None:
    for key in stats.stats:  # type: ignore[attr-defined]
        if key[0].replace(os.sep, "/").endswith(file_suffix) and key[2] == name:
            return key
    return None


def _edge(stats: pstats.Stats, callee: tuple | None, caller: tuple | None) -> float:
    """Cumulative seconds ``callee`` spent when called from ``caller``."""
    if callee is None or caller is None:
        return 0.0
    return stats.stats[callee][4].get(caller, (0, 0, 0, 0.0))[3]  # type: ignore[attr-defined]


def _cum(stats: pstats.Stats, key: tuple | None) -> float:
    return stats.stats[key][3] if key is not None else 0.0  # type: ignore[attr-defined]


def profile(variants: list[Variant], n: int, runs: int) -> None:
    by = {v.name: v for v in variants}
    v_plain, v_agent = by["plain"], by["agentlab+trace"]
    for v in (v_plain, v_agent):
        v.run(n)  # warm
    sp, sa = _profile(v_plain, n, runs), _profile(v_agent, n, runs)
    turns = n * runs
    tot_p, tot_a = sp.total_tt, sa.total_tt  # type: ignore[attr-defined]
    diff = tot_a - tot_p
    per = lambda secs: secs / turns * 1e6  # noqa: E731  (us per turn)
    print()
    print(f"cProfile, agentlab+trace vs plain, N={n}, {runs} runs each (the profiler inflates call-heavy code, so")
    print("the absolute numbers are high; the what-if below measures the same items without a profiler)")
    print(f"  profiled time per turn: plain {per(tot_p):.1f} us, agentlab+trace {per(tot_a):.1f} us, "
          f"difference {per(diff):.1f} us")

    run_agent = _find(sa, "agentlab/loop.py", "run_agent")
    handle = _find(sa, "agentlab/accounting.py", "handle")
    trace_event = _find(sa, "agentlab/trace.py", "event")
    trace_init = _find(sa, "agentlab/trace.py", "__init__")
    trace_stop = _find(sa, "agentlab/trace.py", "stop")
    execute = _find(sa, "agentlab/loop.py", "execute_tools")
    run_tool = _find(sa, "agentlab/tools.py", "run_tool")
    turns_fn = _find(sa, "agentlab/accounting.py", "turns")
    cost = _find(sa, "agentlab/accounting.py", "cost_usd")
    results = _find(sa, "agentlab/loop.py", "_results")
    create_a = _find(sa, "anthropic/resources/messages/messages.py", "create")
    create_p = _find(sp, "anthropic/resources/messages/messages.py", "create")

    meter_own = _cum(sa, handle) - sum(_edge(sa, k, handle) for k in sa.stats  # type: ignore[attr-defined]
                                       if "anthropic" in Path(k[0]).parts)  # minus call_next (the SDK)
    rows: list[tuple[str, float]] = [
        ("Meter.turns, end of run (accounting.py) -> cost_usd -> genai-prices, 1 price per turn",
         _edge(sa, cost, turns_fn)),
        ("  Meter.turns, rest (building the Turn list)", _cum(sa, turns_fn) - _edge(sa, cost, turns_fn)),
        ("Trace.event (trace.py _write: json.dumps(sort_keys) + write + flush), 4 events/turn",
         _cum(sa, trace_event) - _edge(sa, trace_event, trace_stop)),
        ("Trace.__init__ + stop (open, header, stop event, close), once per run",
         _cum(sa, trace_init) + _cum(sa, trace_stop)),
        ("execute_tools (loop.py) excl. its trace events",
         _cum(sa, execute) - _edge(sa, trace_event, execute)),
        ("  of which run_tool excl. the tool: a new jsonschema validator per call (tools.py)",
         _cum(sa, run_tool) - _cum(sa, _find(sa, "loop_overhead.py", "noop"))),
        ("Meter.handle own work (accounting.py; excl. call_next)", meter_own),
        ("  of which response.http_response.json() (parses every response a second time)",
         sum(_edge(sa, k, handle) for k in sa.stats if k[2] == "json" and "httpx2" in Path(k[0]).parts)),  # type: ignore[attr-defined]
        ("model_dump of content + usage in run_agent (loop.py)",
         sum(_edge(sa, k, run_agent) for k in sa.stats if k[2] == "model_dump")),  # type: ignore[attr-defined]
        ("_results (loop.py), once per run", _cum(sa, results)),
        ("SDK messages.create with middleware vs plain's without (excl. Meter's own work)",
         _cum(sa, create_a) - meter_own - _cum(sp, create_p)),
    ]
    print(f"  {'where agentlab+trace spends time that plain does not':<90} {'us/turn':>8} {'% of diff':>9}"
          f" {'% of agentlab':>13}")
    for label, secs in rows:
        share = f"{secs / diff * 100:>8.1f}%" if diff > 0 else f"{'n/a':>9}"
        print(f"  {label:<90} {per(secs):>8.1f} {share} {secs / tot_a * 100:>12.1f}%")

    own_p = {k: v[2] for k, v in sp.stats.items()}  # type: ignore[attr-defined]
    growth = sorted(((v[2] - own_p.get(k, 0.0), k) for k, v in sa.stats.items()),  # type: ignore[attr-defined]
                    reverse=True)[:10]
    print("  functions with the most extra own time (tottime, agentlab+trace minus plain; us/turn):")
    for secs, key in growth:
        print(f"    {per(secs):>7.1f}  {_where(key)}")


# --------------------------------------------------------------------------------------------
# What-if: the same measurement with one agentlab cost removed (patched in this process only).
# --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def _no_price_lookup():
    """``Meter.turns`` gets ``cost_usd = None`` without calling genai-prices (as if pricing were lazy)."""
    import agentlab.accounting as acc
    saved = acc.cost_usd
    acc.cost_usd = lambda model, usage: None  # type: ignore[assignment]
    try:
        yield
    finally:
        acc.cost_usd = saved


@contextlib.contextmanager
def _cached_validator():
    """``run_tool`` reuses one jsonschema validator per schema instead of building one per call."""
    import types

    import jsonschema

    import agentlab.tools as tl
    cache: dict[int, Any] = {}

    def validator(schema: dict) -> Any:
        v = cache.get(id(schema))
        if v is None:
            v = cache[id(schema)] = jsonschema.Draft202012Validator(schema)
        return v

    saved = tl.jsonschema
    tl.jsonschema = types.SimpleNamespace(Draft202012Validator=validator,  # type: ignore[assignment]
                                          ValidationError=jsonschema.ValidationError)
    try:
        yield
    finally:
        tl.jsonschema = saved


def what_if(variants: list[Variant], ns: tuple[int, ...], reps: int, clock: str) -> None:
    """Remove agentlab's costs one at a time (cumulatively) and measure again, without a profiler."""
    by = {v.name: v for v in variants}
    plain, traced, untraced = by["plain"], by["agentlab+trace"], by["agentlab"]
    null_meter = Variant("agentlab(null meter)", lambda c, n: agentlab_loop(c, n, None), [NullMeter()])
    passthrough = Variant("plain+middleware", plain_loop, [PassThrough()])
    steps: list[tuple[str, Variant, list[Callable[[], Any]]]] = [
        ("agentlab+trace as is", traced, []),
        (" - price lookups (cost_usd -> None, accounting.py)", traced, [_no_price_lookup]),
        (" - new jsonschema validator per call (cached, tools.py)", traced, [_no_price_lookup, _cached_validator]),
        (" - trace file (trace=None)", untraced, [_no_price_lookup, _cached_validator]),
        (" - Meter's own work (a Meter that records nothing)", null_meter, [_no_price_lookup, _cached_validator]),
        ("reference: plain loop + a do-nothing SDK middleware", passthrough, []),
    ]
    for n in ns:
        null_meter.run(n), passthrough.run(n)  # warm
    base: dict[int, list[float]] = {n: [] for n in ns}
    runs: dict[tuple[int, int], list[float]] = {(i, n): [] for i in range(len(steps)) for n in ns}
    order = list(range(len(steps)))
    shuffle = random.Random(7).shuffle
    for _ in range(reps):
        for n in ns:
            shuffle(order)
            base[n].append(statistics.fmean(plain.run(n)[clock]))
            for i in order:
                _, variant, patches = steps[i]
                with contextlib.ExitStack() as stack:
                    for patch in patches:
                        stack.enter_context(patch())
                    runs[(i, n)].append(statistics.fmean(variant.run(n)[clock]))
    print()
    print("What-if, no profiler: agentlab's costs removed one after the other (cumulative), by patching agentlab")
    print(f"in this process only (its files are untouched); ratio to plain and extra us/turn over plain, {clock} clock,")
    print(f"median of {reps} reps")
    print(f"  {'step':<58}" + "".join(f" {f'N={n}':>17}" for n in ns))
    for i, (label, _, _) in enumerate(steps):
        cells = []
        for n in ns:
            p, x = statistics.median(base[n]), statistics.median(runs[(i, n)])
            cells.append(f"{x / p:.3f}x ({(x - p) * 1e6:+6.1f})")
        print(f"  {label:<58}" + "".join(f" {c:>17}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: N = 5, 20, one repetition, no profile")
    ap.add_argument("--reps", type=int, default=None, help="repetitions per N (default 9; 1 with --quick)")
    ap.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                    help="cProfile + what-if when agentlab is over target (auto; never with --quick), always, never")
    ap.add_argument("--clock", choices=tuple(CLOCKS), default="cpu",
                    help="primary clock: process CPU time (default; robust to other load) or wall time")
    args = ap.parse_args(argv)
    try:
        sys.stdout.reconfigure(errors="replace")  # type: ignore[attr-defined]
    except Exception:
        pass
    ns = QUICK_NS if args.quick else FULL_NS
    reps = args.reps or (1 if args.quick else 9)
    started = time.perf_counter()
    print(f"agentlab loop overhead: python {sys.version.split()[0]}, anthropic {anthropic.__version__}, "
          f"httpx2 {httpx2.__version__}, {os.cpu_count()} cpu(s); N = {', '.join(map(str, ns))}; "
          f"{reps} rep(s); {args.clock} clock; target: agentlab per-turn time <= {TARGET:.2f}x plain")
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-") as tmp:
        variants = make_variants(Path(tmp))
        print(wire_check(variants))
        for v in variants:  # warm-up: imports, price data, SDK caches
            for n in ns[:2]:
                v.run(n)
        data = measure(variants, ns, reps)
        ratios = report(data, ns, reps, args.clock)
        big = max(ns)
        if slope(data, big, args.clock):
            split(big, max(4, reps // 2), Path(tmp))
        call_counts(variants, ns)
        over = any(rt > TARGET for _, rt, _ in ratios)
        if args.profile == "always" or (args.profile == "auto" and over and not args.quick):
            profile(variants, big, runs=2)
            what_if(variants, ns, reps=1 if args.quick else max(3, reps // 2), clock=args.clock)
    print(f"\ntotal benchmark time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
