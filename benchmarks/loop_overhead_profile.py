"""Where agentlab's per-turn time goes, over a plain SDK loop (diagnostics for ``loop_overhead.py``).

    python benchmarks/loop_overhead_profile.py            # N = 5, 20, 100; cProfile at N=100 (~15 s)
    python benchmarks/loop_overhead_profile.py --quick    # smoke run: N = 5, 20, one rep (~3 s)

Same variants, transport and clocks as ``loop_overhead.py`` (``_bench_common.py``). Three views:

- function calls per run (cProfile's count, deterministic): agentlab+trace minus plain, per added
  turn; constant means agentlab's own per-turn work does not grow with history;
- cProfile attribution of agentlab+trace's extra time to its parts (trace events, tool execution,
  Meter, SDK middleware path), and the functions with the most extra own time;
- what-if, without a profiler: agentlab's costs removed one after the other (the trace file, the
  Meter's own work, then the worker thread each timed tool call runs on), next to two floors: a plain
  loop with a do-nothing SDK middleware (any loop metered by SDK middleware pays at least that) and a
  plain loop whose transport reads each request's and response's JSON, the least a Meter moved from
  the middleware onto the transport would do (the request arrives there as bytes, the whole history
  re-sent, so reading it grows with the history). (Price lookups and a
  jsonschema validator per tool call are no longer what-ifs: agentlab prices lazily on
  ``Turn.cost_usd`` and compiles each tool's validator once, so neither happens in the loop.)
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from _bench_common import (
    MAX_TOKENS,
    MODEL,
    TASK,
    TOOLS,
    PassThrough,
    Variant,
    agentlab_loop,
    banner,
    make_variants,
    parse_args,
    plain_loop,
    warm,
)

import agentlab
from agentlab.executor import Executor


class NullMeter(agentlab.Meter):
    """A Meter that records nothing (what-if only): agentlab finds it, but it does no work per call; the loop's
    look-up of each reply's record gets one empty record, made once."""

    EMPTY = agentlab.CallRecord(
        model="",
        usage={"input_tokens": 0, "output_tokens": 0},
        stop_reason=None,
        wall_s=0.0,
        continues=False,
        estimated=True,
    )

    def handle(self, request, call_next):  # type: ignore[override]
        return call_next(request)

    def record_of(self, message_id):  # type: ignore[override]
        return self.EMPTY


