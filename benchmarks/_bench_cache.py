"""The loop benchmark's caching-on variant: how much of a turn is the ledger's (the Meter's) own work.

``run_agent(..., cache=True)`` on the same instant canned transport as the other variants, with a
Meter that times its own work (everything in its ``handle`` except the SDK call it wraps). The canned
responses report cache reads and writes in their usage, as a cached run's do. Target (issue 11): the
Meter's own time stays within 5% of the loop's per-turn time with caching on.
"""

from __future__ import annotations

import json
import statistics
import time

from _bench_common import MODEL, TOOLS, CannedModel, Variant, make_client

import agentlab

LEDGER_TARGET = 0.05


class CachedCannedModel(CannedModel):
    """The canned model, with usage as a cached run reports it (reads, writes, the 5m/1h split)."""

    def _body(self, k: int, n: int) -> bytes:
        body = json.loads(super()._body(k, n))
        total = body["usage"]["input_tokens"]
        read = 0 if k == 1 else total - 60
        body["usage"].update(
            input_tokens=0,
            cache_read_input_tokens=read,
            cache_creation_input_tokens=total - read,
            cache_creation={"ephemeral_5m_input_tokens": total - read, "ephemeral_1h_input_tokens": 0},
        )
        return json.dumps(body).encode()


class OwnTimeMeter(agentlab.Meter):
    """agentlab's Meter, unchanged, timing its own work (its ``handle`` minus the wrapped call)."""

    def __init__(self) -> None:
        super().__init__()
        self.own: list[float] = []

    def handle(self, request, call_next):  # type: ignore[override]
        inner = 0.0

        def timed(req):
            nonlocal inner
            t = time.process_time()
            try:
                response = call_next(req)
                if response.http_response.is_success:
                    response.parse()  # the SDK's own (cached) parse: SDK time, not the Meter's
                return response
            finally:
                inner = time.process_time() - t

        t0 = time.process_time()
        try:
            return super().handle(request, timed)
        finally:
            self.own.append(time.process_time() - t0 - inner)


def ledger_share(n: int, reps: int) -> tuple[float, float, float]:
    """Median over reps of (per-turn seconds, Meter's own seconds per turn, share) with caching on (CPU clock)."""
    meter = OwnTimeMeter()
    v = Variant(
        "agentlab+cache",
        lambda c, k: (
            agentlab.run_agent(
                c, "Call the noop tool until told to stop.", TOOLS, model=MODEL, max_turns=k, cache=True
            ).stop_reason.value
        ),
    )
    v.handler = CachedCannedModel()  # swap in the cached usage and a client whose Meter times itself
    v.client = make_client(v.handler, [meter])
    v.run(n)  # warm up
    turn, own = [], []
    for _ in range(reps):
        meter.own = []
        times = v.run(n)["cpu"]
        turn.append(statistics.fmean(times))
        own.append(statistics.fmean(meter.own))
    t, o = statistics.median(turn), statistics.median(own)
    return t, o, o / t


def report(ns: tuple[int, ...], reps: int) -> None:
    print(f"\nCaching on (run_agent(cache=True), cached usage in every response; cpu clock, median of {reps}):")
    for n in ns:
        t, o, share = ledger_share(n, reps)
        verdict = "within target" if share <= LEDGER_TARGET else f"over target: {share:.1%} > {LEDGER_TARGET:.0%}"
        print(
            f"N={n:<3} cache on: per turn {t * 1e6:.1f} us, ledger (Meter) {o * 1e6:.1f} us = {share:.1%} of the turn: {verdict}"
        )
