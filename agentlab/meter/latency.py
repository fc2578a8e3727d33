"""Time per turn: the simulator's simulated latency when there is one, else the measured round trip.

The simulator reports how long each response *would* have taken (``agentlab-simulated-latency-ms``
header, from assumed per-model rates: ``agentlab/sim/data/latency.json``); live runs have no such
header, and their measured wall time is the latency. ``Turn.latency_s`` is whichever applies.
"""

from __future__ import annotations

from typing import Any, Mapping

from agentlab.api.wire import LATENCY_HEADER


def latency_of(headers: Mapping[str, str]) -> float | None:
    """Seconds from a response's simulated-latency header, or ``None`` when it has none (a live response)."""
    value = headers.get(LATENCY_HEADER)
    return None if value is None else float(value) / 1000


def cumulative(values: list[float]) -> list[float]:
    """Running totals: ``[a, a+b, a+b+c, ...]``."""
    out, total = [], 0.0
    for v in values:
        total += v
        out.append(total)
    return out


def latency_table(run: Any) -> list[dict]:
    """One row per turn of ``run``: turn, input/cached/output tokens, latency (s) and running total (s)."""
    times = cumulative([t.latency_s for t in run.turns])
    return [
        {
            "turn": t.index,
            "input tokens": t.input_tokens,
            "cache read tokens": t.cache_read_tokens,
            "output tokens": t.output_tokens,
            "latency (s)": round(t.latency_s, 3),
            "elapsed (s)": round(c, 3),
        }
        for t, c in zip(run.turns, times)
    ]
