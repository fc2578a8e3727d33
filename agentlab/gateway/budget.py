"""What a request may cost before it is sent, and what it did cost after, in USD.

**Before (the reservation).** The worst case: ``max_tokens`` of output, plus the input as counted by the
lab's token estimator (the simulator's, in ``agentlab.api.tokens``) times ``INPUT_MARGIN``, and never less
than one token per ``BYTES_PER_TOKEN_FLOOR`` bytes of the body, all of the input priced at the dearest input
rate (a 1-hour cache write). The estimator is a stand-in for the
API's count: ``agentlab calibrate`` measures it within a few percent of real ``input_tokens`` on the
recorded traffic, and the margin covers that; asking the API's ``count_tokens`` first would cost every
request a round trip. An image or document given by URL or file id cannot be bounded, so it is refused.
Not in the worst case: server tools billed per use (web search, web fetch, code execution) and what MCP
servers add to the input; the settlement records them as the API reports them.

**After (the settlement).** The response's ``usage`` priced by :func:`agentlab.meter.prices.cost_usd`,
the same prices the notebooks show. For a stream, the usage of its ``message_start`` event with the
output count of its last ``message_delta``.
"""

from __future__ import annotations

import json
import math
import re

from agentlab.api.tokens import estimate_input_tokens
from agentlab.meter.prices import cost_usd

INPUT_MARGIN = 1.5
"""Factor on the estimated input tokens in a reservation (the estimate's error is a few percent)."""
BYTES_PER_TOKEN_FLOOR = 3
"""The input is never taken as fewer tokens than one per this many bytes of the body (base64 media aside): the
estimator reads a run of punctuation or of random letters as one token, a tokenizer does not (random text over
32 symbols takes at least a token per 3.4 characters), so text written to fool it is budgeted by its size."""
ESTIMATE_LIMIT_BYTES = 1024 * 1024
"""A body larger than this is not read by the estimator (nor kept in its caches): one token per 2 bytes."""
MODEL_ID = re.compile(r"^[a-z0-9][a-z0-9.-]{0,63}$")
"""What a model id looks like (``claude-haiku-4-5``): anything else is refused, not priced by a prefix and stored."""


def _media(node: object, found: list[int]) -> None:
    """Append the length of every base64 ``data`` in ``node``; ``ValueError`` for media by URL or file id."""
    if isinstance(node, dict):
        source = node.get("source") if node.get("type") in ("image", "document") else None
        if isinstance(source, dict) and source.get("type") in ("url", "file"):
            raise ValueError(
                f"a {node['type']} by {source['type']} cannot be budgeted before the API fetches it; send it as base64"
            )
        if isinstance(source, dict) and isinstance(source.get("data"), str):
            found.append(len(source["data"]))
        for value in node.values():
            _media(value, found)
    elif isinstance(node, list):
        for value in node:
            _media(value, found)


def input_bound(body: dict, raw: bytes) -> int:
    """The most input tokens the request can be billed for, as far as the gateway can tell before sending it."""
    if len(raw) > ESTIMATE_LIMIT_BYTES:
        return len(raw) // 2 + 1
    media: list[int] = []
    _media(body, media)
    floor = (len(raw) - sum(media)) // BYTES_PER_TOKEN_FLOOR + 1
    try:
        return max(math.ceil(estimate_input_tokens(body) * INPUT_MARGIN), floor)
    except Exception:  # a body the estimator cannot read: the API will judge it; budget it by its size
        return len(raw) // 2 + 1


def worst_case(body: dict, raw: bytes) -> tuple[str, float]:
    """``(model, USD)`` of the most a Messages request can cost; ``ValueError`` when it cannot be priced."""
    model = body.get("model")
    if not isinstance(model, str) or not MODEL_ID.match(model):
        raise ValueError(f"model {str(model)[:80]!r} is not a model id (e.g. claude-haiku-4-5)")
    out = body.get("max_tokens")
    if not isinstance(out, int) or isinstance(out, bool) or out < 1:
        raise ValueError(f"max_tokens {out!r} is not a whole number >= 1")
    tokens = input_bound(body, raw)
    usage = {
        "input_tokens": 0,
        "cache_creation_input_tokens": tokens,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": tokens},
        "output_tokens": out,
    }
    usd = cost_usd(model, usage)
    if usd is None:
        raise ValueError(f"model {model!r} has no known price, so no budget can hold it; ask for a Claude model")
    return model, usd


def tokens_of(usage: dict) -> dict[str, int]:
    """A usage's tokens by kind, as the ledger keeps them."""
    return {
        "input": int(usage.get("input_tokens") or 0),
        "output": int(usage.get("output_tokens") or 0),
        "cache_read": int(usage.get("cache_read_input_tokens") or 0),
        "cache_write": int(usage.get("cache_creation_input_tokens") or 0),
    }


def settled(model: str | None, usage: dict | None, fallback: float) -> float:
    """What ``usage`` costs; ``fallback`` (the reservation) when there is no usage or no price to read."""
    if not model or not isinstance(usage, dict):
        return fallback
    usd = cost_usd(model, usage)
    return fallback if usd is None else usd


class StreamUsage:
    """Reads the usage out of a Messages stream's server-sent events as the chunks pass by, unchanged."""

    def __init__(self) -> None:
        self.model: str | None = None
        """The model its ``message_start`` named."""
        self.usage: dict | None = None
        """The usage so far: ``message_start``'s, with each ``message_delta``'s counts laid over it."""
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream."""
        self._pending += chunk
        *events, self._pending = self._pending.replace(b"\r\n", b"\n").split(b"\n\n")
        for event in events:
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    self._data(line[5:].strip())

    def _data(self, data: bytes) -> None:
        try:
            event = json.loads(data)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        if event.get("type") == "message_start" and isinstance(event.get("message"), dict):
            self.model = event["message"].get("model")
            self.usage = dict(event["message"].get("usage") or {})
        elif event.get("type") == "message_delta" and isinstance(event.get("usage"), dict) and self.usage is not None:
            self.usage.update({k: v for k, v in event["usage"].items() if v is not None})
