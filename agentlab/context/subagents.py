"""Sub-agents with clean windows: each researches a few cities and returns a short summary.

The orchestrator's tool ``research_cities`` starts a fresh ``run_agent`` (its own conversation, only
``get_weather``, its own trace) for a batch of cities and returns the sub-agent's final answer, a
few lines. The orchestrator's window holds those answers, never a forecast. The price: every
sub-agent re-pays the tool-use overhead and its own history.

Accounting: all calls go through one client, so the Meter sees them all. :class:`Delegation` keeps
the orchestrator's Run (its own calls only) and each sub-agent's Run apart, and
:meth:`Delegation.total_input_tokens` adds them: the sub-agents' tokens are part of the bill, a
failed sub-agent's too (the calls it made before it raised are kept in :attr:`Delegation.failed`).

A sub-agent that fails (an exception) or stops on a guard (``max_turns``, a repeated call: its
``limits``) does not return half an answer: the tool raises :class:`SubAgentFailed`, a
``ToolError`` naming the stop reason, observed value and limit, which the orchestrator reads as an
``is_error`` result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentlab.context.task import report_task
from agentlab.guards import GUARDS, Limits
from agentlab.meter.middleware import meter_of
from agentlab.run import Run, StopReason, Turn, turns_of
from agentlab.tools import Tool, ToolError, tool

SUB_LIMITS = Limits(max_turns=12, max_repeats=3)
"""Each sub-agent's guards: a looping sub-agent is stopped on its third identical call."""


class SubAgentFailed(ToolError):
    """A sub-agent ended without an answer: its stop reason, what the guard saw and its limit."""

    def __init__(self, cities: list[str], reason: str, detail: str) -> None:
        super().__init__(
            f"The sub-agent for {', '.join(cities)} stopped without a report: {reason} ({detail}). "
            "Its cities have no data; try fewer cities per sub-agent or report the gap."
        )
        self.reason = reason


@dataclass
class Delegation:
    """An orchestrator run and its sub-agents' runs, accounted separately and added up."""

    orchestrator: Run | None = None
    """The orchestrator's own calls."""
    subs: list[Run] = field(default_factory=list)
    """One Run per sub-agent that returned (an answer or a guard's stop), in order."""
    failed: list[list[Turn]] = field(default_factory=list)
    """The calls of each sub-agent that raised (no Run came back), in order: still paid for."""

    def runs(self) -> list[Run]:
        return [r for r in [self.orchestrator, *self.subs] if r is not None]

    def total_input_tokens(self) -> int:
        """Input tokens (cache included) of the orchestrator and every sub-agent, failed ones included."""
        return sum(t.prompt_tokens for r in self.runs() for t in r.turns) + sum(
            t.prompt_tokens for turns in self.failed for t in turns
        )

    def calls(self) -> int:
        """Model calls of the orchestrator and every sub-agent, failed ones included."""
        return sum(r.model_calls for r in self.runs()) + sum(len(turns) for turns in self.failed)


def research_tool(
    client: Any,
    get_weather: Tool,
    delegation: Delegation,
    batch: int = 8,
    limits: Limits = SUB_LIMITS,
    trace_dir: str | Path | None = None,
    lang: str | None = None,
) -> Tool:
    """The orchestrator's ``research_cities`` tool: one fresh sub-agent per call, at most ``batch`` cities, its
    task asked in ``lang`` (``None``: the notebook's language; see :func:`~agentlab.context.task.report_task`)."""
    from agentlab.loop import run_agent

    @tool(name="research_cities")
    def research_cities(cities: list[str]) -> str:
        """Delegate up to a batch of cities to a research sub-agent with a clean context window; it returns each city's temperature.

        Args:
            cities: City names, e.g. ["Paris", "London"].
        """
        if not 1 <= len(cities) <= batch:
            raise ToolError(f"research_cities takes 1 to {batch} cities per call, got {len(cities)}; split the list.")
        n = len(delegation.subs) + len(delegation.failed) + 1
        trace = Path(trace_dir) / f"sub-{n}.jsonl" if trace_dir else None
        meter = meter_of(client)
        mark = meter.mark()
        try:
            sub = run_agent(client, report_task(cities, lang), [get_weather], limits=limits, trace=trace)
        except Exception as e:  # an API error, a policy bug: readable, and the orchestrator goes on
            delegation.failed.append(turns_of(meter, calls=meter.own_calls(mark, any_conversation=True)))
            raise SubAgentFailed(cities, "error", f"{type(e).__name__}: {e}") from None
        delegation.subs.append(sub)
        if sub.stop_reason != StopReason.END_TURN:
            stop = json.loads(Path(trace).read_text().splitlines()[-1]) if trace else {}
            raise SubAgentFailed(cities, sub.stop_reason.value, _seen(stop, sub, limits))
        return sub.final_text

    desc = research_cities.description.replace("up to a batch of", f"at most {batch}")
    return Tool(research_cities.name, desc, research_cities.input_schema, research_cities.fn)


def _seen(stop: dict, sub: Run, limits: Limits) -> str:
    """What the guard saw and its limit: from the trace's stop event, else from the Run and the limits."""
    if "limit" in stop:
        return f"observed {stop['observed']}, limit {stop['limit']}"
    guard = next((name for name, reason in GUARDS if reason == sub.stop_reason), None)
    if guard is not None:
        return f"after {sub.model_calls} calls, limit {guard}={getattr(limits, guard)}"
    return f"after {sub.model_calls} calls, max_turns={limits.max_turns}"
