"""The gateway's transport to the API as shipped (``api_upstream``: aiohttp behind httpx2's interface), against
real sockets on loopback: what it relays, and whether a forward that failed is charged (it is, unless the
request never left)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx2
import pytest
from gateway_room import ASK, KEY, MODEL

from agentlab.gateway.app import Gateway
from agentlab.gateway.serve import Running, api_upstream
from agentlab.gateway.store import Store
from agentlab.sim.server import Simulator


class FakeAPI:
    """A one-connection HTTP server on loopback that reads one whole request and then does ``act(conn)``."""

    def __init__(self, act) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:{}".format(self.sock.getsockname()[1])
        self.request = b""
        self.act = act
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(20)
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(20)
            while b"\r\n\r\n" not in self.request:  # bounded by the timeout: each recv gets bytes or raises
                self.request += conn.recv(65536) or b"!"
            head, _, body = self.request.partition(b"\r\n\r\n")
            length = int(
                next(
                    v for k, _, v in (h.partition(b":") for h in head.split(b"\r\n")) if k.lower() == b"content-length"
                )
            )
            while len(body) < length:
                body += conn.recv(65536)
            self.request = head + b"\r\n\r\n" + body
            self.act(conn)
        self.sock.close()


def _answer(body: bytes, content_type: bytes = b"application/json"):
    def act(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type + b"\r\ncontent-length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)  # fmt: skip

    return act


def _simulated(stream: bool) -> bytes:
    """What the simulator answers the test's request, as the API would send it."""
    body = {"model": MODEL, "max_tokens": 100, "messages": ASK, "stream": stream}
    request = httpx2.Request("POST", "http://api.test/v1/messages", json=body,
                             headers={"anthropic-version": "2023-06-01", "x-api-key": "k"})  # fmt: skip
    response, _ = Simulator().answer(request)
    return response.read()


def _through_gateway(tmp_path, upstream_url: str, **body) -> tuple[httpx2.Response, Store]:
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    running = Running(Gateway(store, api_upstream(), upstream_url, KEY, timeout_s=1.0))
    try:
        answer = httpx2.post(running.url + "/v1/messages", headers={"x-api-key": token}, timeout=30,
                             json={"model": MODEL, "max_tokens": 100, "messages": ASK, **body})  # fmt: skip
    finally:
        running.stop()
    return answer, store


def test_an_answer_comes_back_byte_for_byte_with_the_instructors_key_sent_only_upstream(tmp_path):
    data = json.loads(_simulated(stream=False))
    body = json.dumps({**data, "a_field_from_2027": {"kept": True}}, separators=(",", ":")).encode()
    api = FakeAPI(_answer(body))
    answer, store = _through_gateway(tmp_path, api.url)
    assert answer.status_code == 200 and answer.content == body
    assert b"x-api-key: " + KEY.encode() in api.request and KEY not in answer.text
    status, usd, reserved = store._db.execute("SELECT status, usd, reserved_usd FROM ledger").fetchone()
    assert status == 200 and 0 < usd < reserved, "settled to the usage the answer reports"


def test_a_refused_connection_is_a_502_and_releases_the_reservation(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]  # closed again at once: nothing listens there
    answer, store = _through_gateway(tmp_path, f"http://127.0.0.1:{port}")
    assert (answer.status_code, answer.json()["error"]["type"]) == (502, "api_error")
    assert store._db.execute("SELECT status, usd FROM ledger").fetchone() == (502, 0.0)


def test_a_connection_closed_after_the_request_was_read_is_a_502_that_keeps_the_worst_case(tmp_path):
    """httpx-aiohttp alone calls this a connect error, which the gateway would take for a request that never
    left and release: the API may bill a request it read, so the worst case must stay charged."""
    api = FakeAPI(lambda conn: None)  # reads the whole request, then hangs up without a word
    answer, store = _through_gateway(tmp_path, api.url)
    assert b"POST /v1/messages" in api.request, "the request did reach the API"
    assert (answer.status_code, answer.json()["error"]["type"]) == (502, "api_error")
    assert store._db.execute("SELECT status, usd = reserved_usd, usd > 0 FROM ledger").fetchone() == (502, 1, 1)


def test_an_api_that_does_not_answer_in_time_is_a_504_that_keeps_the_worst_case(tmp_path):
    released = threading.Event()
    api = FakeAPI(lambda conn: released.wait(10))  # the gateway waits 1 s
    try:
        answer, store = _through_gateway(tmp_path, api.url)
    finally:
        released.set()
    assert (answer.status_code, answer.json()["error"]["type"]) == (504, "timeout_error")
    assert store._db.execute("SELECT status, usd = reserved_usd FROM ledger").fetchone() == (504, 1)


@pytest.mark.timeout(60)
def test_a_stream_is_relayed_event_by_event_as_it_arrives(tmp_path):
    sse = _simulated(stream=True)
    first, rest = sse.split(b"\n\n", 1)
    first += b"\n\n"
    go_on, waited = threading.Event(), []

    def act(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        conn.sendall(b"%x\r\n%s\r\n" % (len(first), first))
        waited.append(go_on.wait(15))  # the rest only once the student has read the first event
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest))

    api = FakeAPI(act)
    store = Store(tmp_path / "l.sqlite")
    token = store.add_student("ann", 0.5, 2)
    running = Running(Gateway(store, api_upstream(), api.url, KEY))
    got = b""
    try:
        body = {"model": MODEL, "max_tokens": 100, "messages": ASK, "stream": True}
        with httpx2.stream("POST", running.url + "/v1/messages", json=body, headers={"x-api-key": token},
                           timeout=30) as answer:  # fmt: skip
            for chunk in answer.iter_bytes():
                got += chunk
                if b"\n\n" in got:
                    go_on.set()
    finally:
        go_on.set()
        running.stop()
    assert waited == [True], "the first event reached the student before the API sent the rest"
    assert got == sse


def test_stopping_the_gateway_closes_its_connections_to_the_api(tmp_path):
    closed = []

    class Kept(httpx2.AsyncBaseTransport):
        async def aclose(self) -> None:
            closed.append(True)

    Running(Gateway(Store(tmp_path / "l.sqlite"), Kept(), "http://upstream.test", KEY)).stop()
    assert closed == [True]


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
        answer = httpx2.post(f"http://127.0.0.1:{port}/v1/messages", headers={"x-api-key": token}, timeout=30,
                             json={"model": MODEL, "max_tokens": 100, "messages": ASK})  # fmt: skip
        assert answer.status_code == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err == "" and out.startswith("agentlab gateway: ledger ") and out.count("\n") == 1, (out, err)
    assert KEY not in out + err
