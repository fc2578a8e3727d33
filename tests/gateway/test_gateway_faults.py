"""Faults around the gateway: upstream down or slow, a student gone mid-stream, the gateway restarted, a full class at once."""

from __future__ import annotations

import asyncio
import json
import socket
import threading

import anthropic
import httpx2
import pytest
from gateway_room import ASK, KEY, MODEL, Upstream, wait_settled

from agentlab.gateway.app import Gateway
from agentlab.gateway.serve import Running
from agentlab.gateway.store import CHARGED, Store, utc_now
from agentlab.meter.prices import cost_usd


class Failing(httpx2.AsyncBaseTransport):
    def __init__(self, error: Exception) -> None:
        self.error = error

    async def handle_async_request(self, request):
        raise self.error


@pytest.mark.parametrize(
    "fault, status, kind, charged",
    [
        (httpx2.ConnectError("refused"), 502, "api_error", False),
        (httpx2.ConnectTimeout("no route"), 504, "timeout_error", False),
        (httpx2.PoolTimeout("every connection busy"), 504, "timeout_error", False),
        (httpx2.ReadTimeout("slow"), 504, "timeout_error", True),
        (httpx2.ReadError("reset after the request was sent"), 502, "api_error", True),
    ],
)
def test_upstream_down_or_slow_is_answered_in_the_apis_shape_and_charged_only_if_it_was_sent(
    tmp_path, fault, status, kind, charged
):
    """Never connected: the reservation is released. Sent and not answered in time: the API may bill what it
    generates anyway, so the worst case stays charged."""
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    running = Running(Gateway(store, Failing(fault), "http://upstream.test", KEY))
    try:
        answer = httpx2.post(running.url + "/v1/messages", json={"model": MODEL, "max_tokens": 100, "messages": ASK},
                             headers={"x-api-key": token})  # fmt: skip
    finally:
        running.stop()
    assert (answer.status_code, answer.json()["error"]["type"]) == (status, kind)
    assert KEY not in answer.text
    (row,) = store.spend(utc_now())
    (reserved,) = store._db.execute("SELECT reserved_usd FROM ledger").fetchone()
    assert row["requests"] == 1 and row["term_usd"] == (reserved if charged else 0) and reserved > 0


class Dribble(httpx2.AsyncBaseTransport):
    """A stream that sends its message_start, waits until the student is gone, then sends the rest."""

    def __init__(self, gone: threading.Event) -> None:
        self.inner, self.gone = Upstream(), gone

    async def handle_async_request(self, request):
        body = json.loads(request.content)
        whole = await self.inner.handle_async_request(request)
        events = whole.content.split(b"\n\n")
        gone = self.gone

        class Chunks(httpx2.AsyncByteStream):
            async def __aiter__(self):
                yield events[0] + b"\n\n"
                for _ in range(500):  # bounded: up to 5 s for the student to hang up
                    if gone.is_set():
                        break
                    await asyncio.sleep(0.01)
                yield b"\n\n".join(events[1:])

        assert body["stream"] is True
        return httpx2.Response(200, headers=whole.headers, stream=Chunks())


def test_a_student_gone_mid_stream_is_charged_what_the_whole_answer_cost(tmp_path):
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    gone = threading.Event()
    upstream = Dribble(gone)
    running = Running(Gateway(store, upstream, "http://upstream.test", KEY))
    body = json.dumps({"model": MODEL, "max_tokens": 200, "messages": ASK, "stream": True}).encode()
    host, port = running.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nanthropic-version: "
                  b"2023-06-01\r\nx-api-key: " + token.encode() + b"\r\ncontent-length: " + str(len(body)).encode()
                  + b"\r\n\r\n" + body)  # fmt: skip
        seen = b""
        for _ in range(100):  # bounded: the head first, then the first event
            seen += s.recv(65536)
            if b"message_start" in seen:
                break
        assert b"message_start" in seen and b"message_stop" not in seen
    gone.set()
    wait_settled(store, 1)  # the gateway settles once upstream's stream ends
    (row,) = store.spend(utc_now())
    running.stop()
    usage = json.loads(upstream.inner.answers[-1].split(b"message_delta")[0].split(b"data: ")[1].split(b"\n")[0])
    assert row["term_usd"] > 0 and usage["type"] == "message_start"
    ledger = store._db.execute("SELECT status, usd, reserved_usd, output_tokens FROM ledger").fetchone()
    assert ledger[0] == 200 and 0 < ledger[1] <= ledger[2] and ledger[3] > 0


def test_a_restarted_gateway_counts_what_was_in_flight_when_it_stopped(tmp_path):
    first = Store(tmp_path / "l.sqlite")
    ann = first.student(first.add_student("ann", 0.01, 2))
    first.reserve(ann, "/v1/messages", MODEL, 0.008, utc_now())  # forwarded, never settled: the gateway died
    first.close()
    again = Store(tmp_path / "l.sqlite")
    (row,) = again.spend(utc_now())
    assert row["today_usd"] == pytest.approx(0.008)
    with pytest.raises(Exception, match="daily"):
        again.reserve(ann, "/v1/messages", MODEL, 0.008, utc_now())


