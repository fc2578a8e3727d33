"""Anthropic-compatible servers at ``base_url`` (Ollama, llama.cpp's ``llama-server``, vLLM): what they
lack, and how the lab goes on without it, each said once in one line.

What their own documentation says they lack (read 2026-12-02):

- ``POST /v1/messages/count_tokens``: Ollama lists it as not supported
  (https://docs.ollama.com/api/anthropic-compatibility, "Not supported"); llama.cpp serves it
  (tools/server/README.md, "POST /v1/messages/count_tokens"); vLLM's Anthropic router
  (vllm/entrypoints/anthropic/api_router.py, as read) routes ``/v1/messages`` only.
- prompt caching: Ollama lists ``cache_control`` as not supported and its ``usage`` as
  ``input_tokens``/``output_tokens`` only; vLLM's ``AnthropicUsage`` leaves both cache fields ``None``
  and drops them from the JSON. The Meter then records the call with ``cache_reported=False``.
- ``tool_choice``: Ollama lists it as not supported; vLLM's ``AnthropicToolChoice`` takes the types
  ``auto``, ``any`` and ``tool`` only (no ``none``) and has no ``disable_parallel_tool_use``; llama.cpp
  documents ``auto``, ``any`` and ``tool``. Which of them *refuses* (a 400) rather than ignores a field is
  not documented: :class:`LocalServer` acts on a 400 whose message names the field, whoever sends it.

**When the lab sends a refused call again.** A 400 generated nothing, but the call sent again without
the field is a generating call the student did not write. The lab sends it (once, and drops the field
from the later calls of that client) only when both hold: the server is on this machine (``base_url``'s
host is ``localhost`` or a loopback address) and the model has no price in genai-prices (a Claude id on
``localhost`` may be a proxy, such as LiteLLM, forwarding to the paid API). Anywhere else the 400
reaches the caller and :func:`~agentlab.live.errors.explain` says in one line which field and what to do.
"""

from __future__ import annotations

import ipaddress
import sys
from typing import Any
from urllib.parse import urlsplit

from anthropic import Middleware

from agentlab.meter.usage import field_of

FIELDS = ("disable_parallel_tool_use", "tool_choice")
"""Request fields a compatible server may refuse, most specific first (the first one a 400 names wins)."""

NO_ENDPOINT = (404, 405, 501)
"""Statuses meaning "this server has no such endpoint" (not found, method not allowed, not implemented)."""

NOT_REPORTED = "not reported by this server"
"""What a table shows for cache reads and writes when the server's usage has no cache fields."""