class ReadingTransport(httpx2.BaseTransport):
    """A transport that parses each call's request and response JSON and passes the call on (what-if only): what a
    Meter on the transport must do before it can read the first message, the reply re-sent and the usage."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        json.loads(request.read())
        response = self.inner.handle_request(request)
        json.loads(response.read())
        return response


def call_counts(by: dict[str, Variant], ns: tuple[int, ...]) -> None:
    """Function calls per run of agentlab+trace beyond plain; per-turn work that walks the history grows faster than N."""
    total: dict[tuple[str, int], int] = {}
    middleware = Variant("plain+middleware", plain_loop, [PassThrough()])
    middleware.run(ns[0])  # warm: imports and SDK caches, as warm() does for the others
    for name, variant in (("plain", by["plain"]), ("agentlab+trace", by["agentlab+trace"]), ("mw", middleware)):
        for n in ns:
            prof = cProfile.Profile()
            variant.run(n, prof)
            total[(name, n)] = pstats.Stats(prof).total_calls  # type: ignore[attr-defined]
    extra = {n: total[("agentlab+trace", n)] - total[("plain", n)] for n in ns}
    steps = [(a, b, (extra[b] - extra[a]) / (b - a)) for a, b in zip(ns, ns[1:])]
    print("\nFunction calls per run (cProfile count; deterministic): agentlab+trace minus plain")
    print("  " + ", ".join(f"N={n}: plain {total[('plain', n)]}, extra {extra[n]:+d}" for n in ns))
    n = max(ns)
    sdk, own = (total[("mw", n)] - total[("plain", n)]) / n, (total[("agentlab+trace", n)] - total[("mw", n)]) / n
    print(
        f"  per turn at N={n}: {extra[n] / n:+.0f} calls = {sdk:+.0f} on the SDK's middleware path (a do-nothing "
        f"middleware adds them: the client's headers rebuilt per call) {own:+.0f} agentlab's own (loop, Meter, trace, tools)"
    )
    print("  extra calls per added turn: " + ", ".join(f"N {a}->{b}: {d:+.1f}" for a, b, d in steps), end="")
    if len(steps) < 2:
        print(" (three values of N are needed to tell growth; run without --quick)")
        return
    constant = max(d for *_, d in steps) - min(d for *_, d in steps) <= 0.01 * max(abs(d) for *_, d in steps)
    print(
        " -> constant per turn: agentlab does no per-turn work of its own that grows with history"
        if constant
        else " -> NOT constant: agentlab's per-turn work grows with history"
    )


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


def profile(by: dict[str, Variant], n: int, runs: int) -> None:
    """cProfile (CPU time) of agentlab+trace and plain at ``n``: agentlab's extra time, part by part."""
    names = ("plain", "agentlab+trace")
    for name in names:
        by[name].run(n)  # warm
    stats: list[pstats.Stats] = []
    for name in names:
        prof = cProfile.Profile(time.process_time)  # CPU time: other processes' load does not land on random functions
        for _ in range(runs):
            by[name].run(n, prof)
        stats.append(pstats.Stats(prof))
    (sp, tot_p), (sa, tot_a) = ((s.stats, s.total_tt) for s in stats)  # type: ignore[attr-defined]
    diff, turns = tot_a - tot_p, n * runs
    per = lambda secs: secs / turns * 1e6  # noqa: E731  (us per turn)
    find = lambda s, suffix, name: next(
        (
            k
            for k in s
            if k[0].replace(os.sep, "/").endswith(suffix)  # noqa: E731
            and k[2] == name
        ),
        None,
    )
    cum = lambda s, key: s[key][3] if key is not None else 0.0  # noqa: E731
    edge = lambda s, callee, caller: (
        s[callee][4].get(caller, (0, 0, 0, 0.0))[3]  # noqa: E731
        if callee is not None and caller is not None
        else 0.0
    )  # callee's time from caller
    print(f"\ncProfile, agentlab+trace vs plain, N={n}, {runs} runs each (the profiler inflates call-heavy code, so")
    print("the absolute numbers are high; the what-if below measures the same items without a profiler)")
    print(
        f"  profiled time per turn: plain {per(tot_p):.1f} us, agentlab+trace {per(tot_a):.1f} us, "
        f"difference {per(diff):.1f} us"
    )
    handle = find(sa, "agentlab/meter/middleware.py", "handle")
    trace_event, trace_stop = find(sa, "agentlab/trace.py", "event"), find(sa, "agentlab/trace.py", "stop")
    hook = lambda name: find(sa, "agentlab/harness.py", name)  # noqa: E731
    executor = find(sa, "agentlab/executor.py", "__call__")  # the tool itself runs on a worker: cProfile sees the wait
    wave, one = find(sa, "agentlab/executor.py", "_run_wave"), find(sa, "agentlab/executor.py", "_one")
    meter_own = cum(sa, handle) - sum(
        edge(sa, k, handle)
        for k in sa  # minus call_next and the SDK's cached parse
        if "anthropic" in Path(k[0]).parts
    )
    rows: list[tuple[str, float]] = [
        (
            "Harness.before_call (harness.py: guards, the request for this turn) excl. its trace event",
            cum(sa, hook("before_call")) - edge(sa, trace_event, hook("before_call")),
        ),
        (
            "Harness.after_call (harness.py: the reply as JSON, the meter's record, budgets) excl. its trace event",
            cum(sa, hook("after_call")) - edge(sa, trace_event, hook("after_call")),
        ),
        (
            "Executor (executor.py: one turn's tool calls) excl. its trace events",
            cum(sa, executor) - edge(sa, trace_event, executor),
        ),
        (
            "  of which the hand-over to a kept worker thread and the wait (the default timeout needs one)",
            cum(sa, wave) - edge(sa, one, wave),
        ),
        (
            "Trace.event (trace.py _write: JSON encode + write; flush before request/tool_call)",
            cum(sa, trace_event) - edge(sa, trace_event, trace_stop),
        ),
        (
            "Trace.__init__ + stop (open, header, stop event, close), once per run",
            cum(sa, find(sa, "agentlab/trace.py", "__init__")) + cum(sa, trace_stop),
        ),
        ("Harness.run (harness.py: the Run from the held records), once per run", cum(sa, hook("run"))),
        (
            "Meter.handle own work (meter/middleware.py; excl. call_next and the SDK's cached response.parse())",
            meter_own,
        ),
        (
            "SDK messages.create with middleware vs plain's without (excl. Meter's own work)",
            cum(sa, find(sa, "anthropic/resources/messages/messages.py", "create"))
            - meter_own
            - cum(sp, find(sp, "anthropic/resources/messages/messages.py", "create")),
        ),
    ]
    print(
        f"  {'where agentlab+trace spends time that plain does not':<90} {'us/turn':>8} {'% of diff':>9}"
        f" {'% of agentlab':>13}"
    )
    for label, secs in rows:
        share = f"{secs / diff * 100:>8.1f}%" if diff > 0 else f"{'n/a':>9}"
        print(f"  {label:<90} {per(secs):>8.1f} {share} {secs / tot_a * 100:>12.1f}%")
    growth = sorted(((v[2] - sp.get(k, (0, 0, 0.0))[2], k) for k, v in sa.items()), reverse=True)[:10]
    print("  functions with the most extra own time (tottime, agentlab+trace minus plain; us/turn):")
    for secs, key in growth:
        print(f"    {per(secs):>7.1f}  {_where(key)}")


