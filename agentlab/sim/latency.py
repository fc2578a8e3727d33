"""Simulated latency: how long a response would have taken, from its usage, without waiting for it.

    latency = time to first token
            + (input_tokens + cache_creation_input_tokens) / prefill rate   # tokens processed afresh
            + cache_read_input_tokens / (prefill rate * cached speed-up)     # tokens read from the cache
            + output_tokens / decode rate                                    # tokens written one by one

Rates per model family are in ``data/latency.json`` and are **assumptions** (Anthropic publishes no
tokens-per-second figures; the file says what each number rests on). The simulator sends the result
in the ``agentlab-simulated-latency-ms`` response header and, when its clock can be advanced
(:class:`~agentlab.sim.clock.SimClock`), moves its clock on by that much: simulated time passes,
nothing sleeps.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def latency_facts() -> dict:
    """``data/latency.json``: per-family rates, the cached speed-up, and what they rest on."""
    return json.loads(resources.files("agentlab.sim").joinpath("data/latency.json").read_text("utf-8"))


@lru_cache(maxsize=256)
def rates(model: str) -> dict:
    """The rate row for ``model`` (``ttft_s``, ``prefill_tps``, ``decode_tps``, ``family``, ``status``)."""
    facts = latency_facts()
    for row in facts["families"]:
        if any(model.startswith(p) for p in row["prefixes"]):
            return row
    return facts["fallback"]


def simulated_latency_s(model: str, usage: dict) -> float:
    """Seconds a response with this ``usage`` would take on ``model`` under the assumed rates."""
    r = rates(model)
    fresh = (usage.get("input_tokens") or 0) + (usage.get("cache_creation_input_tokens") or 0)
    cached = usage.get("cache_read_input_tokens") or 0
    speedup = latency_facts()["cached_prefill_speedup"]["value"]
    return (
        r["ttft_s"]
        + fresh / r["prefill_tps"]
        + cached / (r["prefill_tps"] * speedup)
        + (usage.get("output_tokens") or 0) / r["decode_tps"]
    )
