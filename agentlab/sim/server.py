"""The simulated Messages API: a request handler that speaks the API's HTTP and JSON.

``Simulator.handle`` takes an ``httpx2.Request`` and returns an ``httpx2.Response``, so it plugs into
the real SDK as an ``httpx2.MockTransport`` (in-process, see ``connect``) or behind a local HTTP
server (``agentlab serve``). It serves ``POST /v1/messages`` and ``POST /v1/messages/count_tokens``,
validates requests as the API does, and answers errors in the API's envelope.

Deterministic: ids come from a per-simulator counter and a hash of the request, bodies carry no
wall-clock time, so the same request sequence gives byte-identical responses.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
import typing
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

import httpx2

from ..accounting import SIM_HEADER
from .caching import PromptCache
from .careful import CarefulAgent
from .errors import SimAPIError, invalid
from .policy import Policy, as_reply
from .tokens import estimate_input_tokens, estimate_output_tokens, text_tokens
from .latency import LATENCY_HEADER, simulated_latency_s
from .validate import validate_messages_request


@lru_cache(maxsize=1)
def model_catalog() -> dict:
    """The default model and every id the simulator answers to: the installed SDK's ``ModelParam``
    ids (the SDK is the truth about current models) plus the older ids in ``data/models.json``."""
    from anthropic.types.model_param import ModelParam

    data = json.loads(resources.files("agentlab.sim").joinpath("data/models.json").read_text("utf-8"))
    sdk_ids = [a for arg in typing.get_args(ModelParam) for a in typing.get_args(arg)]
    return {**data, "models": sorted({*sdk_ids, *data["models"]})}


def _digest(counter: int, request: httpx2.Request) -> str:
    """One hash per request (its counter, path and raw body): the seed of every id in the answer."""
    return hashlib.sha256(b"%d %s " % (counter, request.url.path.encode()) + request.content).hexdigest()


class Simulator:
    """An in-process stand-in for the Anthropic Messages API."""

    def __init__(self, policy: Policy | None = None, *, parallel: bool = False,
                 clock: Callable[[], float] | None = None) -> None:
        self.policy: Policy = policy if policy is not None else CarefulAgent(parallel=parallel)
        """Decides what the simulated model writes."""
        self.counter = 0
        """Requests served so far; part of every id, so ids never repeat within one simulator."""
        self.models = set(model_catalog()["models"])
        """Model ids answered; any other gets ``404 not_found_error``."""
        self.clock: Callable[[], float] = clock or time.monotonic
        """Seconds, for cache lifetimes; a ``SimClock`` is moved on by each response's simulated latency."""
        self.cache = PromptCache()
        """The prompt cache (``cache_control``), shared by every request to this simulator."""

    def transport(self) -> httpx2.MockTransport:
        """An httpx2 transport that routes every request into this simulator."""
        return httpx2.MockTransport(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """Answer one HTTP request as the Messages API would."""
        self.counter += 1
        seed = _digest(self.counter, request)
        request_id = f"req_sim_{self.counter:06d}_{seed[:12]}"
        headers = {"request-id": request_id, SIM_HEADER: "true; token counts are estimates"}
        try:
            body = self._parse(request)
            path = request.url.path.rstrip("/")
            if request.method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
                raise SimAPIError("not_found_error", f"Not found: {request.method} {request.url.path} (the simulator serves POST /v1/messages and /v1/messages/count_tokens)")
            counting = path.endswith("count_tokens")
            validate_messages_request(body, known_models=self.models, count_tokens=counting)
            payload = {"input_tokens": estimate_input_tokens(body)} if counting else self._message(body, seed)
            if not counting:
                headers[LATENCY_HEADER] = self._elapse(payload)
            return httpx2.Response(200, json=payload, headers=headers)
        except SimAPIError as e:
            return httpx2.Response(e.status, json=e.envelope(request_id), headers=headers)
        except Exception as e:  # a bug in a policy (a student's FunctionModel, say): say where, as a 500
            where = traceback.extract_tb(e.__traceback__)[-1]
            err = SimAPIError("api_error", f"the simulated model's policy raised {type(e).__name__}: {e} "
                                           f"(at {where.filename}:{where.lineno}, in {where.name})")
            return httpx2.Response(err.status, json=err.envelope(request_id), headers=headers)

    @staticmethod
    def _parse(request: httpx2.Request) -> Any:
        try:
            return json.loads(request.content or b"null")
        except json.JSONDecodeError as e:
            raise invalid(f"The request body is not valid JSON: {e.msg} at position {e.pos}.") from None

    def _message(self, body: dict, seed: str) -> dict:
        if body.get("stream"):
            raise invalid("agentlab simulator: stream=true is not simulated yet; call messages.create without stream=True.")
        reply = as_reply(self.policy(body))
        content = []
        for i, block in enumerate(reply.content):
            block = dict(block)
            if block["type"] == "tool_use":
                block = {"type": "tool_use", "id": f"toolu_sim_{seed[i * 8:i * 8 + 16]}{i:02d}",
                         "name": block["name"], "input": block.get("input", {})}
            content.append(block)
        stop = reply.stop_reason or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
        content, stop, sequence = _stop_at_sequence(content, stop, body.get("stop_sequences") or [])
        content, stop = _cap(content, stop, body["max_tokens"])
        return {
            "id": f"msg_sim_{self.counter:06d}{seed[:14]}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": sequence,
            "usage": {"output_tokens": estimate_output_tokens(content),
                      **self.cache.apply(body, estimate_input_tokens(body), self.clock())},
        }

    def _elapse(self, payload: dict) -> str:
        """The response's simulated latency in ms (header value); a ``SimClock`` moves on by that much."""
        seconds = simulated_latency_s(payload["model"], payload["usage"])
        if hasattr(self.clock, "advance"):
            self.clock.advance(seconds)  # type: ignore[attr-defined]
        return f"{seconds * 1000:.1f}"


def _stop_at_sequence(content: list[dict], stop: str, stops: list[str]) -> tuple[list[dict], str, str | None]:
    """Cut the reply at the first of ``stop_sequences`` it writes, as the API does."""
    for i, block in enumerate(content):
        if block["type"] != "text":
            continue
        hits = [(block["text"].find(s), s) for s in stops if s and s in block["text"]]
        if hits:
            at, seq = min(hits)
            return content[:i] + [{"type": "text", "text": block["text"][:at]}], "stop_sequence", seq
    return content, stop, None


def _cap(content: list[dict], stop: str, max_tokens: int) -> tuple[list[dict], str]:
    """Apply ``max_tokens`` (cut the text, drop unfinished tool calls) as the API would end the turn."""
    if estimate_output_tokens(content) <= max_tokens:
        return content, stop
    kept, budget = [], max_tokens
    for block in content:
        if block["type"] != "text":
            break
        words = block["text"].split(" ")
        cut = []
        for w in words:
            if text_tokens(" ".join(cut + [w])) > budget:
                break
            cut.append(w)
        if cut:
            kept.append({"type": "text", "text": " ".join(cut)})
        budget -= text_tokens(" ".join(cut))
        if budget <= 0 or len(cut) < len(words):
            break
    return kept, "max_tokens"
