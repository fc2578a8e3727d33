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
        return tr(
            f"about {calls}, {self.input_tokens:,} input tokens, {cost}, about {self.seconds:.0f} s "
            f"({self.kind}, {self.model}; tokens and time simulated; {price_source()})"
        )  # zh-CN: in Chinese


def preview(cities: list[str], model: str | None = None, kind: str = "agent", cache: bool = False) -> Preview:
    """Run the city task for ``cities`` on the simulator with ``model``, exactly as ``agentlab compare`` runs it
    (``comparison.run_city``), in the notebook's language (``compare --lang`` picks it on the command line);
    what it would take live, about."""
    from agentlab.client import connect
    from agentlab.experiments.comparison import run_city
    from agentlab.sim.caching import SimClock

    client = connect("sim", model=model, quiet=True)
    client.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]  # model time from latency rates
    with tempfile.TemporaryDirectory(prefix="agentlab-preview-") as notes:
        run = run_city(client, kind, cities, notes, cache=cache)
    sent = sum(t.prompt_tokens for t in run.turns)
    return Preview(
        run.model, kind, run.model_calls, sent, run.output_tokens, run.cost_usd, sum(t.latency_s for t in run.turns)
    )
