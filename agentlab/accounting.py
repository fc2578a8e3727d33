"""Token and cost accounting as SDK client middleware, so *any* code using the client is metered.

``Meter`` sits in the client's ``middleware=`` chain and records every ``POST /v1/messages``:
its usage, stop reason and round-trip time. It does O(1) work per call (no walk over the growing
history), so metering does not itself get slower as a conversation grows.

Re-prefill: each agent turn re-sends the whole conversation. For call k that continues call k-1
(same first message, more messages), the re-sent part is everything call k-1 sent plus what it
generated: ``min(input_k, input_{k-1} + output_{k-1})``. The rest of ``input_k`` is new.

Cost comes from genai-prices with the full message usage (cache reads and writes are billed apart
from ``input_tokens``); a model with no known price costs ``None``, never 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from anthropic import Middleware
from anthropic.types import Message

from .latency import latency_of

if TYPE_CHECKING:
    from .run import Turn

SIM_HEADER = "agentlab-simulated"
"""Response header the simulator sets: its token counts are estimates."""


@dataclass
class CallRecord:
    """One metered ``POST /v1/messages`` call."""

    model: str
    """The model the response names."""
    usage: dict
    """The response's ``usage`` object, as JSON."""
    stop_reason: str | None
    """The response's ``stop_reason``."""
    wall_s: float
    """Seconds for the HTTP round trip (middleware to middleware)."""
    continues: bool
    """True when this request extends the previous one's conversation (so history was re-sent)."""
    estimated: bool
    """True when the tokens are the simulator's estimates."""
    tool_calls: tuple[str, ...] = ()
    """Names of the tools the response asked for."""
    sim_latency_s: float | None = None
    """Simulated latency from the simulator's header; ``None`` for a live response (use ``wall_s``)."""


@lru_cache(maxsize=4096)
def _price(model: str, inp: int, out: int, cache_read: int, cache_write: int) -> float | None:
    from genai_prices import extract_usage

    data = {"model": model, "usage": {"input_tokens": inp, "output_tokens": out,
            "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write}}
    try:
        return float(extract_usage(data, provider_id="anthropic").calc_price().total_price)
    except LookupError:
        return None


def cost_usd(model: str, usage: dict) -> float | None:
    """USD price of one call's ``usage`` for ``model`` (genai-prices), or ``None`` if the price is unknown."""
    return _price(model, usage.get("input_tokens") or 0, usage.get("output_tokens") or 0,
                  usage.get("cache_read_input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0)


class Meter(Middleware):
    """Client middleware that records every Messages API call in ``calls``."""

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []
        self._last: tuple[int, Any] | None = None  # (message count, first message) of the previous request

    def handle(self, request, call_next):  # type: ignore[override]
        if request.method.lower() != "post" or not str(request.url).rstrip("/").endswith("/v1/messages"):
            return call_next(request)
        body = request.json if isinstance(request.json, dict) else {}
        msgs = body.get("messages") or []
        shape = (len(msgs), msgs[0] if msgs else None)
        continues = self._last is not None and shape[0] > self._last[0] and shape[1] == self._last[1]
        t0 = time.perf_counter()
        response = call_next(request)
        wall = time.perf_counter() - t0
        if response.http_response.is_success and not request.stream:  # streamed calls are not metered yet
            self._last = shape
            msg = response.parse()  # the SDK caches this parse and hands the same Message to the caller
            if not hasattr(msg, "usage"):  # a caller that asked for raw JSON (cast_to=object, dict...)
                msg = Message.model_validate(response.http_response.json())
            u = msg.usage
            usage = {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
                     "cache_read_input_tokens": u.cache_read_input_tokens or 0,
                     "cache_creation_input_tokens": u.cache_creation_input_tokens or 0}
            self.calls.append(CallRecord(
                model=msg.model, usage=usage, stop_reason=msg.stop_reason, wall_s=wall, continues=continues,
                estimated=SIM_HEADER in response.http_response.headers,
                tool_calls=tuple(b.name for b in msg.content if b.type == "tool_use"),
                sim_latency_s=latency_of(response.http_response.headers)))
        return response

    def mark(self) -> int:
        """A position in ``calls``; pass it to :meth:`turns` to get the calls made since."""
        return len(self.calls)

    def estimated(self, since: int = 0) -> bool:
        """True when any call since ``since`` was answered by the simulator (estimated tokens)."""
        return any(c.estimated for c in self.calls[since:])

    def turns(self, since: int = 0) -> list["Turn"]:
        """The calls since ``since`` as :class:`~agentlab.run.Turn` s, with re-prefill (cost is priced on first read)."""
        from .run import Turn

        out: list[Turn] = []
        prev: CallRecord | None = None
        for i, c in enumerate(self.calls[since:], start=1):
            inp, outp = c.usage.get("input_tokens") or 0, c.usage.get("output_tokens") or 0
            re = 0
            if prev is not None and c.continues:
                re = min(inp, (prev.usage.get("input_tokens") or 0) + (prev.usage.get("output_tokens") or 0))
            out.append(Turn(index=i, input_tokens=inp, output_tokens=outp, reprefill_tokens=re,
                            stop_reason=c.stop_reason, tool_calls=list(c.tool_calls), wall_s=c.wall_s,
                            cache_read_tokens=c.usage.get("cache_read_input_tokens") or 0,
                            cache_write_tokens=c.usage.get("cache_creation_input_tokens") or 0, model=c.model,
                            latency_s=c.wall_s if c.sim_latency_s is None else c.sim_latency_s))
            prev = c
        return out


def meter_of(client: Any) -> Meter:
    """The :class:`Meter` in ``client``'s middleware; a clear error if there is none."""
    for m in getattr(client, "middleware", ()):
        if isinstance(m, Meter):
            return m
    raise LookupError(
        "this client has no agentlab Meter in its middleware; make it with agentlab.connect(), "
        "or pass middleware=[agentlab.Meter()] to anthropic.Anthropic(...)"
    )
