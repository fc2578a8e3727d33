"""The gateway's transport to the API as shipped (``upstream.APITransport``: aiohttp behind httpx2's interface):
what it relays, and whether a forward that failed is charged (it is, unless the request never left). Most
tests run against a small HTTP server on a real loopback socket; the error table uses aiohttp's own errors."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import aiohttp
import httpx2
import pytest
from aiohttp.http_exceptions import TransferEncodingError
from gateway_room import ASK, KEY, MODEL

from agentlab.gateway.app import NEVER_SENT, Gateway
from agentlab.gateway.serve import Running, api_upstream
from agentlab.gateway.store import Store
from agentlab.gateway.upstream import mapped
from agentlab.sim.server import Simulator


class FakeAPI:
    """An HTTP server on loopback that answers its requests in turn, each with the next of ``acts`` (a function of
    the connection); it keeps every request it read, whole, in ``requests``."""

    def __init__(self, *acts) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[bytes] = []
        self.acts = list(acts)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.sock.settimeout(30)
        with self.sock:
            while self.acts:  # bounded: each round serves one connection, which takes at least one act
                conn, _ = self.sock.accept()
                with conn:
                    conn.settimeout(30)
                    while self.acts and self._read(conn):  # bounded by the acts
                        self.acts.pop(0)(conn)

    def _read(self, conn: socket.socket) -> bool:
        """Read one whole request; False when the connection ended first."""
        data = b""
        while b"\r\n\r\n" not in data:  # bounded: each round reads bytes or ends
            got = conn.recv(65536)
            if not got:
                return False
            data += got
        head, _, body = data.partition(b"\r\n\r\n")
        fields = dict(h.split(b":", 1) for h in head.split(b"\r\n")[1:])
        length = int(next((v for k, v in fields.items() if k.lower() == b"content-length"), b"0"))
        while len(body) < length:  # bounded: each round reads bytes or ends
            got = conn.recv(65536)
            if not got:
                return False
            body += got
        self.requests.append(head + b"\r\n\r\n" + body)
        return True


def _answer(body: bytes, *extra: bytes):
    def act(conn: socket.socket) -> None:
        head = [b"HTTP/1.1 200 OK", b"content-type: application/json", b"content-length: %d" % len(body), *extra]
        conn.sendall(b"\r\n".join(head) + b"\r\n\r\n" + body)

    return act


def _simulated(stream: bool) -> bytes:
    """What the simulator answers the tests' request, as the API would send it."""
    body = {"model": MODEL, "max_tokens": 100, "messages": ASK, "stream": stream}
    request = httpx2.Request("POST", "http://api.test/v1/messages", json=body,
                             headers={"anthropic-version": "2023-06-01", "x-api-key": "k"})  # fmt: skip
    response, _ = Simulator().answer(request)
    return response.read()


def _class(tmp_path, upstream_url: str, **options) -> tuple[Running, Store, str]:
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    return Running(Gateway(store, api_upstream(), upstream_url, KEY, **options)), store, token


def _ask(tmp_path, upstream_url: str, **options) -> tuple[httpx2.Response, Store]:
    running, store, token = _class(tmp_path, upstream_url, **options)
    try:
        answer = httpx2.post(running.url + "/v1/messages", headers={"x-api-key": token}, timeout=60,
                             json={"model": MODEL, "max_tokens": 100, "messages": ASK})  # fmt: skip
    finally:
        running.stop()
    return answer, store


def _row(store: Store) -> tuple:
    return store._db.execute("SELECT status, usd = reserved_usd, usd > 0 FROM ledger").fetchone()


def test_an_answer_and_the_students_headers_go_through_as_they_came(tmp_path):
    data = json.loads(_simulated(stream=False))
    body = json.dumps({**data, "a_field_from_2027": {"kept": True}}, separators=(",", ":")).encode()
    api = FakeAPI(_answer(body))
    running, store, token = _class(tmp_path, api.url)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", int(running.url.rsplit(":", 1)[1]), timeout=60)
        ask = json.dumps({"model": MODEL, "max_tokens": 100, "messages": ASK})
        conn.request("POST", "/v1/messages", body=ask, headers={
            "x-api-key": token, "anthropic-version": "2023-06-01", "anthropic-beta": "a-beta-2026-01-01,another",
            "content-type": "application/json", "Expect": "100-continue"})  # fmt: skip
        answer = conn.getresponse()
        got = answer.read()
    finally:
        running.stop()
    assert answer.status == 200 and got == body
    sent = api.requests[0].lower()
    assert (
        b"\r\nanthropic-version: 2023-06-01\r\n" in sent
        and b"\r\nanthropic-beta: a-beta-2026-01-01,another\r\n" in sent
    )
    assert b"x-api-key: " + KEY.lower().encode() in sent and KEY not in got.decode()
    for added in (b"user-agent", b"accept:", b"accept-encoding", b"cookie", b"expect"):
        assert b"\r\n" + added not in sent, f"{added!r} reached the API, not sent by the student (or theirs alone)"
    status, usd, reserved = store._db.execute("SELECT status, usd, reserved_usd FROM ledger").fetchone()
    assert status == 200 and 0 < usd < reserved, "settled to the usage the answer reports"


