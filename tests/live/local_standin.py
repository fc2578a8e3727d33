"""An offline stand-in for a local Anthropic-compatible server (Ollama, llama.cpp's llama-server, vLLM).

The simulator answers behind it, as a model with no price (``qwen3-coder`` by default, the model
Ollama's docs use), and the stand-in takes away what such servers lack
(https://docs.ollama.com/api/anthropic-compatibility, "Not supported"):

- ``POST /v1/messages/count_tokens`` answers 404 with a plain-text body, as a server without the route does;
- ``usage`` carries ``input_tokens`` and ``output_tokens`` only (no cache fields), streamed or not;
- a request with ``tool_choice`` (or with ``disable_parallel_tool_use`` in it) is refused with a 400 whose
  message names the field. Which servers refuse rather than ignore these fields is not documented; the
  wording is the stand-in's own.

No network: it is an ``httpx2.MockTransport``. ``seen`` lists every request it got.
"""

from __future__ import annotations

import json

import httpx2

from agentlab.sim.server import Simulator

BEHIND = "claude-haiku-5-5"
"""The simulated model answering behind the stand-in (it accepts a forced ``tool_choice``)."""

CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation")


def _strip(obj, model):
    """``obj`` (a message, an event) without cache fields in any ``usage``, and naming ``model``."""
    if isinstance(obj, dict):
        out = {k: _strip(v, model) for k, v in obj.items() if k not in CACHE_FIELDS}
        if "model" in out and isinstance(out["model"], str):
            out["model"] = model
        return out
    if isinstance(obj, list):
        return [_strip(v, model) for v in obj]
    return obj


def _refusal(field):
    message = f"{field}: not supported by this server"
    return httpx2.Response(400, json={"type": "error", "error": {"type": "invalid_request_error", "message": message}})


def local_server(refuses=("tool_choice",), sim=None):
    """A transport answering like a local compatible server, and the list of requests it saw.

    ``refuses``: the fields it answers with a 400 (``"tool_choice"``, ``"disable_parallel_tool_use"``; ``()``: none).
    """
    simulator = sim or Simulator()
    seen = []

    def handle(request):
        seen.append(request)
        if request.url.path.endswith("/count_tokens"):
            return httpx2.Response(404, text="404 page not found")
        body = json.loads(request.content or b"{}")
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            if "disable_parallel_tool_use" in refuses and "disable_parallel_tool_use" in choice:
                return _refusal("tool_choice.disable_parallel_tool_use")
            if "tool_choice" in refuses:
                return _refusal("tool_choice")
        model = body.get("model", "")
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        inner = httpx2.Request(
            request.method, request.url, headers=headers, content=json.dumps({**body, "model": BEHIND}).encode()
        )
        answer = simulator.handle(inner)
        raw = answer.read()
        kept = [
            (k, v)
            for k, v in answer.headers.multi_items()
            if not k.lower().startswith("agentlab-") and k.lower() not in ("content-length", "content-encoding")
        ]
        if answer.status_code != 200:
            return httpx2.Response(answer.status_code, headers=kept, content=raw)
        if body.get("stream"):
            lines = [
                b"data: " + json.dumps(_strip(json.loads(ln[6:]), model)).encode() if ln.startswith(b"data: ") else ln
                for ln in raw.split(b"\n")
            ]
            return httpx2.Response(200, headers=kept, content=b"\n".join(lines))
        return httpx2.Response(200, headers=kept, content=json.dumps(_strip(json.loads(raw), model)).encode())

    return httpx2.MockTransport(handle), seen


def paid(seen):
    """The generating requests among ``seen`` (``POST /v1/messages``), as parsed bodies."""
    return [json.loads(r.content) for r in seen if r.url.path.endswith("/v1/messages")]


def counted(seen):
    """How many ``count_tokens`` requests ``seen`` holds."""
    return sum(r.url.path.endswith("/count_tokens") for r in seen)
