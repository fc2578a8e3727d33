"""`agentlab serve` answers every malformed request with a status and the API's error envelope (issue 22)."""

import json
import socket
import sys
import time
from pathlib import Path

import pytest
from sim_http import assert_envelope, raw_http

from agentlab.sim import asgi

sys.path.insert(0, str(Path(__file__).parent))

HEAD = b"Host: sim\r\nanthropic-version: 2026-10-21\r\ncontent-type: application/json\r\n"
BODY = b'{"model":"claude-sonnet-5-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}'


def post(
    body: bytes = BODY, *, target: bytes = b"/v1/messages", extra: bytes = b"", length: bytes | None = None
) -> bytes:
    cl = str(len(body)).encode() if length is None else length
    return b"POST " + target + b" HTTP/1.1\r\n" + HEAD + extra + b"Content-Length: " + cl + b"\r\n\r\n" + body


@pytest.fixture
def port(base_url):
    return int(base_url.rsplit(":", 1)[1])


@pytest.mark.parametrize(
    "name, request_bytes, status",
    [
        ("content-length abc", post(length=b"abc"), 400),
        ("content-length -5", post(length=b"-5"), 400),
        ("malformed request line", b"POST/v1/messages HTTP/1.1 x\r\n" + HEAD + b"\r\n", 400),
        ("70 KB URL", b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n" + HEAD + b"\r\n", 431),  # in one read or in pieces
        ("header block over 16 KB and unfinished", b"GET / HTTP/1.1\r\n" + HEAD + b"x-pad: " + b"a" * 70_000, 431),
        ("HTTP/0.9", b"GET /\r\n", 400),
        ("asterisk target", b"OPTIONS * HTTP/1.1\r\n" + HEAD + b"Content-Length: 0\r\n\r\n", 400),
        ("no Host header", b"POST /v1/messages HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400),
        ("bad chunk", b"POST /v1/messages HTTP/1.1\r\n" + HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("gzip transfer-encoding", b"POST /v1/messages HTTP/1.1\r\n" + HEAD + b"Transfer-Encoding: gzip\r\n\r\n", 501),
        ("binary garbage", b"\x00\x01\x02\xff\r\n\r\n", 400),
        ("lone surrogate in model", post(BODY.replace(b"claude-sonnet-5-5", b"\\ud800")), 400),
        ("JSON nested 990 deep", post(BODY[:-1] + b',"metadata":' + b"[" * 990 + b"]" * 990 + b"}"), 400),
        ("an integer of 4,301 digits", post(BODY.replace(b"10", b"9" * 4301)), 400),
        (
            "tool name given as a dict",
            post(BODY[:-1] + b',"tools":[{"name":{"a":1},"input_schema":{"type":"object"}}]}'),
            400,
        ),
        ("body over 32 MB by its header", post(b"", length=b"99999999999"), 413),
    ],
)
def test_a_malformed_request_gets_a_status_and_the_error_envelope(port, name, request_bytes, status):
    got, headers, body = raw_http(port, request_bytes)
    assert got == status, (name, got, body[:300])
    assert_envelope(got, headers, body)


@pytest.mark.parametrize(
    "name, request_bytes",
    [
        ("content-length '96, 96' (identical values, RFC 9110 8.6)", post(length=b"%d, %d" % (len(BODY), len(BODY)))),
        ("absolute-URI target", post(target=b"http://sim/v1/messages")),
        ("non-ASCII byte in a header value", post(extra=b"x-note: caf\xe9\r\n")),
    ],
)
def test_an_unusual_but_valid_request_is_answered(port, name, request_bytes):
    got, headers, body = raw_http(port, request_bytes)
    assert got == 200 and assert_envelope(got, headers, body)["type"] == "message", (name, body[:300])


def test_a_server_error_names_no_file_of_the_package(port):
    got, headers, body = raw_http(port, post(BODY.replace(b"hi", b"\\udc00")))
    assert got == 400 and "surrogate" in assert_envelope(got, headers, body)["error"]["message"]


def _silent_connection(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def _read_all(s: socket.socket) -> bytes:
    got = b""
    for _ in range(1000):
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_a_header_block_that_never_ends_is_answered_408_and_closed(port, monkeypatch):
    monkeypatch.setattr(asgi, "HEADER_TIMEOUT_S", 0.3)
    with _silent_connection(port) as s:
        s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: sim\r\n")  # and nothing more
        got = _read_all(s)
    assert got.startswith(b"HTTP/1.1 408 ") and b'"invalid_request_error"' in got and b"within 0.3 s" in got


def test_a_connection_that_sends_nothing_is_closed(port, monkeypatch):
    monkeypatch.setattr(asgi, "HEADER_TIMEOUT_S", 0.3)
    with _silent_connection(port) as s:  # its 10 s socket timeout bounds the wait: no clock asserted
        got = _read_all(s)
    assert got.startswith(b"HTTP/1.1 408 ") and b"within 0.3 s" in got  # the configured limit fired, not a default


def test_a_body_that_stops_arriving_is_answered_408(port, monkeypatch):
    monkeypatch.setattr(asgi, "BODY_TIMEOUT_S", 0.3)
    with _silent_connection(port) as s:
        s.sendall(post(length=b"1000")[:-20])  # headers, then part of the body
        got = _read_all(s)
    assert got.startswith(b"HTTP/1.1 408 ") and b"body did not arrive" in got


def test_connections_over_the_limit_are_answered_529_overloaded(port, monkeypatch):
    monkeypatch.setattr(asgi, "MAX_CONNECTIONS", 2)
    held = [_silent_connection(port) for _ in range(2)]
    try:
        time.sleep(0.2)  # let the server accept both
        got, headers, body = raw_http(port, post())
        assert got == 529 and assert_envelope(got, headers, body)["error"]["type"] == "overloaded_error"
    finally:
        for s in held:
            s.close()
    for _ in range(50):  # once they are closed, the next is served
        got, _, _ = raw_http(port, post())
        if got == 200:
            break
        time.sleep(0.05)
    assert got == 200


def test_keep_alive_serves_many_requests_on_one_connection(port):
    with _silent_connection(port) as s:
        for _ in range(5):
            s.sendall(post())
            got = b""
            while b'"usage"' not in got or not got.rstrip().endswith(b"}"):
                got += s.recv(65536)
            assert got.startswith(b"HTTP/1.1 200 ")


def test_the_server_starts_listening_in_a_fresh_interpreter(tmp_path):
    """A fresh interpreter gets a listening port; how fast is a benchmark's figure, not a test's."""
    import subprocess

    code = (
        "import socket; from agentlab.sim.serve import make_server; "
        "from agentlab.sim.server import Simulator; s=make_server(Simulator(), port=0); "
        "port = s.server_address[1]; "
        "socket.create_connection(('127.0.0.1', port), timeout=10).close(); print(port)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0


def test_json_answers_are_json(port):
    got, headers, body = raw_http(port, post())
    assert json.loads(body)["type"] == "message"
