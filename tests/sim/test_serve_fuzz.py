"""A seeded fuzz of `agentlab serve`: 1,200 malformed and mutated requests, raw HTTP and JSON (issue 22).

Every request must get a well-formed answer (a status, the API's envelope for an error) that names no
file of the package. Incomplete requests are answered 408 once the (shortened) timeouts pass; the
requests run 32 at a time so those waits overlap. Bounded: a fixed count, each socket with a timeout.
"""

import json
import random
from concurrent.futures import ThreadPoolExecutor

from sim_http import assert_envelope, raw_http

from agentlab.sim import asgi

SEED, RAW, JSON_BODIES = 22, 700, 500
GOOD = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 20,
    "messages": [{"role": "user", "content": "Hello"}],
    "tools": [
        {
            "name": "get_weather",
            "description": "d",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
}
ODD = [
    None,
    True,
    -1,
    0,
    10**30,
    1.5e308,
    "",
    "x" * 5000,
    "\\ud800",
    [],
    {},
    [[[]]],
    {"a": {"b": {}}},
    "claude-sonet-5-5",
    {"type": "tool", "name": {"a": 1}},
    "\u0000",
    "😀",
    2**63,
]


def frame(body: bytes, path: bytes = b"/v1/messages", method: bytes = b"POST") -> bytes:
    return (
        method + b" " + path + b" HTTP/1.1\r\nHost: sim\r\nanthropic-version: 2026-10-21\r\n"
        b"content-type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op, i = rng.randrange(7), rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[i:i] = bytes([rng.randrange(256)])
        elif op == 2:
            del b[i : i + rng.randint(1, 20)]
        elif op == 3:
            b[i:i] = b[i : i + rng.randint(1, 50)] * rng.randint(1, 3)
        elif op == 4:
            b = b.replace(
                b"Content-Length: ",
                b"Content-Length: " + rng.choice([b"abc", b"-5", b"96, 96", b"1e3", b" ", b"99999999999"]),
                1,
            )
        elif op == 5:
            b[i:i] = rng.choice(
                [b"\r\n", b"\n", b" ", b"\x00", b"\xff", b"\r\nX-A: \xe9\r\n", b"HTTP/0.9", b"*", b"%00"]
            )
        else:
            b = b[:i]
    return bytes(b)


def mutate_json(rng: random.Random) -> bytes:
    body = json.loads(json.dumps(GOOD))
    for _ in range(rng.randint(1, 3)):
        places = [(body, k) for k in list(body)]
        for field, keys in (("messages", ("content", "role")), ("tools", ("name", "input_schema"))):
            inner = body.get(field)
            if isinstance(inner, list) and inner and isinstance(inner[0], dict):
                places += [(inner[0], k) for k in keys]
        target, key = rng.choice(places)
        if rng.random() < 0.15:
            target.pop(key, None)
        else:
            target[key] = rng.choice(ODD)
    text = json.dumps(body).replace('"\\\\ud800"', '"\\ud800"')  # a real lone-surrogate escape
    if rng.random() < 0.1:
        text = text[:-1] + ', "metadata": ' + "[" * 1000 + "]" * 1000 + "}"
    return text.encode()


def test_every_fuzzed_request_gets_a_well_formed_answer_naming_no_package_file(base_url, monkeypatch):
    monkeypatch.setattr(asgi, "HEADER_TIMEOUT_S", 0.3)
    monkeypatch.setattr(asgi, "BODY_TIMEOUT_S", 0.3)
    port = int(base_url.rsplit(":", 1)[1])
    rng = random.Random(SEED)
    seeds = [frame(json.dumps(GOOD).encode()), frame(b"{}", b"/v1/messages/count_tokens"), frame(b"", b"/", b"GET")]
    requests = [mutate_bytes(rng, rng.choice(seeds)) for _ in range(RAW)] + [
        frame(mutate_json(rng)) for _ in range(JSON_BODIES)
    ]
    assert len(requests) >= 1000

    def one(data: bytes) -> tuple[bytes, tuple]:
        return data, raw_http(port, data, timeout=15)

    with ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(one, requests))
    statuses = []
    for data, (status, headers, body) in answers:
        assert status, f"no answer to {data[:120]!r}"
        assert_envelope(status, headers, body)
        statuses.append(status)
    assert 200 in statuses and 400 in statuses  # the fuzz reaches both the simulator and the refusals
