"""A client crosses into the sandbox as its API: the student's SDK on one side, the test's client on the other.

When a test hands the student's function a client, the sandbox builds a real ``anthropic.Anthropic`` whose
HTTP transport (``sandbox_client``) writes each request down the channel as data: method, URL, the
``anthropic-beta`` header and the body. The trusted side sends it through the test's own client (``answer``),
so that client's simulator validates it and its Meter and trace record it exactly as they record the test's
own calls; the status, headers and body go back, and the student's SDK parses them as it would the network's.
The Messages API is the only live protocol between the two sides; no object of the test's crosses.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any
from urllib.parse import urlsplit

FORWARDED_HEADERS = ("anthropic-beta",)
"""Request headers of the student's client that reach the test's client (it sets the others itself)."""


def is_client(obj: Any) -> bool:
    """Whether ``obj`` is an ``anthropic.Anthropic`` (without importing the SDK where nothing has)."""
    anthropic = sys.modules.get("anthropic")
    return anthropic is not None and isinstance(obj, anthropic.Anthropic)


def sandbox_client(peer: Any, ref: int, base_url: str, max_retries: int) -> Any:
    """Sandbox side: the student's client, whose every HTTP request is ``peer.request({"op": "http", ...})``."""
    import anthropic
    import httpx2

    class PipeTransport(httpx2.BaseTransport):
        def handle_request(self, request):
            body = request.read()
            http = {
                "method": request.method,
                "url": str(request.url),
                "headers": {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_HEADERS},
                "body": body.decode("utf-8", "replace"),
            }
            answer = peer.request({"op": "http", "h": ref, "http": http})
            return httpx2.Response(
                int(answer["status"]), headers=list(answer["headers"]), content=base64.b64decode(answer["body"])
            )

    return anthropic.Anthropic(
        api_key="the-grader-answers",
        base_url=base_url,
        max_retries=max_retries,
        http_client=httpx2.Client(transport=PipeTransport()),
    )


def answer(client: Any, http: dict) -> dict:
    """Trusted side: one HTTP request of the student's client, made with the test's client; status, headers, body.

    Sent once (``max_retries=0``): retrying is the student's SDK's business, as it would be on the network."""
    import anthropic

    method, path = str(http.get("method", "")).upper(), urlsplit(str(http.get("url", ""))).path
    headers = {
        str(k): str(v) for k, v in dict(http.get("headers") or {}).items() if str(k).lower() in FORWARDED_HEADERS
    }
    options = {"headers": {**headers, "X-Stainless-Raw-Response": "raw"}, "max_retries": 0}
    body = json.loads(http["body"]) if http.get("body") else None
    try:
        if method == "GET":
            raw = client.get(path, cast_to=object, options=options)
        elif method == "POST":
            stream = isinstance(body, dict) and body.get("stream") is True
            raw = client.post(
                path, body=body, cast_to=object, options=options, stream=stream, stream_cls=anthropic.Stream
            )
        else:
            raise ValueError(f"the grader's client answers GET and POST, not {method}")
        response = raw.http_response
    except anthropic.APIStatusError as e:
        response = e.response
    content = response.read()
    return {
        "status": response.status_code,
        "headers": [[k, v] for k, v in response.headers.items() if k.lower() != "content-length"],
        "body": base64.b64encode(content).decode(),
    }
