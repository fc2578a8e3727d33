"""A tool executor with gates: each call passes every gate before it runs, or is refused with a reason.

A gate (``agentlab.protocols.Gate``) is harness code between the model's request and the tool. The
model still *asks*; the gate decides whether the call happens. A refused call is answered, like any failure, with an
``is_error`` ``tool_result`` that says why (so the conversation stays valid and the run goes on),
and the trace gets a ``blocked`` event naming the defence and its reason, between the call's
``tool_call`` and ``tool_result`` events.

Use it with the loop unchanged: ``run_agent(client, task, tools, executor=GatedExecutor([gate]))``.
A gated executor keeps state for one run (what it has seen, what it blocked): make a new one per run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentlab.executor import Executor
from agentlab.protocols import Gate, ToolRunner
from agentlab.tools import Tool, toolset
from agentlab.trace import Trace


@dataclass
class Blocked:
    """One call a gate refused."""

    turn: int
    """The model turn that asked for it."""
    name: str
    """The tool asked for."""
    input: Any
    """The input the model sent."""
    defence: str
    """The gate that refused it."""
    reason: str
    """Why, in words (also what the model reads)."""


@dataclass
class GatedExecutor:
    """Runs one turn's tool calls one after another, each only if every gate lets it through."""

    gates: list[Gate] = field(default_factory=list)
    """The gates, checked in order; the first that refuses decides."""
    inner: ToolRunner = field(default_factory=Executor)
    """Runs the calls that pass (readable errors, serial)."""
    blocked: list[Blocked] = field(default_factory=list)
    """Every call refused in this run, in order."""

    def __post_init__(self) -> None:
        for g in self.gates:
            if not (
                isinstance(getattr(g, "name", None), str)
                and callable(getattr(g, "check", None))
                and callable(getattr(g, "observe", None))
            ):
                raise TypeError(
                    f"GatedExecutor(gates=...): {g!r} is not a gate; a gate has a name (str), "
                    "check(block) -> reason or None, and observe(block, result)"
                )

    def __call__(
        self, content: list[Any], tools: dict[str, Tool] | list[Tool], trace: Trace | None = None, turn: int = 0
    ) -> list[dict]:
        by_name = tools if isinstance(tools, dict) else toolset(tools)
        trace = trace if trace is not None else Trace()
        blocks = [b.model_dump(mode="json", exclude_none=True) if hasattr(b, "model_dump") else b for b in content]
        results = []
        for block in (b for b in blocks if b.get("type") == "tool_use"):
            refusal = next(((g.name, why) for g in self.gates if (why := g.check(block)) is not None), None)
            if refusal is None:
                result = self.inner([block], by_name, trace, turn)[0]
                for g in self.gates:
                    g.observe(block, result)
                results.append(result)
                continue
            defence, why = refusal
            text = f"Not run: blocked by the harness ({defence}): {why}"
            self.blocked.append(Blocked(turn, block["name"], block.get("input"), defence, why))
            trace.event("tool_call", turn=turn, id=block["id"], name=block["name"], input=block.get("input"))
            trace.event("blocked", turn=turn, id=block["id"], name=block["name"], defence=defence, reason=why)
            trace.event("tool_result", turn=turn, id=block["id"], content=text, is_error=True)
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": text, "is_error": True})
        return results


def result_text(result: dict) -> str:
    """The text of a ``tool_result`` block (string content, or its text blocks joined)."""
    content = result.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
