"""`agentlab serve` moves answers to its thread pool when the policy waits, not when the machine is busy (issue 22)."""

import asyncio
import json
import threading
import time

import pytest

from agentlab.sim import asgi_app
from agentlab.sim.asgi_app import SimApp
from agentlab.sim.models.slow import Latency
from agentlab.sim.server import Simulator

BODY = json.dumps(
    {"model": "claude-sonnet-4-6", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
).encode()
SCOPE = {
    "type": "http",
    "method": "POST",
    "raw_path": b"/v1/messages",
    "query_string": b"",
    "headers": [
        (b"host", b"sim"),
        (b"anthropic-version", b"2026-10-21"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(BODY)).encode()),
    ],
}


def answer_n(app: SimApp, n: int) -> list[int]:
    """Send ``n`` requests through the ASGI app; the statuses."""
    statuses = []

    async def receive():
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    async def run():
        for _ in range(n):
            await app(dict(SCOPE), receive, send)

    # a thread of its own: an earlier test in this process (a notebook client, say) may have left an event
    # loop registered as running in the main thread, and asyncio.run refuses to start inside one
    done = threading.Thread(target=asyncio.run, args=(run(),), daemon=True)
    done.start()
    done.join(120)
    app.close()
    assert not done.is_alive(), "the ASGI app did not answer within 120 s"
    return statuses


def test_a_policy_that_sleeps_moves_answers_to_the_pool():
    app = SimApp(Simulator(Latency(seconds=asgi_app.WAITING_S * 2)))
    assert answer_n(app, asgi_app.WAITS_IN_A_ROW + 2) == [200] * (asgi_app.WAITS_IN_A_ROW + 2)
    assert app.threaded


def test_answers_that_are_only_slow_stay_on_the_loop(monkeypatch):
    """Slow in wall time but never blocked (as when preempted on a busy machine): no hand-off to threads."""
    clock = iter(range(0, 10_000_000, 1))
    monkeypatch.setattr(
        asgi_app.time, "perf_counter", lambda: next(clock) * asgi_app.WAITING_S * 4
    )  # every answer "took" long
    monkeypatch.setattr(asgi_app, "_thread_clock", lambda: (0.0, 7))  # little CPU, no voluntary switch
    app = SimApp(Simulator())
    assert answer_n(app, asgi_app.WAITS_IN_A_ROW + 3) == [200] * (asgi_app.WAITS_IN_A_ROW + 3)
    assert not app.threaded


@pytest.mark.skipif(asgi_app.RUSAGE_THREAD is None, reason="per-thread context switches are read on Linux only")
def test_the_thread_clock_counts_a_sleep_as_blocking_and_a_busy_loop_as_not():
    cpu0, switches0 = asgi_app._thread_clock()
    time.sleep(0.01)
    cpu1, switches1 = asgi_app._thread_clock()
    assert switches1 > switches0
    end = time.perf_counter() + 5  # bounded: 10 ms of CPU takes longer only on a machine many times oversubscribed
    while asgi_app._thread_clock()[0] - cpu1 < 0.01 and time.perf_counter() < end:
        pass
    cpu2, switches2 = asgi_app._thread_clock()
    assert switches2 - switches1 <= 1  # a busy loop, preempted or not, does not block (one switch of slack)