def what_if(by: dict[str, Variant], ns: tuple[int, ...], reps: int, clock: str) -> None:
    """Remove agentlab's costs one at a time (cumulatively) and measure again, without a profiler."""
    null_meter = Variant("agentlab(null meter)", lambda c, n: agentlab_loop(c, n, None), [NullMeter()])
    passthrough = Variant("plain+middleware", plain_loop, [PassThrough()])
    reading = Variant("plain+reading transport", plain_loop, wrap=ReadingTransport)
    inline = Variant(
        "agentlab(null meter, tools inline)",
        lambda c, n: (
            agentlab.run_agent(
                c,
                TASK,
                TOOLS,
                model=MODEL,
                max_turns=n,
                max_tokens=MAX_TOKENS,
                executor=Executor(default_timeout_s=None),
            ).stop_reason.value
        ),
        [NullMeter()],
    )
    steps: list[tuple[str, Variant]] = [
        ("agentlab+trace as is", by["agentlab+trace"]),
        (" - trace file (trace=None)", by["agentlab"]),
        (" - Meter's own work (a Meter that records nothing)", null_meter),
        (" - the tool's worker thread (no timeout: tools run inline)", inline),
        ("reference: plain loop + a do-nothing SDK middleware", passthrough),
        ("reference: plain loop + a transport reading the JSON", reading),
    ]
    for n in ns:
        null_meter.run(n), inline.run(n), passthrough.run(n), reading.run(n)  # warm
    base: dict[int, list[float]] = {n: [] for n in ns}
    runs: dict[tuple[int, int], list[float]] = {(i, n): [] for i in range(len(steps)) for n in ns}
    order = list(range(len(steps)))
    shuffle = random.Random(7).shuffle
    for _ in range(reps):
        for n in ns:
            shuffle(order)
            base[n].append(statistics.fmean(by["plain"].run(n)[clock]))
            for i in order:
                runs[(i, n)].append(statistics.fmean(steps[i][1].run(n)[clock]))
    print("\nWhat-if, no profiler: agentlab's costs removed one after the other (cumulative), in this process only")
    print(
        f"(agentlab's files are untouched); ratio to plain and extra us/turn over plain, {clock} clock, median of {reps} reps"
    )
    print(f"  {'step':<58}" + "".join(f" {f'N={n}':>17}" for n in ns))
    for i, (label, _) in enumerate(steps):
        cells = []
        for n in ns:
            p, x = statistics.median(base[n]), statistics.median(runs[(i, n)])
            cells.append(f"{x / p:.3f}x ({(x - p) * 1e6:+6.1f})")
        print(f"  {label:<58}" + "".join(f" {c:>17}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    args, ns, reps = parse_args(argv, __doc__.splitlines()[0], 4, extra_quick=", one profiled run")
    started = time.perf_counter()
    banner("agentlab loop overhead, where the time goes", ns, reps, args.clock)
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-") as tmp:
        variants = make_variants(Path(tmp))
        by = {v.name: v for v in variants}
        warm(variants, ns)
        call_counts(by, ns)
        profile(by, max(ns), runs=1 if args.quick else 2)
        what_if(by, ns, reps, args.clock)
    print(f"\ntotal time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
