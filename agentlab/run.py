"""What one run of the task returns: a ``Run`` made of ``Turn`` s, the same shape for agent and workflow."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from enum import Enum
from typing import Any


class StopReason(str, Enum):
    """Why a run ended: the model's own ``stop_reason`` values (all but ``tool_use``, which continues
    the loop), then the harness's own."""

    END_TURN = "end_turn"
    """The model answered without asking for a tool: its turn, and the task, are over."""
    MAX_TOKENS = "max_tokens"
    """The model hit the request's ``max_tokens`` mid-answer."""
    STOP_SEQUENCE = "stop_sequence"
    """The model wrote one of the request's ``stop_sequences``."""
    REFUSAL = "refusal"
    """The model declined to continue."""
    PAUSE_TURN = "pause_turn"
    """A long server-side turn was paused; send the conversation back to continue it."""
    MODEL_CONTEXT_WINDOW_EXCEEDED = "model_context_window_exceeded"
    """The conversation no longer fits the model's context window."""
    MAX_TURNS = "max_turns"
    """The harness's turn limit was reached while the model still wanted tools."""
    COMPLETED = "completed"
    """A workflow ran every step of its fixed code path."""
    ERROR = "error"
    """An exception ended the run (the trace records it; the exception is re-raised)."""


@dataclass
class Turn:
    """One model call and what the harness did with its answer."""

    index: int
    """1-based position of this model call in the run."""
    input_tokens: int
    """``usage.input_tokens`` of this call (the whole request, re-sent history included)."""
    output_tokens: int
    """``usage.output_tokens`` of this call."""
    reprefill_tokens: int
    """Input tokens of this call that were already sent or generated in the previous call."""
    stop_reason: str | None
    """The model's ``stop_reason`` for this call."""
    tool_calls: list[str] = field(default_factory=list)
    """Names of the tools the model asked for in this call, in order."""
    wall_s: float = 0.0
    """Seconds the call took, as measured around the HTTP round trip."""
    cache_read_tokens: int = 0
    """``usage.cache_read_input_tokens`` (billed apart from ``input_tokens``)."""
    cache_write_tokens: int = 0
    """``usage.cache_creation_input_tokens`` (billed apart from ``input_tokens``)."""
    model: str = ""
    """The model that answered this call (the price depends on it)."""
    latency_s: float = 0.0
    """Time this call took: the simulator's simulated latency, or the measured ``wall_s`` when live."""

    @cached_property
    def cost_usd(self) -> float | None:
        """Price of this call from genai-prices; ``None`` when the model has no known price.

        Computed on first read (a price lookup costs ~0.15 ms, so the loop itself never pays it).
        """
        from .accounting import cost_usd

        return cost_usd(self.model, {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                                     "cache_read_input_tokens": self.cache_read_tokens,
                                     "cache_creation_input_tokens": self.cache_write_tokens})


@dataclass
class Run:
    """The outcome of running a task as an agent or as a workflow."""

    kind: str
    """``"agent"`` or ``"workflow"``."""
    model: str
    """The model id every call used."""
    final_text: str
    """The last text the model wrote (the answer)."""
    stop_reason: StopReason
    """Why the run ended."""
    turns: list[Turn]
    """One entry per model call, in order."""
    messages: list[dict]
    """The conversation as sent to the API (for an agent, the full growing history)."""
    estimated: bool
    """True when token counts come from the simulator's estimator rather than the real API."""
    wall_s: float = 0.0
    """Seconds from start to stop of the whole run, tools included."""
    trace_path: str | None = None
    """Where the JSONL trace was written, if anywhere."""
    tool_results: list[dict] = field(default_factory=list)
    """Every tool executed: ``{"name", "input", "content", "is_error"}``, in order."""

    @property
    def model_calls(self) -> int:
        """How many times the model was called."""
        return len(self.turns)

    @property
    def input_tokens(self) -> int:
        """Input tokens summed over every call (what you pay for as input)."""
        return sum(t.input_tokens for t in self.turns)

    @property
    def output_tokens(self) -> int:
        """Output tokens summed over every call."""
        return sum(t.output_tokens for t in self.turns)

    @property
    def reprefill_tokens(self) -> int:
        """Input tokens that were re-sent from earlier turns, summed."""
        return sum(t.reprefill_tokens for t in self.turns)

    @property
    def cost_usd(self) -> float | None:
        """Total price, or ``None`` if any call's model has no known price (never a silent 0)."""
        costs = [t.cost_usd for t in self.turns]
        return None if any(c is None for c in costs) else sum(costs)  # type: ignore[arg-type]

    def summary(self) -> dict[str, Any]:
        """The figures the comparison table shows, as a flat dict."""
        return {
            "kind": self.kind,
            "model calls": self.model_calls,
            "turns": self.model_calls,
            "input tokens": self.input_tokens,
            "re-prefill tokens": self.reprefill_tokens,
            "output tokens": self.output_tokens,
            "cost (USD)": self.cost_usd,
            "wall time (s)": round(self.wall_s, 3),
            "stop": self.stop_reason.value,
            "tokens": "estimated (simulator)" if self.estimated else "API usage",
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything in the run as plain JSON-ready data."""
        d = asdict(self)
        d["stop_reason"] = self.stop_reason.value
        for turn, t in zip(d["turns"], self.turns):
            turn["cost_usd"] = t.cost_usd
        d["cost_usd"] = self.cost_usd
        return d
