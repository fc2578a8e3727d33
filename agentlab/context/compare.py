"""Every tactic on the same long task, measured the same way: :func:`compare_tactics` gives the table.

What is measured is what the harness decides: which tokens are in each call's window (input
tokens per call, the peak, the total), the calls, the cost, whether a call passed the configured
window, and whether the final answer is right (checked against the data by ``check_report``). On
the simulator the model's behaviour is scripted (``agentlab.sim.models.context_agent``) and the token counts
are estimates; live, the same code measures a real model's run.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentlab.context.clearing import ClearToolResults, ServerClearing
from agentlab.context.compaction import Compaction
from agentlab.context.memory import make_memory_tool, run_in_sessions
from agentlab.context.retrieval import jit_tools
from agentlab.context.subagents import Delegation, research_tool
from agentlab.context.task import (
    WINDOW_TOKENS,
    check_report,
    report_cities,
    report_task,
    surviving_facts,
)
from agentlab.loop import run_agent
from agentlab.meter.middleware import meter_of
from agentlab.protocols import ContextStrategy
from agentlab.run import Turn, turns_of
from agentlab.views.i18n import task_language
from agentlab.weather import make_get_weather

TACTICS = (
    "plain",
    "compaction",
    "clearing (harness)",
    "clearing (API, simulated)",
    "memory (sessions)",
    "sub-agents",
    "just-in-time",
)
"""The tactics, in table order."""
MODEL = "claude-haiku-5-5"
"""The lab's model: its text before a tool call stays text (Sonnet 5.5 returns it as an empty ``thinking``
block by default, see ``agentlab/sim/shape.py``), so the notes an agent writes as it goes stay in the window."""
THRESHOLD = 8_000
"""Token threshold at which compaction and clearing start (two thirds of the lab's window)."""


@dataclass
class TacticResult:
    """One tactic's run of the report task."""

    tactic: str
    """Which tactic (one of :data:`TACTICS`)."""
    turns: list[Turn]
    """Every model call of the tactic, in order (summaries, sessions, sub-agents included)."""
    final_text: str
    """The answer the run ended with."""
    correct: bool
    """Whether the answer names the right warmest and coldest city and mean (checked against the data)."""
    window_tokens: int
    """The configured window the calls are compared with."""
    events: list[dict] = field(default_factory=list)
    """What the tactic did to the window (compactions, clearings, applied edits, sessions, sub-agents)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Tactic-specific figures (facts surviving a compaction, sub-agent tokens...)."""

    @property
    def per_call(self) -> list[int]:
        """Input tokens (cache included) of each call: the window each call sent."""
        return [t.prompt_tokens for t in self.turns]

    def row(self) -> dict[str, Any]:
        """The table row."""
        costs = [t.cost_usd for t in self.turns]
        return {
            "tactic": self.tactic,
            "calls": len(self.turns),
            "input tokens": sum(self.per_call),
            "peak context (tokens)": max(self.per_call),
            "cost (USD)": None if None in costs else round(sum(costs), 4),
            "window exceeded": max(self.per_call) > self.window_tokens,
            "answer correct": self.correct,
        }


def run_tactic(
    tactic: str,
    client: Any = None,
    n_cities: int = 30,
    window_tokens: int = WINDOW_TOKENS,
    workdir: str | Path | None = None,
    threshold: int = THRESHOLD,
    lang: str | None = None,
) -> TacticResult:
    """Run the report task over ``n_cities`` with one tactic, asked in ``lang`` (``"en"``, ``"zh"``; ``None``:
    the notebook's language); traces go to ``workdir``."""
    lang = task_language(lang, "run_tactic")
    if tactic not in TACTICS:
        raise ValueError(f"run_tactic(tactic={tactic!r}): choose one of {', '.join(TACTICS)}")
    from agentlab.client import connect
    from agentlab.sim.models.context_agent import ContextAgent

    client = client or connect("sim", model=MODEL, policy=ContextAgent(), quiet=True)
    work = Path(workdir or tempfile.mkdtemp(prefix="context-"))
    slug = tactic.split(" ")[0] if "clearing" not in tactic else ("clearing-api" if "API" in tactic else "clearing")
    cities = report_cities(n_cities)
    task = report_task(cities, lang)
    meter = meter_of(client)
    start = meter.mark()
    turns_budget = n_cities + 8
    events: list[dict] = []
    extra: dict[str, Any] = {}
    weather = make_get_weather(7)
    if tactic in ("plain", "compaction", "clearing (harness)", "clearing (API, simulated)"):
        strategies: dict[str, ContextStrategy | None] = {
            "plain": None,
            "compaction": Compaction(threshold),
            "clearing (harness)": ClearToolResults(threshold),
            "clearing (API, simulated)": ServerClearing(threshold),
        }
        strategy = strategies[tactic]
        run = run_agent(client, task, [weather], max_turns=turns_budget, trace=work / f"{slug}.jsonl", context=strategy)
        text = run.final_text
        events = list(getattr(strategy, "events", None) or getattr(strategy, "applied", None) or [])
        if tactic == "compaction" and events:  # which planted facts the first summary kept (our summariser)
            extra["facts kept by the first summary"] = surviving_facts(
                [{"role": "user", "content": events[0]["summary"]}]
            )
    elif tactic == "memory (sessions)":
        runs = run_in_sessions(
            client,
            task,
            [weather, make_memory_tool(tempfile.mkdtemp(dir=work, prefix="memory-"))],
            turns_per_session=12,
            max_sessions=8,
            trace_dir=work / "memory-traces",
        )
        text = runs[-1].final_text
        events = [{"session": i, "calls": r.model_calls, "stop": r.stop_reason.value} for i, r in enumerate(runs, 1)]
    elif tactic == "sub-agents":
        deleg = Delegation()
        tool = research_tool(client, weather, deleg, batch=8, trace_dir=work / "sub-traces", lang=lang)
        deleg.orchestrator = run_agent(client, task, [tool], max_turns=turns_budget, trace=work / f"{slug}.jsonl")
        text = deleg.orchestrator.final_text
        extra = {
            "orchestrator input tokens": sum(t.prompt_tokens for t in deleg.orchestrator.turns),
            "sub-agent input tokens": deleg.total_input_tokens()
            - sum(t.prompt_tokens for t in deleg.orchestrator.turns),
            "sub-agents": len(deleg.subs),
        }
        events = [
            {"sub-agent": i, "calls": r.model_calls, "stop": r.stop_reason.value} for i, r in enumerate(deleg.subs, 1)
        ]
    else:
        run = run_agent(client, task, jit_tools(7), max_turns=turns_budget, trace=work / f"{slug}.jsonl")
        text = run.final_text
    turns = turns_of(meter, start)  # every call since the start: summaries, sessions and sub-agents too
    return TacticResult(tactic, turns, text, check_report(text, cities)["correct"], window_tokens, events, extra)


def compare_tactics(
    n_cities: int = 30,
    window_tokens: int = WINDOW_TOKENS,
    workdir: str | Path | None = None,
    tactics: tuple[str, ...] = TACTICS,
    client: Any = None,
    lang: str | None = None,
) -> tuple[Any, dict[str, TacticResult]]:
    """Every tactic on the report task, asked in ``lang`` (``None``: the notebook's language): the table (a
    DataFrame, one row per tactic) and the results by tactic.

    Simulated unless you pass a ``client`` (e.g. ``agentlab.connect("live")``: every tactic is then a
    paid run of a real model, and the table is that one run's).
    """
    import pandas as pd

    work = Path(workdir or tempfile.mkdtemp(prefix="context-"))
    results = {
        t: run_tactic(t, client, n_cities=n_cities, window_tokens=window_tokens, workdir=work, lang=lang)
        for t in tactics
    }
    table = pd.DataFrame([r.row() for r in results.values()]).set_index("tactic")
    table.attrs["window_tokens"] = window_tokens
    return table, results
