"""A class room for the gateway tests: a gateway on a temporary ledger, its upstream the simulator seen
through a recorder, served on loopback (the ``room`` fixture in conftest.py)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import anthropic
import httpx2

from agentlab.gateway.app import Gateway
from agentlab.gateway.serve import Running, sim_upstream
from agentlab.gateway.store import Store

KEY = "sk-ant-api03-" + "InstructorKey" * 6 + "-tail"
"""The instructor's key the gateway forwards with (fake: the upstream is the simulator)."""
ORG = "org-instructors-own-0000"
"""The organization id the upstream names in every answer, as the real API does."""


class Upstream(httpx2.AsyncBaseTransport):
    """The simulator as the gateway's upstream, keeping every request it got and every body it answered."""

    def __init__(self) -> None:
        self.inner = sim_upstream()
        self.requests: list[httpx2.Request] = []
        self.answers: list[bytes] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.requests.append(request)
        response = await self.inner.handle_async_request(request)
        self.answers.append(await response.aread())
        headers = [*response.headers.raw, (b"anthropic-organization-id", ORG.encode())]  # as the real API sends it
        return httpx2.Response(response.status_code, headers=headers, content=self.answers[-1])


class Wire(httpx2.BaseTransport):
    """A student's transport to the gateway that keeps the bytes sent and received."""

    def __init__(self) -> None:
        self.inner = httpx2.HTTPTransport()
        self.sent: list[bytes] = []
        self.headers: list[httpx2.Headers] = []
        self.received: list[bytes] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(request.read())
        self.headers.append(request.headers)
        response = self.inner.handle_request(request)
        self.received.append(response.read())
        return httpx2.Response(response.status_code, headers=response.headers, content=self.received[-1])


@dataclass
class Class:
    """A running gateway and what a test needs around it."""

    gateway: Gateway
    running: Running
    upstream: Upstream
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def store(self) -> Store:
        return self.gateway.store

    def client(self, name: str = "ann", **options) -> tuple[anthropic.Anthropic, Wire]:
        wire = Wire()
        key = self.tokens.get(name, name)
        client = anthropic.Anthropic(
            api_key=key, base_url=self.running.url, http_client=httpx2.Client(transport=wire), **options
        )
        return client, wire


def open_room(tmp_path):
    """A gateway with students ann and bob (day $0.50, term $2.00), upstream the simulator (a generator)."""
    upstream = Upstream()
    gateway = Gateway(Store(tmp_path / "class.sqlite"), upstream, "http://upstream.test", KEY)
    tokens = {n: gateway.store.add_student(n, 0.50, 2.00) for n in ("ann", "bob")}
    running = Running(gateway)
    yield Class(gateway, running, upstream, tokens)
    running.stop()
    gateway.store.close()


ASK = [{"role": "user", "content": "What is the temperature in Paris today?"}]
MODEL = "claude-haiku-4-5"


def wait_settled(store: Store, rows: int) -> None:
    """Wait until ``rows`` ledger rows are settled: a stream is settled after its last event went out, so a
    student's SDK may be done reading before the gateway has written its row (bounded: 5 s)."""
    for _ in range(500):
        if store._db.execute("SELECT COUNT(*) FROM ledger WHERE status IS NOT NULL").fetchone()[0] >= rows:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"fewer than {rows} ledger rows settled within 5 s")


def run_async(make_coroutine):
    """``asyncio.run(make_coroutine())`` on a thread of its own: a test run earlier in this worker (a browser's,
    a kernel's) may have left an event loop running on the main thread, where ``asyncio.run`` refuses."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append(asyncio.run(make_coroutine())))
    thread.start()
    thread.join(60)
    assert out, "the coroutine raised or did not finish within 60 s (its traceback is above)"
    return out[0]
