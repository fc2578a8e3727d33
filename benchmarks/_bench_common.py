"""What the loop-overhead benchmarks share: the trivial transport, the clients, the two loops, a timed run.

Both loops use the real ``anthropic.Anthropic`` client over the same trivial transport: an
``httpx2.MockTransport`` that answers instantly with canned Messages API JSON (``tool_use`` of a
``noop`` tool on turns 1..N-1, ``end_turn`` text on turn N, with ``usage``). agentlab's simulator is
*not* used, so nothing here measures it. Used by ``loop_overhead.py`` (the measurement) and
``loop_overhead_profile.py`` (where the time goes).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import json
import os
import sys
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


@agentlab.tool
def noop() -> str:
    """Do nothing and report that nothing was done."""
    return "ok"


TOOLS = [noop]
TOOL_SPECS = [t.spec() for t in TOOLS]
FUNCTIONS: dict[str, Callable[..., Any]] = {t.name: t.fn for t in TOOLS}


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
        process (whatever the variant), so any work keyed on it (agentlab caches prices by token
        counts, when ``Turn.cost_usd`` is read) is never flattered by an earlier run's identical numbers.
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
        return json.dumps(
            {
                "id": f"msg_bench_{k:04d}",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 600 + 40 * k + self._run,
                    "output_tokens": 12 + k % 7,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "service_tier": "standard",
                },
            }
        ).encode()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.stamps.append((time.perf_counter(), time.process_time()))
        self.requests += 1
        if self.capture:
            self.captured.append(request.read())
        if self.requests > self.n:
            return httpx2.Response(
                500, json={"type": "error", "error": {"type": "api_error", "message": "benchmark: too many requests"}}
            )
        return httpx2.Response(
            200, content=self.bodies[self.requests - 1], headers={"content-type": "application/json"}
        )


class PassThrough(anthropic.Middleware):
    """A middleware that does nothing: what the SDK's middleware path costs by itself."""

    def handle(self, request, call_next):  # type: ignore[override]
        return call_next(request)


def make_client(
    handler: CannedModel, middleware: list[Any] | None = None, wrap: Callable[[Any], Any] | None = None
) -> anthropic.Anthropic:
    """A client over the canned model; ``wrap`` (optional) wraps its transport."""
    extra: dict[str, Any] = {"middleware": middleware} if middleware else {}
    transport: Any = httpx2.MockTransport(handler)
    return anthropic.Anthropic(
        api_key="x",
        base_url=BASE_URL,
        max_retries=0,
        http_client=httpx2.Client(transport=wrap(transport) if wrap else transport),
        **extra,
    )


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
        messages.append(
            {"role": "assistant", "content": reply.content if as_objects else [b.to_dict() for b in reply.content]}
        )
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": FUNCTIONS[b.name](**b.input)}
            for b in reply.content
            if b.type == "tool_use"
        ]
        messages.append({"role": "user", "content": results})
        reply = client.messages.create(model=MODEL, max_tokens=MAX_TOKENS, messages=messages, tools=TOOL_SPECS)
        turns += 1
    return reply.stop_reason


def agentlab_loop(client: anthropic.Anthropic, max_turns: int, trace: Path | None) -> str | None:
    run = agentlab.run_agent(client, TASK, TOOLS, model=MODEL, max_turns=max_turns, max_tokens=MAX_TOKENS, trace=trace)
    return run.stop_reason.value


class Variant:
    """One way of running the task, on its own client and canned model, timed per turn."""

    def __init__(
        self,
        name: str,
        fn: Callable[[anthropic.Anthropic, int], str | None],
        middleware: list[Any] | None = None,
        before: Callable[[], Any] | None = None,
        wrap: Callable[[Any], Any] | None = None,
    ) -> None:
        self.name, self.fn, self.before = name, fn, before
        self.handler = CannedModel()
        self.client = make_client(self.handler, middleware, wrap)

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
            raise RuntimeError(
                f"{self.name}: expected {n} turns ending in end_turn, got {self.handler.requests}"
                f" requests ending in {stop}"
            )
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
    """plain, agentlab+trace (a fresh trace file in ``tmp`` per run), agentlab (trace=None), plain(objects)."""
    traces = TraceFiles(tmp)
    return [
        Variant("plain", plain_loop),
        Variant(
            "agentlab+trace", lambda c, n: agentlab_loop(c, n, traces.path), [agentlab.Meter()], before=traces.next
        ),
        Variant("agentlab", lambda c, n: agentlab_loop(c, n, None), [agentlab.Meter()]),
        Variant("plain(objects)", lambda c, n: plain_loop(c, n, as_objects=True)),
    ]


def warm(variants: list[Variant], ns: tuple[int, ...]) -> None:
    """Run every variant at the first two N once, untimed: imports, SDK caches."""
    for v in variants:
        for n in ns[:2]:
            v.run(n)


def parse_args(
    argv: list[str] | None, description: str, default_reps: int, extra_quick: str = ""
) -> tuple[argparse.Namespace, tuple[int, ...], int]:
    """The flags both scripts share (--quick, --reps, --clock); returns the args, the Ns and the repetitions."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help=f"smoke run: N = 5, 20, one repetition{extra_quick}")
    ap.add_argument(
        "--reps", type=int, default=None, help=f"repetitions per N (default {default_reps}; 1 with --quick)"
    )
    ap.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="cpu",
        help="primary clock: process CPU time (default; robust to other load) or wall time",
    )
    args = ap.parse_args(argv)
    return args, (QUICK_NS if args.quick else FULL_NS), args.reps or (1 if args.quick else default_reps)


def banner(title: str, ns: tuple[int, ...], reps: int, clock: str) -> None:
    """Make stdout survive any encoding, and print the first line: versions, machine, N, reps, clock."""
    try:
        sys.stdout.reconfigure(errors="replace")  # type: ignore[attr-defined]
    except Exception:
        pass
    print(
        f"{title}: python {sys.version.split()[0]}, anthropic {anthropic.__version__}, "
        f"httpx2 {httpx2.__version__}, {os.cpu_count()} cpu(s); N = {', '.join(map(str, ns))}; "
        f"{reps} rep(s); {clock} clock; target: agentlab per-turn time <= {TARGET:.2f}x plain"
    )
