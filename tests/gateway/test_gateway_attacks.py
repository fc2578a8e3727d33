"""A student trying to get more than their budget, or to get at the instructor's key, through the gateway."""

from __future__ import annotations

import json

import httpx2
import pytest
from gateway_room import ASK, KEY, MODEL, ORG

from agentlab.gateway.store import utc_now
from agentlab.meter.prices import cost_usd


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


def test_text_written_to_fool_the_estimator_is_budgeted_by_its_size():
    """Random punctuation: the estimator reads each run as one token; a tokenizer needs one per few characters."""
    import random

    from agentlab.api.tokens import estimate_input_tokens
    from agentlab.gateway.budget import worst_case

    junk = "".join(random.Random(0).choice("!#$%&()*+,-./:;<=>?@[]^_{|}~") for _ in range(300_000))
    body = {"model": "claude-opus-4-1", "max_tokens": 1, "messages": [{"role": "user", "content": junk}]}
    raw = json.dumps(body).encode()
    assert estimate_input_tokens(body) < 1000, "the estimator is fooled: the floor is what holds"
    _, usd = worst_case(body, raw)
    price_per_token = cost_usd("claude-opus-4-1", {"input_tokens": 1_000_000}) / 1_000_000
    assert usd >= len(junk) / 3.4 * price_per_token, "at least what a tokenizer must bill for random text"


def test_a_document_by_url_cannot_be_budgeted_and_is_refused(room):
    doc = {"type": "document", "source": {"type": "url", "url": "https://example.test/huge.pdf"}}
    answer = _post(room, "ann", {"model": MODEL, "max_tokens": 10,
                                 "messages": [{"role": "user", "content": [doc, {"type": "text", "text": "sum up"}]}]})  # fmt: skip
    assert answer.status_code == 400 and "send it as base64" in answer.json()["error"]["message"]
    assert room.upstream.requests == []


def test_a_model_that_is_not_a_model_id_is_refused_and_not_stored(room):
    answer = _post(room, "ann", {"model": MODEL + " " + "x" * 100_000, "max_tokens": 10, "messages": ASK})
    assert answer.status_code == 400 and "is not a model id" in answer.json()["error"]["message"]
    assert room.store._db.execute("SELECT COUNT(*) FROM ledger").fetchone() == (0,)


def test_a_body_naming_one_field_among_thousands_twice_is_refused(room):
    fields = ", ".join(f'"f{i}": {i}' for i in range(20_000))
    raw = ('{"model": "%s", "max_tokens": 10, "messages": [], %s, "f7": 0}' % (MODEL, fields)).encode()
    answer = _post(room, "ann", raw)
    assert answer.status_code == 400 and "['f7'] more than once" in answer.json()["error"]["message"]


def test_when_both_are_spent_the_429_names_the_term_budget_which_midnight_does_not_reset(room):
    room.store.update("ann", day_usd=0.0001, term_usd=0.0001)
    answer = _post(room, "ann", {"model": MODEL, "max_tokens": 100, "messages": ASK})
    assert answer.status_code == 429 and answer.json()["error"]["budget"] == "term"
    assert answer.json()["error"]["resets"] is None


def test_the_instructors_organization_is_not_relayed(room):
    answer = _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": ASK})
    assert answer.status_code == 200 and "anthropic-organization-id" not in answer.headers
    assert ORG not in answer.text and room.upstream.answers, "the upstream did send it"


def test_an_expiry_written_without_zeros_is_kept_as_a_date(tmp_path):
    from agentlab.gateway.store import Store

    store = Store(tmp_path / "l.sqlite")
    assert store.student(store.add_student("ann", 1, 1, expires="2026-9-30")).expires == "2026-09-30"


def test_a_body_over_the_limit_is_refused_unread_and_unsent(room):
    from agentlab.gateway.app import MAX_BODY_BYTES

    answer = _post(room, "ann", b"x" * (MAX_BODY_BYTES + 1))
    assert answer.status_code == 413 and room.upstream.requests == []


def test_a_cookie_the_api_sets_for_one_student_is_not_sent_with_anothers_request(room):
    inner = room.upstream.handle_async_request

    async def with_cookie(request):
        response = await inner(request)
        response.headers["set-cookie"] = "__cf_bm=ann-session; path=/"
        return response

    room.upstream.handle_async_request = with_cookie
    assert _post(room, "ann", {"model": MODEL, "max_tokens": 50, "messages": ASK}).status_code == 200
    assert _post(room, "bob", {"model": MODEL, "max_tokens": 50, "messages": ASK}).status_code == 200
    assert "cookie" not in room.upstream.requests[-1].headers, "the gateway keeps no cookie jar between students"
