"""Raw HTTP to an in-process simulator: for what the SDK would never send (no version header, bad JSON...)."""

from __future__ import annotations

import json

import httpx2

from agentlab.sim.server import Simulator

HEADERS = {"anthropic-version": "2026-10-21", "content-type": "application/json"}


def post(
    body: object,
    *,
    sim: Simulator | None = None,
    headers: dict | None = None,
    path: str = "/v1/messages",
    raw: bytes | None = None,
) -> httpx2.Response:
    """POST ``body`` (or ``raw`` bytes) to the simulator and return its response."""
    content = raw if raw is not None else json.dumps(body).encode()
    sent = {k: v for k, v in {**HEADERS, **(headers or {})}.items() if v is not None}  # None: leave the header out
    request = httpx2.Request("POST", f"https://sim.invalid{path}", headers=sent, content=content)
    return (sim or Simulator()).handle(request)


def error(response: httpx2.Response) -> tuple[int, str, str]:
    """(status, error type, message) of an error response."""
    err = response.json()["error"]
    return response.status_code, err["type"], err["message"]


def body(model: str = "claude-sonnet-5-5", **fields: object) -> dict:
    """A minimal valid request body, with ``fields`` set."""
    return {"model": model, "max_tokens": 100, "messages": [{"role": "user", "content": "Hello"}], **fields}


def raw_http(port: int, data: bytes, *, timeout: float = 10.0) -> tuple[int, dict, bytes]:
    """Send ``data`` as is to ``agentlab serve`` on loopback; (status, headers, body) of the one answer.

    Reads until the answer's ``Content-Length`` is in or the server closes; a status of 0 means no answer."""
    import re
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:  # the server answered and closed before taking everything
            pass
        got = b""
        for _ in range(10_000):  # bounded: each round reads something or ends
            head, sep, rest = got.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"^content-length: *(\d+)", head, re.I | re.M)
                if m and len(rest) >= int(m.group(1)):
                    break
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/1\.[01] (\d{3})", lines[0])
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return (int(m.group(1)) if m else 0), headers, body


def assert_envelope(status: int, headers: dict, body: bytes) -> dict:
    """An answer with a status and, for an error, the API's envelope naming no file of the package."""
    assert 200 <= status <= 599, (status, body[:200])
    assert "application/json" in headers.get("content-type", "") or "text/event-stream" in headers.get(
        "content-type", ""
    ), headers
    text = body.decode("utf-8")
    for needle in ("agentlab/", "agentlab\\\\", ".py", "Traceback", "site-packages"):
        assert needle not in text, (needle, text[:300])
    parsed = json.loads(text) if "application/json" in headers.get("content-type", "") else {}
    if status >= 400:
        assert parsed["type"] == "error" and set(parsed["error"]) >= {"type", "message"}, parsed
    return parsed