def test_a_ledger_written_before_the_running_totals_gets_them_when_opened(tmp_path):
    first = Store(tmp_path / "l.sqlite")
    ann = first.student(first.add_student("ann", 0.01, 2))
    first.settle(first.reserve(ann, "/v1/messages", MODEL, 0.008, utc_now()), 200, 0.006, {}, 0.1)
    first._db.execute("DELETE FROM totals")  # as the first ledgers were written: no totals, no mark
    first._db.execute("DELETE FROM settings WHERE key = 'totals'")
    first.close()
    again = Store(tmp_path / "l.sqlite")
    assert again._db.execute("SELECT charged FROM totals").fetchall() == [(pytest.approx(0.006),)]
    with pytest.raises(Exception, match="daily"):
        again.reserve(ann, "/v1/messages", MODEL, 0.005, utc_now())


@pytest.mark.slow
def test_a_class_of_100_at_once_is_answered_whole_and_the_ledger_adds_up_to_the_usage_reported(tmp_path):
    store = Store(tmp_path / "l.sqlite")
    _, one = __import__("agentlab.gateway.budget", fromlist=["worst_case"]).worst_case(
        {"model": MODEL, "max_tokens": 400, "messages": ASK}, b""
    )
    tokens = [store.add_student(f"s{i:03}", one * 2.5, 10) for i in range(100)]  # two worst cases fit, not three
    gateway = Gateway(store, Upstream(), "http://upstream.test", KEY, rpm=100)
    running = Running(gateway)
    results: list[tuple[int, float]] = []
    lock = threading.Lock()

    def student(token: str) -> None:
        client = anthropic.Anthropic(api_key=token, base_url=running.url, max_retries=0)
        for _ in range(3):
            try:
                m = client.messages.create(model=MODEL, max_tokens=400, messages=ASK)
                got = (200, cost_usd(m.model, m.usage.model_dump()))
            except anthropic.RateLimitError:
                got = (429, 0.0)
            with lock:
                results.append(got)

    threads = [threading.Thread(target=student, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    running.stop()
    assert len(results) == 300, "every request answered"
    rows = store.spend(utc_now())
    assert sum(r["term_usd"] for r in rows) == pytest.approx(sum(usd for _, usd in results), rel=1e-12)
    assert all(r["today_usd"] <= r["day_budget"] for r in rows), "no budget crossed"
    by_day = dict(store._db.execute(f"SELECT student, SUM({CHARGED}) FROM ledger GROUP BY student, day").fetchall())
    kept = dict(store._db.execute("SELECT student, charged FROM totals").fetchall())
    assert kept.keys() == by_day.keys() and all(kept[k] == pytest.approx(by_day[k], abs=1e-12) for k in kept), (
        "the running totals the budget checks read agree with the ledger"
    )
    assert {s for s, _ in results} == {200}, "settled calls cost far below their worst case: the third fits too"


def test_an_answer_that_breaks_off_is_a_504_and_its_worst_case_stays_charged(tmp_path):
    class Broken(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request):
            class Half(httpx2.AsyncByteStream):
                async def __aiter__(self):
                    yield b'{"id": "msg_1", "type": "mess'
                    raise httpx2.ReadTimeout("stalled")

            return httpx2.Response(200, headers={"content-type": "application/json"}, stream=Half())

    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    running = Running(Gateway(store, Broken(), "http://upstream.test", KEY))
    try:
        answer = httpx2.post(running.url + "/v1/messages", json={"model": MODEL, "max_tokens": 100, "messages": ASK},
                             headers={"x-api-key": token})  # fmt: skip
    finally:
        running.stop()
    assert answer.status_code == 504 and answer.json()["error"]["type"] == "timeout_error"
    assert store._db.execute("SELECT status, usd = reserved_usd FROM ledger").fetchone() == (504, 1)


def test_the_running_totals_follow_a_row_corrected_or_deleted_by_hand(tmp_path):
    store = Store(tmp_path / "l.sqlite")
    ann = store.student(store.add_student("ann", 1, 2))
    row = store.reserve(ann, "/v1/messages", MODEL, 0.3, utc_now())
    store.settle(row, 200, 0.1, {}, 0.1)
    store._db.execute("UPDATE ledger SET day = '2020-01-01' WHERE id = ?", (row,))
    assert dict(store._db.execute("SELECT day, charged FROM totals").fetchall()) == {
        utc_now().date().isoformat(): pytest.approx(0.0),
        "2020-01-01": pytest.approx(0.1),
    }
    store._db.execute("DELETE FROM ledger")
    assert [c for (c,) in store._db.execute("SELECT charged FROM totals")] == [pytest.approx(0.0)] * 2


class Severed(httpx2.AsyncBaseTransport):
    """A stream whose upstream breaks off after its first event."""

    async def handle_async_request(self, request):
        whole = await Upstream().handle_async_request(request)

        class Half(httpx2.AsyncByteStream):
            async def __aiter__(self):
                yield whole.content.split(b"\n\n")[0] + b"\n\n"
                raise httpx2.ReadError("upstream reset")

        return httpx2.Response(200, headers=whole.headers, stream=Half())


def test_a_stream_the_api_breaks_off_is_not_ended_cleanly_and_keeps_its_worst_case(tmp_path):
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    running = Running(Gateway(store, Severed(), "http://upstream.test", KEY))
    client = anthropic.Anthropic(api_key=token, base_url=running.url, max_retries=0)
    try:
        with pytest.raises(anthropic.APIError):
            with client.messages.stream(model=MODEL, max_tokens=200, messages=ASK) as stream:
                stream.get_final_message()
    finally:
        running.stop()
    assert store._db.execute("SELECT usd = reserved_usd, usd > 0 FROM ledger").fetchone() == (1, 1)
