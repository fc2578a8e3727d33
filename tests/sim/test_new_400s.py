"""The 400s agent loops hit most often, with the API's wording; and no request crashes the simulator."""

from __future__ import annotations

import base64
import copy
import random
import struct

from sim_http import body, error, post

ASK = {"role": "user", "content": "Weather in Paris?"}


def _png(w: int, h: int) -> str:
    return base64.b64encode(
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", w, h) + b"\x08\x02\0\0\0"
    ).decode()


def test_empty_text_block_is_rejected():
    r = post(body(messages=[{"role": "user", "content": [{"type": "text", "text": ""}]}]))
    assert error(r) == (400, "invalid_request_error", "messages: text content blocks must be non-empty")


def test_whitespace_only_text_is_rejected():
    r = post(body(messages=[{"role": "user", "content": [{"type": "text", "text": " \n"}]}]))
    assert error(r) == (400, "invalid_request_error", "messages: text content blocks must contain non-whitespace text")


def test_trailing_whitespace_in_the_final_assistant_message_is_rejected():
    r = post(body("claude-haiku-4-5", messages=[ASK, {"role": "assistant", "content": "It is "}]))
    assert error(r) == (
        400,
        "invalid_request_error",
        "messages: final assistant content cannot end with trailing whitespace",
    )
    assert post(body("claude-haiku-4-5", messages=[ASK, {"role": "assistant", "content": "It is"}])).status_code == 200


def test_prefill_on_a_model_that_refuses_it():
    r = post(body("claude-sonnet-5-5", messages=[ASK, {"role": "assistant", "content": "It is"}]))
    assert error(r) == (
        400,
        "invalid_request_error",
        "This model does not support assistant message prefill. The conversation must end with a user message.",
    )


def test_more_than_four_cache_breakpoints():
    mark = {"type": "ephemeral"}
    blocks = [{"type": "text", "text": f"part {i}", "cache_control": mark} for i in range(5)]
    r = post(body(messages=[{"role": "user", "content": blocks}]))
    assert error(r) == (
        400,
        "invalid_request_error",
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    )
    assert post(body(messages=[{"role": "user", "content": blocks[:4]}])).status_code == 200


def test_image_media_type_must_be_one_the_api_takes():
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": _png(10, 10)}}
    status, _, message = error(post(body(messages=[{"role": "user", "content": [img, {"type": "text", "text": "?"}]}])))
    assert status == 400 and message == (
        "messages.0.content.0.image.source.base64.media_type: Input should be "
        "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
    )


def test_images_are_counted_by_the_documented_formula_not_their_base64_length():
    def count(w, h):
        img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _png(w, h)}}
        return post(body(messages=[{"role": "user", "content": [img]}]), path="/v1/messages/count_tokens").json()[
            "input_tokens"
        ]

    base = count(1, 1) - 1
    assert count(1000, 1000) - base == 1334  # (1000 * 1000) / 750, rounded up
    assert count(200, 200) - base == 54
    assert count(4000, 3000) - base < 1600  # scaled down first


def test_body_over_32_mb_is_413():
    big = body(messages=[{"role": "user", "content": "x" * 33_000_000}])
    assert error(post(big)) == (413, "request_too_large", "Request exceeds the maximum size")


def test_usage_carries_the_fields_the_api_returns():
    usage = post(body()).json()["usage"]
    assert usage["cache_creation"] == {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
    assert usage["service_tier"] == "standard" and usage["cache_read_input_tokens"] == 0


VALID = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 50,
    "system": [{"type": "text", "text": "Be brief."}],
    "tools": [
        {
            "name": "get_weather",
            "description": "w",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
    "messages": [
        ASK,
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "18C"}]}],
        },
    ],
}
JUNK = [
    None,
    0,
    -1,
    1.5,
    True,
    "",
    "x",
    [],
    [None],
    {},
    {"type": None},
    {"type": "text"},
    {"type": "image", "source": {}},
]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def test_fuzzed_requests_get_the_api_envelope_never_a_500():
    rng = random.Random(8)
    paths = [p for p in _paths(VALID) if p]
    for _ in range(300):
        doc = copy.deepcopy(VALID)
        for _ in range(rng.randint(1, 3)):
            live = [p for p in paths if _exists(doc, p)]
            _set(doc, rng.choice(live), copy.deepcopy(rng.choice(JUNK)))
        r = post(doc, headers={"anthropic-version": "2023-06-01"})
        assert r.status_code in (200, 400, 404), (doc, r.text)
        if r.status_code != 200:
            assert r.json()["type"] == "error" and "agentlab/sim" not in r.text, (doc, r.text)


def _exists(doc, path):
    try:
        for key in path:
            doc = doc[key]
        return True
    except (KeyError, IndexError, TypeError):
        return False


def test_invalid_json_and_non_utf8_bodies_are_400():
    assert error(post(None, raw=b"{oops"))[0] == 400
    assert error(post(None, raw=b"\xff\xfe{}"))[0] == 400