def test_no_cookie_the_api_sets_for_one_request_goes_with_the_next(tmp_path):
    body = _simulated(stream=False)
    api = FakeAPI(_answer(body, b"set-cookie: __cf_bm=ann-s-session; Path=/"), _answer(body))
    running, _, token = _class(tmp_path, f"http://localhost:{api.port}")  # a host name: aiohttp keeps no IP's cookies
    try:
        for _ in range(2):
            answer = httpx2.post(running.url + "/v1/messages", headers={"x-api-key": token}, timeout=60,
                                 json={"model": MODEL, "max_tokens": 100, "messages": ASK})  # fmt: skip
            assert answer.status_code == 200
    finally:
        running.stop()
    assert len(api.requests) == 2 and b"cookie" not in api.requests[1].lower()


def test_a_refused_connection_is_a_502_and_releases_the_reservation(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]  # closed again at once: nothing listens there
    answer, store = _ask(tmp_path, f"http://127.0.0.1:{port}")
    assert (answer.status_code, answer.json()["error"]["type"]) == (502, "api_error")
    assert store._db.execute("SELECT status, usd FROM ledger").fetchone() == (502, 0.0)


def test_a_connection_closed_after_the_request_was_read_is_a_502_that_keeps_the_worst_case(tmp_path):
    """httpx-aiohttp alone calls this a connect failure, which the gateway would take for a request that never
    left and release: the API may bill a request it read, so the worst case must stay charged."""
    api = FakeAPI(lambda conn: None)  # reads the whole request, then hangs up without a word
    answer, store = _ask(tmp_path, api.url)
    assert b"POST /v1/messages" in api.requests[0], "the request did reach the API"
    assert (answer.status_code, answer.json()["error"]["type"]) == (502, "api_error")
    assert _row(store) == (502, 1, 1)


def test_an_answer_that_is_not_http_is_a_502_that_keeps_the_worst_case(tmp_path):
    api = FakeAPI(lambda conn: conn.sendall(b"SMTP ready, not HTTP\r\n\r\n"))
    answer, store = _ask(tmp_path, api.url)
    assert (answer.status_code, answer.json()["error"]["type"]) == (502, "api_error")
    assert _row(store) == (502, 1, 1)


def test_an_api_that_does_not_answer_in_time_is_a_504_that_keeps_the_worst_case(tmp_path):
    released = threading.Event()
    api = FakeAPI(lambda conn: released.wait(30))
    try:
        answer, store = _ask(tmp_path, api.url, timeout_s=3.0)
    finally:
        released.set()
    assert (answer.status_code, answer.json()["error"]["type"]) == (504, "timeout_error")
    assert _row(store) == (504, 1, 1)


def _streamed(tmp_path, act, **options) -> tuple[bytes, Store, threading.Event]:
    go_on = threading.Event()
    api = FakeAPI(lambda conn: act(conn, go_on))
    running, store, token = _class(tmp_path, api.url, **options)
    got = b""
    try:
        body = {"model": MODEL, "max_tokens": 100, "messages": ASK, "stream": True}
        with httpx2.stream("POST", running.url + "/v1/messages", json=body, headers={"x-api-key": token},
                           timeout=60) as answer:  # fmt: skip
            with contextlib.suppress(httpx2.HTTPError):  # a stream the API broke off is left unended
                for chunk in answer.iter_bytes():
                    got += chunk
                    if b"\n\n" in got:
                        go_on.set()
    finally:
        go_on.set()
        running.stop()
    return got, store, go_on


SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


@pytest.mark.timeout(60)
def test_a_stream_is_relayed_event_by_event_as_it_arrives(tmp_path):
    sse = _simulated(stream=True)
    first, rest = sse.split(b"\n\n", 1)
    waited = []

    def act(conn, go_on):
        conn.sendall(SSE_HEAD + b"%x\r\n%s\n\n\r\n" % (len(first) + 2, first))
        waited.append(go_on.wait(15))  # the rest only once the student has read the first event
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest))

    got, store, _ = _streamed(tmp_path, act)
    assert waited == [True], "the first event reached the student before the API sent the rest"
    assert got == sse
    assert store._db.execute("SELECT status, usd < reserved_usd FROM ledger").fetchone() == (200, 1)


@pytest.mark.timeout(60)
def test_a_stream_broken_mid_way_ends_within_the_read_timeout_and_keeps_the_worst_case(tmp_path):
    """aiohttp's C parser meets the bad chunk and leaves its reader waiting with no timer: the gateway's own
    bound ends it. The API holds the connection open until the test is done, so without that bound the stream
    would not end at all (the test's timeout would fail it)."""
    first = _simulated(stream=True).split(b"\n\n", 1)[0] + b"\n\n"
    held = threading.Event()

    def act(conn, go_on):
        conn.sendall(SSE_HEAD + b"%x\r\n%s\r\n" % (len(first), first))
        go_on.wait(15)
        conn.sendall(b"zz-not-a-chunk-size\r\n")
        held.wait(120)  # and keeps the connection open until the test is done

    try:
        got, store, _ = _streamed(tmp_path, act, timeout_s=2.0)
        assert not held.is_set(), "the stream ended while the API still held its connection open"
    finally:
        held.set()
    assert got == first
    assert _row(store) == (200, 1, 1)


