"""Metering what ``Meter.handle`` cannot read from a parsed ``Message``: streamed calls and failed attempts.

* A streamed call (``stream=True``, ``messages.stream()``, a streaming tool runner) returns before
  its body exists. :func:`tap_stream` wraps the response's byte stream: the bytes reach the caller
  unchanged, and the server-sent events are read on the way (``message_start`` for the model and
  input usage, ``content_block_start`` for tool calls, ``message_delta`` for the stop reason and final
  usage); at ``message_stop`` the call is recorded like any other. A stream the caller never reads to
  the end is not recorded (its usage never arrived).
* Every HTTP attempt, failed ones included, is kept as an :class:`Attempt`; the SDK's retries are
  marked (``retry=True``), so a run with injected faults shows what the retries cost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import httpx2

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
"""The API's error type for each status (https://platform.claude.com/docs/en/api/errors)."""


@dataclass
class Attempt:
    """One HTTP attempt at ``POST /v1/messages``, successful or not."""

    status: int
    """HTTP status of the answer."""
    retry: bool
    """True when the SDK sent this attempt as a retry of a failed one."""
    wall_s: float
    """Seconds until the answer's headers arrived."""
    error_type: str | None
    """The API's error type for a failed attempt (by status), ``None`` for a success."""


def record_attempt(meter: Any, request: Any, response: Any, wall_s: float) -> bool:
    """Append an :class:`Attempt` to ``meter.attempts``; return whether this attempt was a retry."""
    status = response.http_response.status_code
    retry = bool(getattr(request, "retries_taken", 0))
    meter.attempts.append(
        Attempt(status, retry, wall_s, None if status < 400 else ERROR_TYPES.get(status, f"http_{status}"))
    )
    return retry


class _Tap(httpx2.SyncByteStream):
    def __init__(self, inner: Any, on_message: Callable[[dict], None]) -> None:
        self.inner, self.on_message, self.buffer = inner, on_message, b""
        self.summary: dict = {"model": "", "usage": {}, "stop_reason": None, "content": []}

    def __iter__(self):
        for chunk in self.inner:
            yield chunk
            self.buffer += chunk
            *events, self.buffer = self.buffer.replace(b"\r\n", b"\n").split(b"\n\n")
            for event in events:
                self._read(event)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close:
            close()

    def _read(self, event: bytes) -> None:
        data = b"".join(line[5:].strip() for line in event.split(b"\n") if line.startswith(b"data:"))
        try:
            payload = json.loads(data) if data else None
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        kind, s = payload.get("type"), self.summary
        if kind == "message_start":
            s["model"], s["id"] = payload["message"].get("model", ""), payload["message"].get("id")
            s["usage"].update(payload["message"].get("usage") or {})
        elif kind == "content_block_start":
            block = payload.get("content_block") or {}
            s["content"].append(
                {
                    "type": block.get("type"),
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "text": block.get("text") or "",
                }
            )
        elif kind == "content_block_delta" and (payload.get("delta") or {}).get("type") == "text_delta":
            at = payload.get("index", len(s["content"]) - 1)
            if 0 <= at < len(s["content"]):
                s["content"][at]["text"] += payload["delta"].get("text", "")
        elif kind == "message_delta":
            s["stop_reason"] = (payload.get("delta") or {}).get("stop_reason")
            s["usage"].update({k: v for k, v in (payload.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.on_message(s)


def tap_stream(response: Any, on_message: Callable[[dict], None]) -> None:
    """Read ``response``'s server-sent events as the caller consumes them; call ``on_message`` at ``message_stop``."""
    http = response.http_response
    tap = _Tap(http.stream, on_message)
    if hasattr(http, "_content"):  # already in memory (an in-process transport): read its events now
        for _ in _Tap([http._content], on_message):
            pass
        return
    http.stream = tap
