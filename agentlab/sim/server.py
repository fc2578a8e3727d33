"""The simulated Messages API: a request handler that speaks the API's HTTP and JSON.

``Simulator.handle`` takes an ``httpx2.Request`` and returns an ``httpx2.Response``, so it plugs into
the real SDK as an ``httpx2.MockTransport`` (in-process, see ``connect``) or behind a local HTTP
server (``agentlab serve``). It serves ``POST /v1/messages`` (JSON, or server-sent events with
``stream: true``) and ``POST /v1/messages/count_tokens``, checks the ``anthropic-version`` header,
validates requests as the API does for the model asked for (its profile, ``profiles.py``), continues
server-side message threads, can inject seeded faults (``faults.py``), and answers errors in the API's
envelope. The Message Batches endpoints (``/v1/messages/batches...``) are served by ``batches.py``, each
request of a batch answered as ``POST /v1/messages`` would answer it.

Deterministic: ids come from a per-simulator counter and a hash of the request, bodies carry no
wall-clock time, so the same request sequence gives byte-identical responses.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading
import time
import traceback
from typing import Any, Callable

import httpx2

from agentlab.api.profiles import DEFAULT_MODEL, did_you_mean, model_catalog, profiles, today  # noqa: F401  (re-exported)
from agentlab.api.tokens import input_parts
from agentlab.api.wire import BREAKDOWN_HEADER, LATENCY_HEADER, SIM_HEADER
from agentlab.sim.batches import Batches
from agentlab.sim.budgets import check_task_budget
from agentlab.sim.caching import PromptCache
from agentlab.sim.context_editing import apply_context_management
from agentlab.sim.diagnostics import Diagnostics, asked
from agentlab.sim.effort import check_effort
from agentlab.sim.errors import SimAPIError, invalid
from agentlab.sim.faults import Faults, as_faults
from agentlab.sim.latency import simulated_latency_s
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.policy import Policy
from agentlab.sim.respond import build_message
from agentlab.sim.streaming import sse_body
from agentlab.sim.threads import Threads
from agentlab.sim.validate import validate_messages_request
from agentlab.sim.validate_api import check_betas, check_fields, check_sampling, check_version, check_version_content
from agentlab.sim.validate_model import check_context, check_model_rules, model_profile

MAX_BODY_BYTES = 32_000_000
"""Largest request body the Messages API takes: 32 MB (https://platform.claude.com/docs/en/api/overview#request-size-limits,
as cited by the SDK maintainers in https://github.com/anthropics/anthropic-sdk-python/issues/938)."""
MAX_JSON_DEPTH = 128
"""Deepest nesting of arrays and objects a request body may have. A limit of this simulator, not a
documented API one: without it a body nested about 990 deep breaks the JSON parser's (and every
validator's) recursion, and we answer 400 where the real API's limit is unknown."""


def _digest(counter: int, request: httpx2.Request) -> str:
    """One hash per request (its counter, path and raw body): the seed of every id in the answer."""
    return hashlib.sha256(b"%d %s " % (counter, request.url.path.encode()) + request.content).hexdigest()


class Simulator:
    """An in-process stand-in for the Anthropic Messages API."""

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        parallel: bool = True,
        faults: object = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.policy: Policy = policy if policy is not None else CarefulAgent(parallel=parallel)
        """Decides what the simulated model writes."""
        self.counter = 0
        """Requests served so far; part of every id, so ids never repeat within one simulator."""
        self.faults: Faults | None = as_faults(faults)
        """Seeded fault injection (``None``: every request is answered)."""
        self._lock = threading.Lock()
        self.clock: Callable[[], float] = clock or time.monotonic
        """Seconds, for cache and thread lifetimes; a ``SimClock`` is moved on by each response's simulated
        latency and also gives the calendar day that decides which models are retired (``clock.today``)."""
        self.threads = Threads(self.clock)
        """Server-side message threads, for clients that continue one (the SDK's tool runner)."""
        self.cache = PromptCache()
        """The prompt cache (``cache_control``), shared by every request to this simulator."""
        self.diagnostics = Diagnostics()
        """Cache diagnostics: each opted-in request's fingerprint, by the id of its reply (``diagnostics.py``)."""
        self.batches = Batches(self._batched, lambda: self.clock)
        """The Message Batches endpoints: each batch's requests answered by this simulator, on its clock."""

    @property
    def models(self) -> set[str]:
        """Model ids answered today on this simulator's clock; any other (or a retired one) gets ``404 not_found_error``."""
        return set(model_catalog(today(self.clock))["models"])

    def transport(self) -> httpx2.MockTransport:
        """An httpx2 transport that routes every request into this simulator."""
        return httpx2.MockTransport(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """Answer one HTTP request as the Messages API would (waiting out a seeded "slow" fault).

        Thread-safe: each request takes its number under a lock, then is answered outside it, so
        parallel workflows' calls really overlap (a policy that waits for another call cannot deadlock).
        """
        response, delay = self.answer(request)
        if delay:
            time.sleep(delay)
        return response

    def answer(self, request: httpx2.Request) -> tuple[httpx2.Response, float]:
        """``handle`` without the wait: the response and the seconds a "slow" fault holds it back
        (``agentlab serve`` waits those on its event loop, not in a thread)."""
        n = self._number()
        response = self._answer(request, n)
        return response, (self.faults.delay(n) if self.faults else 0.0)

    def _number(self) -> int:
        with self._lock:
            self.counter += 1
            return self.counter

    def _batched(self, params: object, batch_request: httpx2.Request) -> tuple[int, dict]:
        """One request of a batch, answered as ``POST /v1/messages`` (same headers) but without moving the clock:
        ``(200, {"message", "seconds"})`` or ``(status, the error envelope)``."""
        headers = {
            k: v for k, v in batch_request.headers.items() if k.lower() not in ("content-length", "content-type")
        }
        sub = httpx2.Request(
            "POST", batch_request.url.copy_with(path="/v1/messages", query=None), headers=headers, json=params
        )
        response = self._answer(sub, self._number(), batched=True)
        if response.status_code != 200:
            return response.status_code, response.json()
        return 200, {"message": response.json(), "seconds": float(response.headers[LATENCY_HEADER]) / 1000}

    def _answer(self, request: httpx2.Request, n: int, batched: bool = False) -> httpx2.Response:
        seed = _digest(n, request)
        request_id = f"req_sim_{n:06d}_{seed[:12]}"
        headers = {"request-id": request_id, SIM_HEADER: "true; token counts are estimates"}
        try:
            path = request.url.path.rstrip("/")
            batch = path.startswith("/v1/messages/batches") and not batched
            if not batch and (request.method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens")):
                raise SimAPIError(
                    "not_found_error",
                    f"Not found: {request.method} {request.url.path} (the simulator serves POST /v1/messages and /v1/messages/count_tokens, and the Message Batches endpoints)",
                )
            fault = self.faults.fault(n) if self.faults else None
            if fault is not None:
                raise fault
            if batch:
                check_version(request.headers)
                status, answer = self.batches.handle(request.method, path, request, n, seed)
                if isinstance(answer, bytes):  # the results, as JSON Lines
                    return httpx2.Response(
                        status, content=answer, headers={**headers, "content-type": "application/binary"}
                    )
                return httpx2.Response(status, json=answer, headers=headers)
            if len(request.content) > MAX_BODY_BYTES:
                # Quoted: https://github.com/anthropics/claude-code/issues/14567 ("Request exceeds the maximum size")
                raise SimAPIError("request_too_large", "Request exceeds the maximum size")
            version = check_version(request.headers)
            check_betas(request.headers)
            counting = path.endswith("count_tokens")
            body, parts, edits = self._checked(self._parse(request), version, counting)
            input_tokens = sum(parts.values())
            check_task_budget(body, request.headers)  # output_config.task_budget: budgets.py
            check_effort(body)  # output_config.effort: effort.py
            asked(body)  # diagnostics: a malformed one is a 400 before anything is answered
            if counting:
                counted = {"input_tokens": input_tokens}
                if (
                    edits is not None
                ):  # the count after the edits, and the count before (the SDK's original_input_tokens)
                    counted["context_management"] = {
                        "original_input_tokens": input_tokens + sum(e["cleared_input_tokens"] for e in edits)
                    }
                return httpx2.Response(200, json=counted, headers=headers)
            message = build_message(
                self.policy, body, model_profile(body["model"], today(self.clock)), n, seed, input_tokens
            )
            if edits is not None:  # server-side context editing ran (context_editing.py)
                message["context_management"] = {"applied_edits": edits}
            with self._lock:  # the cache and the clock are shared by concurrent requests
                message["usage"].update(self.cache.apply(body, input_tokens, self.clock()))  # cache reads and writes
                headers[LATENCY_HEADER] = self._elapse(message, advance=not batched)  # a batch ends on its own clock
            betas = request.headers.get("anthropic-beta", "")
            self.diagnostics.answer(body, betas, message, self.cache.memo)  # only if the request asked
            headers[BREAKDOWN_HEADER] = json.dumps(parts, separators=(",", ":"))  # where the input went
            self.threads.remember(body, message)
            if body.get("stream"):
                return httpx2.Response(
                    200,
                    content=sse_body(message),
                    headers={**headers, "content-type": "text/event-stream; charset=utf-8"},
                )
            return httpx2.Response(200, json=message, headers=headers)
        except SimAPIError as e:
            return _error_response(e, request_id, {**headers, **(e.headers or {})})
        except Exception as e:  # a bug in a policy (a student's FunctionModel, say): say where, as a 500
            err = SimAPIError(
                "api_error", f"the simulated model's policy raised {type(e).__name__}: {str(e)[:300]}{_where(e)}"
            )
            return _error_response(err, request_id, headers)

    def _checked(self, body: Any, version: str, counting: bool) -> tuple[dict, dict[str, int], list | None]:
        """``body`` validated for its model and API version (a continued thread expanded to the full request),
        as the model sees it after any ``context_management`` edits; its input tokens by part (``input_parts``,
        estimated once: they add up to ``usage.input_tokens`` and are the breakdown header); the applied edits."""
        if isinstance(body, dict):
            check_fields(body, version, count_tokens=counting)
            body = self.threads.expand(body)
        validate_messages_request(body, known_models=None, count_tokens=counting)
        p = model_profile(body["model"], today(self.clock))
        check_version_content(body["messages"], version)
        check_sampling(body, p)
        check_model_rules(body, p, count_tokens=counting)
        body, edits = apply_context_management(body)
        parts = input_parts(body)
        check_context(sum(parts.values()), p)
        return body, parts, edits

    @staticmethod
    def _parse(request: httpx2.Request) -> Any:
        content = request.content or b"null"
        at = _lone_surrogate(content) if b"\\u" in content else None
        if at is not None:  # the real API's words: https://github.com/anthropics/claude-code/issues/3277
            raise invalid(
                f"The request body is not valid JSON: no low surrogate in string: line 1 column {at + 1} (char {at})"
            )
        try:
            body = json.loads(content, parse_constant=_no_constant)
        except RecursionError:
            raise invalid(
                f"The request body is not valid JSON: nested too deeply (this simulator takes at most {MAX_JSON_DEPTH} levels)."
            ) from None
        except json.JSONDecodeError as e:
            raise invalid(f"The request body is not valid JSON: {e.msg} at position {e.pos}.") from None
        except ValueError as e:  # bad UTF-8, NaN/Infinity, or an integer of more than 4,300 digits
            said = "an integer has more than 4300 digits" if "digits" in str(e) else str(e)[:200]
            raise invalid(f"The request body is not valid JSON: {said}.") from None
        openers = content.count(b"{") + content.count(b"[")  # a bound on the depth, counted at C speed
        if openers > MAX_JSON_DEPTH and _deeper_than(body, MAX_JSON_DEPTH):
            raise invalid(
                f"The request body is not valid JSON for this API: nested more than {MAX_JSON_DEPTH} levels deep (this simulator's limit)."
            )
        return body

    def _elapse(self, payload: dict, advance: bool = True) -> str:
        """The response's simulated latency in ms (header value); a ``SimClock`` moves on by that much."""
        seconds = simulated_latency_s(payload["model"], payload["usage"])
        if advance and hasattr(self.clock, "advance"):
            self.clock.advance(seconds)  # type: ignore[attr-defined]
        return f"{seconds * 1000:.1f}"


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SURROGATE_ESCAPE = re.compile(rb"(\\+)u[dD]([89a-fA-F])[0-9a-fA-F]{2}")


def _where(e: BaseException) -> str:
    """Where ``e`` was raised, if in a student's code: file name and line, never a path of this package or Python's."""
    skip = (_PACKAGE, sys.prefix, sys.base_prefix, sys.exec_prefix)
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        name = os.path.abspath(frame.filename)
        if not name.startswith(skip) and not frame.filename.startswith("<frozen"):
            return f" (at {os.path.basename(frame.filename)}:{frame.lineno}, in {frame.name})"
    return ""


def _error_response(err: SimAPIError, request_id: str, headers: dict) -> httpx2.Response:
    """The error in the API's envelope; text that cannot be encoded as UTF-8 is escaped, never a crash."""
    envelope = err.envelope(request_id)
    body = json.dumps(envelope, ensure_ascii=True, separators=(",", ":")).encode()
    return httpx2.Response(err.status, content=body, headers={**headers, "content-type": "application/json"})


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON value")


def _lone_surrogate(content: bytes) -> int | None:
    """Byte offset of the first ``\\uD800``-``\\uDFFF`` escape not in a high-low pair (``None``: all paired)."""
    high_at = high_end = None
    for m in _SURROGATE_ESCAPE.finditer(content):
        if len(m.group(1)) % 2 == 0:  # an escaped backslash, then the letters "uD8..": text, not an escape
            continue
        at, is_high = m.end(1) - 1, m.group(2) in b"89abAB"
        if high_at is not None:
            if not is_high and at == high_end:
                high_at = None
                continue
            return high_at
        if not is_high:
            return at
        high_at, high_end = at, m.end()
    return high_at


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` deep (iterative: any depth is safe to ask)."""
    stack = [(value, 1)]
    while stack:  # bounded: each container is pushed once
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False
