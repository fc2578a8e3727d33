"""Seeded, deterministic fault injection: the API's transient failures, on purpose.

``Faults`` decides, for the n-th request a simulator receives, whether it fails and how: ``429
rate_limit_error`` (with ``retry-after`` and the ``anthropic-ratelimit-*`` headers), ``529
overloaded_error``, ``500 api_error``, or a slow answer. The decision depends only on the seed and n,
so the same run fails the same way every time. The SDK retries 429, 529 and 500 by itself
(``max_retries``, default 2); ``connect("sim", faults=...)`` keeps those retries on.

Turn it on with a rate (``faults=0.2``: 20% of requests fail, spread over 429/529/500), a dict or a
spec string (``"429=0.1,529=0.05,500=0.05,slow=0.1:0.2,at=3:429+5:529,seed=7"``; ``at`` fails the
given request numbers, ``slow=RATE:SECONDS`` delays that share of answers). Error sources: status
codes and types from https://platform.claude.com/docs/en/api/errors, headers from
https://platform.claude.com/docs/en/api/rate-limits#response-headers (read 2026-11-30).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from agentlab.sim.errors import SimAPIError

KINDS = {"429": "rate_limit_error", "529": "overloaded_error", "500": "api_error"}
"""Fault codes and the API error type each answers with."""
MESSAGES = {
    "rate_limit_error": "This request would exceed your organization's rate limit of 50 requests per minute "
    "(agentlab simulated fault). Retry after the time in the retry-after header.",
    "overloaded_error": "Overloaded",  # the API's wording (https://platform.claude.com/docs/en/api/errors)
    "api_error": "Internal server error",
}


@dataclass
class Faults:
    """Which requests fail, and how."""

    rates: dict[str, float] = field(default_factory=dict)
    """Probability per request of each fault code (``"429"``, ``"529"``, ``"500"``)."""
    at: dict[int, str] = field(default_factory=dict)
    """Request number (1-based) -> fault code, whatever the rates say."""
    slow_rate: float = 0.0
    """Share of requests answered late."""
    slow_s: float = 0.0
    """How late, in seconds."""
    seed: int = 0
    """Seed of every decision."""
    retry_after_s: float = 0.05
    """The wait a 429 asks for (sent as ``retry-after`` in whole seconds and ``retry-after-ms``, which the SDK reads first)."""

    def __post_init__(self) -> None:
        for code in [*self.rates, *self.at.values()]:
            if code not in KINDS:
                raise ValueError(f"faults: unknown fault {code!r}; use one of {sorted(KINDS)}")
        if sum(self.rates.values()) > 1 or any(r < 0 for r in self.rates.values()) or not 0 <= self.slow_rate <= 1:
            raise ValueError(
                f"faults: rates must be between 0 and 1 and sum to at most 1, got {self.rates}, slow={self.slow_rate}"
            )

    def _draw(self, n: int, salt: str) -> float:
        return random.Random(f"{self.seed}:{salt}:{n}").random()

    def fault(self, n: int) -> SimAPIError | None:
        """The error request ``n`` gets, or ``None``."""
        code = self.at.get(n)
        if code is None:
            x, edge = self._draw(n, "fault"), 0.0
            for c, rate in sorted(self.rates.items()):
                edge += rate
                if x < edge:
                    code = c
                    break
        if code is None:
            return None
        kind = KINDS[code]
        headers = {"x-should-retry": "true"}
        if kind == "rate_limit_error":
            reset = (datetime.now(timezone.utc) + timedelta(seconds=self.retry_after_s)).strftime("%Y-%m-%dT%H:%M:%SZ")
            headers.update(
                {
                    "retry-after": str(max(1, math.ceil(self.retry_after_s))),
                    "retry-after-ms": str(int(self.retry_after_s * 1000)),
                    "anthropic-ratelimit-requests-limit": "50",
                    "anthropic-ratelimit-requests-remaining": "0",
                    "anthropic-ratelimit-requests-reset": reset,
                    "anthropic-ratelimit-tokens-limit": "30000",
                    "anthropic-ratelimit-tokens-remaining": "30000",
                    "anthropic-ratelimit-tokens-reset": reset,
                    "anthropic-ratelimit-input-tokens-limit": "30000",
                    "anthropic-ratelimit-input-tokens-remaining": "30000",
                    "anthropic-ratelimit-input-tokens-reset": reset,
                    "anthropic-ratelimit-output-tokens-limit": "8000",
                    "anthropic-ratelimit-output-tokens-remaining": "8000",
                    "anthropic-ratelimit-output-tokens-reset": reset,
                }
            )
        return SimAPIError(kind, MESSAGES[kind], headers=headers)

    def delay(self, n: int) -> float:
        """Seconds to hold request ``n`` before answering."""
        return self.slow_s if self.slow_rate and self._draw(n, "slow") < self.slow_rate else 0.0


def as_faults(spec: object) -> Faults | None:
    """A :class:`Faults` from ``None``, a rate, a dict of ``Faults`` fields, a spec string, or a ``Faults``."""
    if spec is None or isinstance(spec, Faults):
        return spec
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return Faults(rates={c: spec / 3 for c in KINDS})
    if isinstance(spec, dict):
        return Faults(**spec)
    if isinstance(spec, str):
        return _parse(spec)
    raise TypeError(f"faults={spec!r}: give a rate (0.2), a dict, a spec string ('429=0.1,seed=7') or a Faults")


def _parse(spec: str) -> Faults:
    kw: dict = {"rates": {}, "at": {}}
    for item in filter(None, (p.strip() for p in spec.split(","))):
        key, _, value = item.partition("=")
        try:
            if key in KINDS:
                kw["rates"][key] = float(value)
            elif key == "rate":
                kw["rates"].update({c: float(value) / 3 for c in KINDS})
            elif key == "seed":
                kw["seed"] = int(value)
            elif key == "slow":
                rate, _, secs = value.partition(":")
                kw["slow_rate"], kw["slow_s"] = float(rate), float(secs or 1.0)
            elif key == "at":
                kw["at"] = {int(n): c for n, _, c in (p.partition(":") for p in value.split("+"))}
            elif key == "retry_after":
                kw["retry_after_s"] = float(value)
            else:
                raise ValueError(key)
        except ValueError:
            raise ValueError(
                f"faults spec item {item!r} not understood; e.g. '429=0.1,529=0.05,500=0.05,"
                "slow=0.1:0.2,at=3:429+5:529,seed=7,retry_after=0.05'"
            ) from None
    return Faults(**kw)
