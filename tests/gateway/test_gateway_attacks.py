"""A student trying to get more than their budget, or to get at the instructor's key, through the gateway."""

from __future__ import annotations

import json

import httpx2
import pytest
from gateway_room import ASK, KEY, MODEL

from agentlab.gateway.store import utc_now


def _post(room, name: str, body: bytes | dict, path: str = "/v1/messages", **headers) -> httpx2.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"x-api-key": room.tokens[name], "anthropic-version": "2023-06-01", "content-type": "application/json"}
    return httpx2.post(room.running.url + path, content=content, headers={**sent, **headers})


def test_a_field_sent_twice_is_refused_so_the_api_cannot_read_another_max_tokens_than_was_budgeted(room):
    room.store.update("ann", day_usd=0.01)
    raw = json.dumps({"model": MODEL, "max_tokens": 1, "messages": ASK})[:-1] + ', "max_tokens": 64000}'
    answer = _post(room, "ann", raw.encode())
    assert answer.status_code == 400 and "['max_tokens'] more than once" in answer.json()["error"]["message"]
    assert room.upstream.requests == []


def test_a_model_with_no_price_is_refused_before_it_is_sent(room):
    answer = _post(room, "ann", {"model": "gpt-4o", "max_tokens": 10, "messages": ASK})
    assert answer.status_code == 400 and "no known price" in answer.json()["error"]["message"]
    assert room.upstream.requests == []


@pytest.mark.parametrize("body", [b"[1, 2]", b"not json", b'{"model": "claude-haiku-4-5", "messages": []}'])
def test_a_body_the_gateway_cannot_budget_is_refused_with_why(room, body):
    answer = _post(room, "ann", body)
    assert answer.status_code == 400 and "cannot budget this request" in answer.json()["error"]["message"]
    assert room.upstream.requests == []


def test_a_students_own_key_headers_never_reach_upstream(room):
    _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": ASK},
          authorization="Bearer sk-ant-api03-students-own-key", **{"x-api-key": room.tokens["ann"]})  # fmt: skip
    sent = room.upstream.requests[-1].headers
    assert sent.get_list("x-api-key") == [KEY] and "authorization" not in sent


def test_another_students_token_in_a_second_header_does_not_charge_them(room):
    answer = _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": ASK},
                   authorization="Bearer " + room.tokens["bob"])  # fmt: skip
    assert answer.status_code == 200
    spend = {r["student"]: r["requests"] for r in room.store.spend(utc_now())}
    assert spend == {"ann": 1, "bob": 0}, "x-api-key decides who pays; a second credential is dropped"


@pytest.mark.parametrize("path", ["/v1/messages/batches", "/v1/files", "/v1/messages/../messages/batches", "/admin"])
def test_only_the_three_endpoints_are_forwarded(room, path):
    answer = _post(room, "ann", {"model": MODEL, "max_tokens": 10, "messages": ASK}, path=path)
    assert answer.status_code == 404 and room.upstream.requests == []


def test_no_answer_or_error_ever_carries_the_instructors_key(room):
    answers = [
        _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": ASK}),
        _post(room, "ann", {"model": "claude-nonexistent", "max_tokens": 50, "messages": ASK}),
        _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": "x" * 10}),
        httpx2.get(room.running.url + "/v1/models", headers={"x-api-key": room.tokens["ann"]}),
    ]
    for answer in answers:
        assert KEY not in answer.text and KEY not in str(answer.headers.raw)
