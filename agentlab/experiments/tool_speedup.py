"""Parallel vs serial tool calls (course 3.5): N independent slow calls in one turn.

Run one after another they take N times one call; run concurrently, about one call. ``time_turn``
times one executor on one turn of N ``slow_lookup`` calls, with real sleeps (benchmark and
notebook only; tests pass a ``sleep`` that does not wait).
"""

from __future__ import annotations

import time
from typing import Callable

from agentlab.executor import Executor
from agentlab.tools import Tool, tool
from agentlab.views.i18n import localize


def slow_tool(seconds: float, sleep: Callable[[float], None] = time.sleep) -> Tool:
    """``slow_lookup(key)``: waits ``seconds`` (a remote service), then returns the key's value."""

    @tool(name="slow_lookup")
    def slow_lookup(key: int) -> dict:
        """Look up a value by key (slow: a remote service).

        Args:
            key: Which value.
        """
        sleep(seconds)
        return {"key": key, "value": key * key}

    return slow_lookup


def turn_of(n: int) -> list[dict]:
    """One assistant turn asking for ``slow_lookup`` with keys 0..n-1."""
    return [{"type": "tool_use", "id": f"toolu_{i:02d}", "name": "slow_lookup", "input": {"key": i}} for i in range(n)]


def time_turn(executor: Executor, n: int, seconds: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds ``executor`` takes to answer one turn of ``n`` slow calls."""
    tool_ = slow_tool(seconds)
    t0 = clock()
    results = executor(turn_of(n), [tool_])
    assert len(results) == n and not any(r.get("is_error") for r in results)
    return clock() - t0


def speedups(ns=range(1, 9), seconds: float = 0.1) -> list[dict]:
    """Per N: serial and parallel wall seconds, measured in this run, and their ratio."""
    rows = []
    for n in ns:
        serial = time_turn(Executor(), n, seconds)
        parallel = time_turn(Executor(parallel=True), n, seconds)
        rows.append({"n": n, "serial_s": serial, "parallel_s": parallel, "speedup": serial / parallel})
    return rows


def plot_speedup(rows: list[dict]):
    """Measured speed-up against N, with the ideal line (speed-up = N) and a value label per point."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.6), constrained_layout=True)
    ns = [r["n"] for r in rows]
    ax.plot(ns, ns, "--", color="#999999", label="ideal (= N)")
    ax.plot(ns, [r["speedup"] for r in rows], "o-", color="#0072B2", label="measured")
    for r in rows:
        ax.annotate(
            f"{r['speedup']:.1f}x",
            (r["n"], r["speedup"]),
            textcoords="offset points",
            xytext=(0, 6),
            ha="center",
            fontsize=8,
        )
    ax.set_xlabel("independent slow tool calls in one turn (N)")
    ax.set_ylabel("speed-up (serial s / parallel s)")
    ax.legend(fontsize=8)
    return localize(fig)
