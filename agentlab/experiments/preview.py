"""Cost preview: run a task on the simulator first, and see about what it would cost live.

    agentlab preview --cities Paris London Oslo --model claude-opus-5 [--workflow] [--cache]

prints "about N calls, N input tokens, about $X, about T s", with where the prices come from and how
recent they are. Everything is an estimate: the simulator's token counts, its assumed latency rates,
and genai-prices' price table; a model with no known price shows "unknown", never $0.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

from agentlab.meter.prices import price_source
from agentlab.views.i18n import tr


@dataclass
class Preview:
    """About what a task costs, from one run on the simulator."""

    model: str
    """The model the preview priced."""
    kind: str
    """``"agent"`` or ``"workflow"``."""
    calls: int
    """Model calls the simulated run made."""
    input_tokens: int
    """Input tokens sent, cached or not (estimated)."""
    output_tokens: int
    """Output tokens written (estimated)."""
    cost_usd: float | None
    """Price of the run, or ``None`` when genai-prices has no price for the model."""
    seconds: float
    """Model time from the simulator's assumed latency rates."""

    def line(self) -> str:
        """``about N calls, N input tokens, about $X, about T s`` and where the figures come from."""
        cost = "unknown price" if self.cost_usd is None else f"about ${self.cost_usd:.4f}"
        calls = f"{self.calls} call" + ("s" if self.calls != 1 else "")
        return tr(f"about {calls}, {self.input_tokens:,} input tokens, {cost}, about {self.seconds:.0f} s "
                  f"({self.kind}, {self.model}; tokens and time simulated; {price_source()})")  # zh-CN: in Chinese


def preview(cities: list[str], model: str | None = None, kind: str = "agent", cache: bool = False) -> Preview:
    """Run the city task for ``cities`` on the simulator with ``model``; what it would take live, about."""
    from agentlab.client import default_model
    from agentlab.experiments.sweeps import run_row

    model = model or default_model()
    with tempfile.TemporaryDirectory(prefix="agentlab-preview-") as notes:
        row = run_row(model, len(cities), kind, cache, False, notes, cities=cities)
    return Preview(model, kind, row["turns"], row["input tokens (all)"], row["output tokens"], row["cost (USD)"],
                   row["latency (s)"])
