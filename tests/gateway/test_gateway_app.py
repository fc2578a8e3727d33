"""The gateway forwards a student's request unchanged with the instructor's key, and meters it in dollars."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import anthropic
import httpx2
import pytest
from gateway_room import ASK, KEY, MODEL, Upstream, run_async, wait_settled

from agentlab.gateway.app import Gateway
from agentlab.gateway.budget import worst_case
from agentlab.gateway.store import Store, utc_now
from agentlab.meter.prices import cost_usd


def test_a_request_reaches_upstream_byte_for_byte_with_the_instructors_key_and_not_the_token(room):
    client, wire = room.client("ann", default_headers={"anthropic-beta": "token-efficient-tools-2025-02-19"})
    client.messages.create(model=MODEL, max_tokens=300, messages=ASK, tools=[])
    got = room.upstream.requests[-1]
    assert got.content == wire.sent[-1], "the body went upstream as the student's SDK wrote it"
    assert got.headers["x-api-key"] == KEY
    assert got.headers["anthropic-version"] == wire.headers[-1]["anthropic-version"]
    assert got.headers["anthropic-beta"] == "token-efficient-tools-2025-02-19"
    assert room.tokens["ann"] not in str(got.headers.raw), "the student's token stays at the gateway"
    assert wire.received[-1] == room.upstream.answers[-1], "the answer came back byte for byte"
    assert KEY not in wire.received[-1].decode()


def test_a_stream_is_relayed_whole_and_settled_to_the_usage_it_reports(room):
    client, wire = room.client("ann")
    with client.messages.stream(model=MODEL, max_tokens=300, messages=ASK) as stream:
        final = stream.get_final_message()
    assert wire.received[-1] == room.upstream.answers[-1]
    wait_settled(room.store, 1)
    (row,) = room.store.spend(utc_now())[:1]
    assert row["term_usd"] == pytest.approx(cost_usd(MODEL, final.usage.model_dump()))
    assert row["term_usd"] > 0


def test_count_tokens_and_the_model_list_are_forwarded_and_cost_nothing(room):
    client, _ = room.client("ann")
    assert client.messages.count_tokens(model=MODEL, messages=ASK).input_tokens > 0
    assert MODEL in [m.id for m in client.models.list()]
    ann = next(r for r in room.store.spend(utc_now()) if r["student"] == "ann")
    assert ann["requests"] == 2 and ann["term_usd"] == 0


@pytest.mark.parametrize("why", ["unknown", "revoked", "expired", "none"])
def test_a_token_the_gateway_will_not_take_is_refused_401_and_nothing_is_forwarded(room, why):
    if why == "revoked":
        room.store.update("bob", revoked=True)
    if why == "expired":
        room.tokens["carl"] = room.store.add_student("carl", 1, 1, expires="2020-01-01")
    name = {"unknown": "agentlab-gw-made-up", "revoked": "bob", "expired": "carl", "none": ""}[why]
    if why == "none":  # no key header at all (the SDK always sends one)
        answer = httpx2.post(room.running.url + "/v1/messages", json={"model": MODEL, "max_tokens": 9, "messages": ASK})
        assert answer.status_code == 401 and "got no token" in answer.json()["error"]["message"]
    else:
        with pytest.raises(anthropic.AuthenticationError) as e:
            room.client(name, max_retries=0)[0].messages.create(model=MODEL, max_tokens=100, messages=ASK)
        assert "token your instructor gave you" in str(e.value)
    assert room.upstream.requests == []


def test_a_request_over_budget_is_refused_429_naming_the_budget_and_is_not_sent_or_retried(room):
    room.store.update("ann", day_usd=0.002)
    client, wire = room.client("ann")  # the SDK's default retries: the gateway's answer must stop them
    _, needed = worst_case({"model": MODEL, "max_tokens": 4000, "messages": ASK}, b"")
    assert needed > 0.002
    with pytest.raises(anthropic.RateLimitError) as e:
        client.messages.create(model=MODEL, max_tokens=4000, messages=ASK)
    error = e.value.body["error"]
    assert error["budget"] == "daily" and error["left_usd"] == pytest.approx(0.002) and error["resets"]
    assert "lower max_tokens" in error["message"]
    assert len(wire.sent) == 1, "one request, no retries"
    assert room.upstream.requests == []
    client.messages.create(model=MODEL, max_tokens=100, messages=ASK)  # a smaller worst case still fits
    assert len(room.upstream.requests) == 1


def test_the_class_total_binds_every_student(room):
    room.store.set_class_usd(0.0001)
    with pytest.raises(anthropic.RateLimitError, match="class budget"):
        room.client("bob", max_retries=0)[0].messages.create(model=MODEL, max_tokens=100, messages=ASK)


def test_a_student_over_the_rate_limit_waits_and_another_does_not(room):
    room.gateway.rpm = 2
    ann, _ = room.client("ann", max_retries=0)
    for _ in range(2):
        ann.messages.count_tokens(model=MODEL, messages=ASK)
    with pytest.raises(anthropic.RateLimitError, match="requests a minute") as e:
        ann.messages.count_tokens(model=MODEL, messages=ASK)
    assert 55 <= int(e.value.response.headers["retry-after"]) <= 60, "the SDK waits this long before it retries"
    room.client("bob")[0].messages.count_tokens(model=MODEL, messages=ASK)


def test_two_requests_at_once_cannot_both_pass_a_budget_that_fits_one(tmp_path):
    """Both reserve before either is answered (the upstream holds them): only one worst case fits."""
    release = asyncio.Event()

    upstream = Upstream()

    class Held:
        count = 0

        async def handle_async_request(self, request):
            Held.count += 1
            await release.wait()
            return await upstream.handle_async_request(request)

    body = json.dumps({"model": MODEL, "max_tokens": 1000, "messages": ASK}).encode()
    _, needed = worst_case(json.loads(body), body)
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", needed * 1.5, 10)
    gateway = Gateway(store, Held(), "http://upstream.test", KEY)

    async def one():
        sent, got = [], []
        queue = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive():
            return queue.pop() if queue else {"type": "http.disconnect"}

        async def send(message):
            got.append(message)

        headers = [
            (b"x-api-key", token.encode()),
            (b"content-type", b"application/json"),
            (b"anthropic-version", b"2023-06-01"),
        ]
        scope = {"type": "http", "method": "POST", "path": "/v1/messages", "headers": headers, "query_string": b""}
        await gateway(scope, receive, send)
        return got[0]["status"], sent

    async def both():
        tasks = [asyncio.create_task(one()) for _ in range(2)]
        await asyncio.sleep(0.2)
        release.set()
        return sorted(status for status, _ in await asyncio.gather(*tasks))

    assert run_async(both) == [200, 429]
    assert Held.count == 1


def test_the_ledger_settles_each_call_to_its_usage_keeps_no_body_and_no_token(room, tmp_path):
    client, _ = room.client("ann")
    m = client.messages.create(model=MODEL, max_tokens=300, messages=ASK)
    rows = sqlite3.connect(room.store.path).execute("SELECT usd, reserved_usd, input_tokens FROM ledger").fetchall()
    assert rows == [(pytest.approx(cost_usd(MODEL, m.usage.model_dump())), rows[0][1], m.usage.input_tokens)]
    assert rows[0][0] <= rows[0][1], "the reservation bounded what the call cost"
    room.store.export_csv(tmp_path / "ledger.csv")
    dump = "\n".join(sqlite3.connect(room.store.path).iterdump()) + (tmp_path / "ledger.csv").read_text()
    for secret in ("Paris", room.tokens["ann"], KEY):
        assert secret not in dump


def test_with_log_bodies_the_ledger_keeps_each_prompt_and_answer_by_row(room):
    room.gateway.log_bodies = True
    client, wire = room.client("ann")
    client.messages.create(model=MODEL, max_tokens=300, messages=ASK)
    with client.messages.stream(model=MODEL, max_tokens=300, messages=ASK) as stream:
        stream.get_final_message()
    wait_settled(room.store, 2)
    kept = (
        sqlite3.connect(room.store.path).execute("SELECT request, response FROM bodies ORDER BY ledger_id").fetchall()
    )
    assert kept == [(wire.sent[0], wire.received[0]), (wire.sent[1], wire.received[1])]


def test_a_run_of_the_course_through_the_gateway_is_metered_as_live_and_named_so(room, monkeypatch, tmp_path, capsys):
    import agentlab

    monkeypatch.setenv("ANTHROPIC_BASE_URL", room.running.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", room.tokens["bob"])
    client = agentlab.connect(quiet=False)
    assert "through the class gateway" in capsys.readouterr().err
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    agentlab.connect(quiet=False)
    assert "经由班级网关" in capsys.readouterr().err
    monkeypatch.delenv("AGENTLAB_LANG")
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
    assert run.stop_reason.value == "end_turn"
    ledger = sqlite3.connect(room.store.path).execute("SELECT usd, reserved_usd FROM ledger").fetchall()
    assert len(ledger) == run.model_calls and all(usd <= reserved for usd, reserved in ledger)
    assert sum(u for u, _ in ledger) == pytest.approx(sum(t.cost_usd for t in run.turns))


def test_a_daily_budget_spent_today_is_whole_again_after_utc_midnight(tmp_path):
    from datetime import datetime, timezone

    from agentlab.gateway.store import OverBudget

    store = Store(tmp_path / "l.sqlite")
    ann = store.student(store.add_student("ann", 0.01, 0.02))
    monday = datetime(2026, 12, 7, 23, 59, tzinfo=timezone.utc)
    store.reserve(ann, "/v1/messages", MODEL, 0.008, monday)
    with pytest.raises(OverBudget) as e:
        store.reserve(ann, "/v1/messages", MODEL, 0.008, monday)
    assert (e.value.budget, e.value.resets) == ("daily", "2026-12-08T00:00:00+00:00")
    store.reserve(ann, "/v1/messages", MODEL, 0.008, datetime(2026, 12, 8, 0, 1, tzinfo=timezone.utc))
    with pytest.raises(OverBudget, match="term"):  # the term budget counts every day
        store.reserve(ann, "/v1/messages", MODEL, 0.008, datetime(2026, 12, 9, tzinfo=timezone.utc))


def test_a_student_gone_before_their_body_is_whole_is_neither_charged_nor_forwarded(room):
    sent = []

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    headers = [(b"x-api-key", room.tokens["ann"].encode())]
    scope = {"type": "http", "method": "POST", "path": "/v1/messages", "headers": headers, "query_string": b""}
    run_async(lambda: room.gateway(scope, receive, send))
    assert sent == [] and room.upstream.requests == []
    assert room.store._db.execute("SELECT COUNT(*) FROM ledger").fetchone() == (0,)