def _connector_error() -> aiohttp.ClientConnectorError:
    return aiohttp.ClientConnectorError(SimpleNamespace(host="api.test", port=443, ssl=True), OSError(111, "refused"))


def _wrapped(kind: type[httpx2.HTTPError], cause: BaseException) -> httpx2.HTTPError:
    """``cause`` as httpx-aiohttp passes it on: an httpx2 error raised from it."""
    try:
        raise kind(str(cause)) from cause
    except kind as e:
        return e


INFO = SimpleNamespace(real_url="https://api.test/v1/messages")


@pytest.mark.parametrize(
    "error, expected",
    [
        (_wrapped(httpx2.ConnectTimeout, aiohttp.ConnectionTimeoutError("connect")), httpx2.ConnectTimeout),
        (_wrapped(httpx2.ConnectError, _connector_error()), httpx2.ConnectError),
        (_wrapped(httpx2.ConnectTimeout, _connector_error()), httpx2.ConnectError),  # httpx-aiohttp as published
        (_wrapped(httpx2.ConnectError, aiohttp.ServerDisconnectedError()), httpx2.ReadError),
        (_wrapped(httpx2.ConnectTimeout, aiohttp.ServerDisconnectedError()), httpx2.ReadError),
        (_wrapped(httpx2.ConnectError, aiohttp.ClientOSError(104, "reset")), httpx2.ReadError),
        (_wrapped(httpx2.ReadTimeout, aiohttp.SocketTimeoutError("read")), httpx2.ReadTimeout),
        (_wrapped(httpx2.ReadError, aiohttp.ClientPayloadError("cut")), httpx2.ReadError),
        (aiohttp.ClientResponseError(INFO, (), status=400, message="bad status line"), httpx2.RemoteProtocolError),
        (TransferEncodingError("bad chunk"), httpx2.RemoteProtocolError),
        (TimeoutError(), httpx2.ReadTimeout),
        (httpx2.UnsupportedProtocol("ftp://"), httpx2.UnsupportedProtocol),
    ],
)
def test_only_an_error_before_the_connection_was_made_releases_a_reservation(error, expected):
    request = httpx2.Request("POST", "https://api.test/v1/messages")
    got = mapped(error, request)
    assert type(got) is expected
    cause = error.__cause__ if isinstance(error, httpx2.HTTPError) else error
    never_left = isinstance(cause, (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError, httpx2.InvalidURL))
    never_left = never_left or expected is httpx2.UnsupportedProtocol  # a URL the transport cannot send to
    assert isinstance(got, NEVER_SENT) == never_left, "released exactly when the request cannot have left"


def test_stopping_the_gateway_closes_its_connections_and_it_serves_again_after(tmp_path):
    closed = []

    class Kept(httpx2.AsyncBaseTransport):
        async def aclose(self) -> None:
            closed.append(True)

    Running(Gateway(Store(tmp_path / "l.sqlite"), Kept(), "http://upstream.test", KEY)).stop()
    assert closed == [True]
    body = _simulated(stream=False)
    api = FakeAPI(_answer(body), _answer(body))
    (tmp_path / "again").mkdir()
    running, _, token = _class(tmp_path / "again", api.url)
    gateway = running.server.config.app
    running.stop()  # its transport closed: a second server on the same gateway must open it again
    for _ in range(2):
        running = Running(gateway)
        try:
            answer = httpx2.post(running.url + "/v1/messages", headers={"x-api-key": token}, timeout=60,
                                 json={"model": MODEL, "max_tokens": 100, "messages": ASK})  # fmt: skip
        finally:
            running.stop()
        assert answer.status_code == 200, answer.text


def test_ctrl_c_stops_gateway_serve_with_no_traceback_and_no_connection_left_open(tmp_path):
    """An instructor ends the gateway with Ctrl-C: after it has forwarded (so aiohttp holds a connection), it
    exits 0 and prints nothing but its first line (aiohttp names an unclosed session on stderr)."""
    api = FakeAPI(_answer(_simulated(stream=False)))
    store = Store(tmp_path / "class.sqlite")
    token = store.add_student("ann", 0.5, 2)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "AGENTLAB_GATEWAY_KEY": KEY}
    cmd = [sys.executable, "-m", "agentlab.cli", "gateway", "serve", "--db", str(store.path), "--upstream", api.url,
           "--port", str(port)]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(300):  # bounded: up to 30 s to start
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.1)
        answer = httpx2.post(f"http://127.0.0.1:{port}/v1/messages", headers={"x-api-key": token}, timeout=60,
                             json={"model": MODEL, "max_tokens": 100, "messages": ASK})  # fmt: skip
        assert answer.status_code == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err == "" and out.startswith("agentlab gateway: ledger ") and out.count("\n") == 1, (out, err)
    assert KEY not in out + err
