"""Spending safety: a predicted upper bound for the next call, and a per-session USD cap.

Before a paid ``POST /v1/messages`` we know the request but not its answer, so the most it can
cost is bounded by its input (estimated with the simulator's token estimator, plus a margin, all of
it priced at the dearest input rate the request can incur: a 1-hour cache write when it marks a
``ttl: "1h"`` breakpoint, a 5-minute write for any other breakpoint, else plain input) and by
``max_tokens`` output tokens at the output price. :class:`SessionCap` (``connect(max_usd=...)``) sums
the real cost of the calls made and refuses, *before sending*, the call whose upper bound would take
the session past the cap; ``Limits.max_usd`` does the same per run (``agentlab.guards``). A model with
no known price is refused before its first paid call. Prices: genai-prices (``agentlab.meter.prices``).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from anthropic import Middleware

from agentlab.api.tokens import estimate_input_tokens
from agentlab.meter.prices import cost_usd
from agentlab.meter.usage import Usage
from agentlab.views.i18n import tr

INPUT_MARGIN = 1.25
"""The token estimator's input estimate times this is taken as the most the input can be (the
estimator's measured error against real counts is well inside 25%; see ``agentlab/api/tokens.py``)."""


class SpendRefused(RuntimeError):
    """A paid call was not sent: it could take spending past a USD cap, or its model has no price."""

    def __init__(self, message: str, *, observed: float, predicted: float | None, limit: float) -> None:
        super().__init__(message)
        self.observed = observed
        """USD spent before the refused call."""
        self.predicted = predicted
        """The refused call's predicted upper bound in USD (``None``: the model has no known price)."""
        self.limit = limit
        """The cap in USD."""


def _ttl(body: dict) -> str | None:
    """``"1h"`` / ``"5m"`` when the request marks a cache breakpoint (the dearer one wins), else ``None``."""
    text = json.dumps(
        {k: body[k] for k in ("system", "tools", "messages", "cache_control") if body.get(k)}, default=str
    )
    if '"cache_control"' not in text:
        return None
    return "1h" if '"ttl": "1h"' in text else "5m"


def upper_bound_usd(body: dict) -> float | None:
    """The most ``body`` (a Messages API request) can cost, or ``None`` when its model has no known price."""
    model = str(body.get("model", ""))
    tokens = int(estimate_input_tokens(body) * INPUT_MARGIN) + 1
    ttl = _ttl(body)
    usage = (
        Usage(cache_write_tokens=tokens, cache_write_1h_tokens=tokens)
        if ttl == "1h"
        else Usage(cache_write_tokens=tokens)
        if ttl == "5m"
        else Usage(input_tokens=tokens)
    )
    worst_in = cost_usd(model, usage)
    plain_in = cost_usd(model, Usage(input_tokens=tokens))
    out = cost_usd(model, Usage(output_tokens=int(body.get("max_tokens") or 0)))
    if worst_in is None or out is None or plain_in is None:
        return None
    return max(worst_in, plain_in) + out


def cheapest_model() -> str:
    """The active (not legacy, not retired) model with the lowest known output price: the live default,
    so a first live run costs the least it can (``agentlab models`` shows the table)."""
    from agentlab.api.profiles import profiles
    from agentlab.meter.prices import price_per_mtok

    priced = []
    for p in {p.id: p for p in profiles().values() if not p.retired and p.status == "active"}.values():
        inp, out = price_per_mtok(p.id)
        if inp is not None and out is not None:
            priced.append((out, inp, p.id))
    return min(priced)[2]


def spent_usd(meter: Any, since: int = 0) -> float:
    """USD the meter's calls since ``since`` cost (unpriced calls count as nothing: they are refused first)."""
    return sum(cost_usd(c.model, c.usage, batch=c.batch is not None) or 0.0 for c in meter.calls[since:])


class SessionCap(Middleware):
    """SDK middleware: refuse a paid call before sending it when it could take the session past ``max_usd``."""

    def __init__(self, max_usd: float, meter: Any) -> None:
        if isinstance(max_usd, bool) or not isinstance(max_usd, (int, float)) or not 0 < max_usd < float("inf"):
            raise ValueError(f"connect(max_usd={max_usd!r}): a USD cap is a positive number, e.g. max_usd=0.50")
        self.max_usd = float(max_usd)
        """The session's cap in USD."""
        self.meter = meter
        """The Meter whose calls are the session's spending."""
        self.refused = 0
        """Calls refused so far."""
        self.last_refusal: SpendRefused | None = None
        """The latest refusal (what was spent, what the refused call could have cost), for a caller to report."""
        self.in_flight = 0.0
        """Upper bounds of the calls sent and not yet answered (parallel workers share one client)."""
        self._lock = threading.Lock()

    def spent(self) -> float:
        """USD spent by the session so far."""
        return spent_usd(self.meter)

    def _refusal(self, message: str, **figures: Any) -> SpendRefused:
        self.last_refusal = SpendRefused(message, **figures)
        return self.last_refusal

    def handle(self, request: Any, call_next: Any) -> Any:  # type: ignore[override]
        if request.method.lower() != "post" or not str(request.url).rstrip("/").endswith("/v1/messages"):
            return call_next(request)
        body = request.json if isinstance(request.json, dict) else {}
        with self._lock:
            spent, bound = self.spent(), upper_bound_usd(body)
            if bound is None:
                self.refused += 1
                raise self._refusal(
                    f"connect(max_usd={self.max_usd:g}): the model {body.get('model')!r} has no known "
                    "price, so the cap cannot be kept; the call was not sent. Pick a priced model "
                    "(`agentlab models`), or drop max_usd (MAX_USD = None in a notebook's parameter "
                    "cell) for a local model that bills nothing",
                    observed=spent,
                    predicted=None,
                    limit=self.max_usd,
                )
            spent += self.in_flight  # calls still running count at their upper bound
            if spent + bound > self.max_usd:
                self.refused += 1
                raise self._refusal(
                    tr(
                        f"session cap max_usd={self.max_usd:g}: spent ${spent:.6f}, and the next call could "
                        f"cost up to ${bound:.6f} (input estimate + max_tokens at the output price), so it "
                        f"was not sent. Raise connect(max_usd=...) or make the run smaller"
                    ),  # zh-CN: in Chinese
                    observed=round(spent, 9),
                    predicted=round(bound, 9),
                    limit=self.max_usd,
                )
            self.in_flight += bound
        try:
            return call_next(request)
        finally:
            with self._lock:
                self.in_flight -= bound