def say(line: str) -> None:
    """One notice line: plain in a notebook (stderr shows there as a pink error box), else on stderr."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    in_notebook = bool(get and type(get()).__name__ == "ZMQInteractiveShell")
    print(line, file=sys.stdout if in_notebook else sys.stderr)


def is_local(base_url: Any) -> bool:
    """True when ``base_url``'s host is this machine: ``localhost`` or a loopback address."""
    host = (urlsplit(str(base_url or "")).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_anthropic(base_url: Any) -> bool:
    """True when ``base_url`` is Anthropic's own API (``*.anthropic.com``)."""
    host = (urlsplit(str(base_url or "")).hostname or "").lower()
    return host == "anthropic.com" or host.endswith(".anthropic.com")


def no_token_counting(error: Exception) -> bool:
    """True when a failed ``count_tokens`` means the server has no such endpoint (404/405/501), not a
    404 about the model (the API's ``model: <id>``, which the paid call then reports itself)."""
    status = getattr(error, "status_code", None)
    if status not in NO_ENDPOINT:
        return False
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    return not (isinstance(message, str) and message.startswith("model:"))


def cache_reported(usage: Any) -> bool:
    """True when a response's ``usage`` (its JSON or the SDK's ``Usage``) carries a cache field (the API always
    sends both, 0 or more)."""
    return any(field_of(usage, k) is not None for k in ("cache_read_input_tokens", "cache_creation_input_tokens"))


def marks_cache(body: dict) -> bool:
    """True when ``body`` marks a ``cache_control`` breakpoint where a harness puts them: top level, the
    tools, the system blocks, the last two messages (a few lookups, not a walk over the history)."""

    def marked(blocks: Any) -> bool:
        return isinstance(blocks, list) and any(isinstance(b, dict) and b.get("cache_control") for b in blocks)

    last = [m.get("content") for m in (body.get("messages") or [])[-2:] if isinstance(m, dict)]
    return (
        bool(body.get("cache_control"))
        or marked(body.get("tools"))
        or marked(body.get("system"))
        or any(marked(c) for c in last)
    )


def refused_field(message: Any, body: dict) -> str | None:
    """The field of ``body`` a 400's error ``message`` names (``disable_parallel_tool_use`` or
    ``tool_choice``), or ``None`` when it names neither or the request did not send it."""
    if not isinstance(message, str):
        return None
    return next((f for f in FIELDS if f in message and sends(body, f)), None)


def sends(body: dict, field: str) -> bool:
    """True when ``body`` carries ``field`` (``disable_parallel_tool_use`` lives inside ``tool_choice``)."""
    choice = body.get("tool_choice")
    return isinstance(choice, dict) and (field == "tool_choice" or field in choice)


def without(body: dict, field: str) -> dict:
    """``body`` without ``field``: ``disable_parallel_tool_use`` leaves the rest of ``tool_choice``."""
    if field == "tool_choice":
        return {k: v for k, v in body.items() if k != "tool_choice"}
    choice = {k: v for k, v in body["tool_choice"].items() if k != field}
    return {**body, "tool_choice": choice}


def error_message(response: Any) -> str | None:
    """The error message of a failed response in the API's envelope, or ``None``."""
    try:
        response.http_response.read()  # a streamed request's error body is not read yet
        data = response.http_response.json()
    except Exception:  # not JSON (a proxy's HTML page): nothing names a field
        return None
    inner = data.get("error") if isinstance(data, dict) else None
    return inner.get("message") if isinstance(inner, dict) else None


class LocalServer(Middleware):
    """SDK middleware for a client whose ``base_url`` is not Anthropic's: a 400 that names
    ``tool_choice`` or ``disable_parallel_tool_use`` is sent again once without it when that is free
    (see the module docstring), with one notice per field; later calls leave the field out up front.

    Args:
        base_url: Where the client's calls go.
        free: Whether a call there costs nothing (default: ``is_local(base_url)``); the model's price is
            checked per call as well.
    """

    def __init__(self, base_url: Any, free: bool | None = None) -> None:
        self.base_url = str(base_url)
        """Where the client's calls go."""
        self.free = is_local(base_url) if free is None else free
        """Whether the server is on this machine (a call there bills nothing)."""
        self.dropped: list[str] = []
        """Fields this server refused, left out of every later request."""
        self.resent = 0
        """Calls sent again without a refused field (at most one per call)."""

    def handle(self, request: Any, call_next: Any) -> Any:  # type: ignore[override]
        body = request.json if isinstance(request.json, dict) else None
        if (
            request.method.lower() != "post"
            or body is None
            or not str(request.url).rstrip("/").endswith("/v1/messages")
        ):
            return call_next(request)
        for field in self.dropped:
            if sends(body, field):
                body = without(body, field)
                request = request.copy(body=body)
        response = call_next(request)
        if response.http_response.status_code != 400:
            return response
        field = refused_field(error_message(response), body)
        if field is None or not self.free or _priced(body.get("model")):
            return response  # the caller gets the 400; explain() names the field and the fix
        self.dropped.append(field)
        self.resent += 1
        say(
            f"agentlab: the server at {self.base_url} refused {field} (HTTP 400); sent once more without it, "
            f"free on this machine, and left out of later calls: the model now picks its own tools, and the "
            f"loop's guards (max_turns, Limits) still bound the run"
        )
        return call_next(request.copy(body=without(body, field)))  # one resend per call: the field is gone


def _priced(model: Any) -> bool:
    """True when genai-prices knows a price for ``model`` (then a call may be billed somewhere)."""
    from agentlab.meter.prices import price_per_mtok

    return any(p is not None for p in price_per_mtok(str(model or "")))
