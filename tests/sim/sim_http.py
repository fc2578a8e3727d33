"""Raw HTTP to an in-process simulator: for what the SDK would never send (no version header, bad JSON...)."""

from __future__ import annotations

import json

import httpx2

from agentlab.sim.server import Simulator

HEADERS = {"anthropic-version": "2026-10-21", "content-type": "application/json"}


def post(body: object, *, sim: Simulator | None = None, headers: dict | None = None,
         path: str = "/v1/messages", raw: bytes | None = None) -> httpx2.Response:
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
