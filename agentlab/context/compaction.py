"""Compaction: past a token threshold, summarise the history and continue from the summary.

Client-side, in the harness: before a call, if the previous call's prompt plus what it wrote is
past ``threshold_tokens``, the whole conversation is rendered as a transcript and sent to the model
once with a summarising system prompt (a separate, metered call), and the history is replaced by one
user message: the summary, then "continue". Input tokens per call then rise, drop, rise: a sawtooth.

The trigger reads the *previous* call's size (``usage``), so it can be late by one turn's new
content; the summary call itself carries the whole transcript, so it is the run's peak unless the
threshold is well under the window. Compaction that cannot help ends the run with the typed reason
``StopReason.COMPACTION_FAILED`` (observed and limit in the trace's ``stop`` event; the caller gets
the Run, its ``detail`` says why): a summary that hit ``summary_max_tokens`` (never used
half-written), or a fresh summary already past ``threshold_tokens`` (the call right after it, prompt
plus output, is past the threshold again, so every call would compact: thrashing).

The API's own server-side version (not simulated here; names read 2026-11-30 from
https://platform.claude.com/docs/en/build-with-claude/compaction and the installed SDK's
``beta_compact_20260112_edit_param.py``): :data:`API_COMPACTION`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agentlab.guards import Stopped
from agentlab.meter.usage import Usage
from agentlab.run import StopReason

API_COMPACTION = {
    "beta_header": "compact-2026-01-12",
    "edit": {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": 150_000},
        "pause_after_compaction": False,
        "instructions": None,
    },
    "response_block": "compaction",
    "notes": "trigger defaults to 150,000 input tokens (at least 50,000); the response carries a "
    "'compaction' block with the summary; send it back and the API drops every block before it.",
    "source": "https://platform.claude.com/docs/en/build-with-claude/compaction",
}
"""The API's server-side compaction, by its real names (shown, not simulated)."""
SUMMARY_SYSTEM = (
    "Summarise the transcript below so the task can continue from the summary alone: "
    "keep the task line and every result needed to finish it."
)
"""The summariser's system prompt (the simulated model answers it with ``summary_text``)."""


def over_budget(observed: int, limit: int) -> str:
    """The ``detail`` sentence of a run stopped because the summary hit its output budget (the run stops
    with ``StopReason.COMPACTION_FAILED`` rather than continue from half a summary)."""
    return (
        f"the summary hit its output budget (stop_reason max_tokens): {observed} tokens written, "
        f"limit {limit} (Compaction(summary_max_tokens={limit})); raise the budget or compact earlier"
    )


def should_compact(last_prompt_tokens: int, last_output_tokens: int, threshold_tokens: int) -> bool:
    """True when the history the next call re-sends (previous prompt + its reply) is past the threshold."""
    return last_prompt_tokens + last_output_tokens > threshold_tokens


def transcript(messages: list[dict]) -> str:
    """The conversation as plain text, one line per block: what the summariser reads."""
    lines = []
    for m in messages:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for b in content:
            if b.get("type") == "text":
                lines.append(f"{m['role']}: {b.get('text', '')}")
            elif b.get("type") == "tool_use":
                lines.append(f"{m['role']} asked {b.get('name')}: {json.dumps(b.get('input'), ensure_ascii=False)}")
            elif b.get("type") == "tool_result":
                c = b.get("content")
                lines.append(f"tool result: {c if isinstance(c, str) else json.dumps(c, ensure_ascii=False)}")
    return "\n".join(lines)


@dataclass
class Compaction:
    """The compaction strategy for ``run_agent(..., context=Compaction(...))``."""

    threshold_tokens: int = 8_000
    """Compact before a call when the previous call's prompt + output passed this many tokens."""
    summary_max_tokens: int = 1_024
    """Output budget of the summary call; a summary that hits it ends the run (``COMPACTION_FAILED``)."""
    events: list[dict] = field(default_factory=list)
    """One record per compaction: turn, tokens before, summary tokens, the summary."""
    _last: Any = field(default=None, repr=False)
    """The previous call's ``usage`` (what the trigger reads); ``None`` before the first call and after a cut."""
    _since: int | None = field(default=None, repr=False)
    """Calls since the latest summary; ``None`` before any summary."""

    def __post_init__(self) -> None:
        for name in ("threshold_tokens", "summary_max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Compaction({name}={value!r}): {name} must be a whole number of tokens >= 1")

    def before_call(
        self, client: Any, model: str, messages: list[dict], tr: Any, turn: int
    ) -> tuple[list[dict], dict] | Stopped:
        usage = self._last
        if usage is None or not should_compact(_prompt(usage), usage.output_tokens, self.threshold_tokens):
            return messages, {}
        if self._since == 1:  # the call right after a summary is already past it: compacting again cannot help
            seen = _prompt(usage) + usage.output_tokens
            return Stopped(
                StopReason.COMPACTION_FAILED,
                "threshold_tokens",
                seen,
                self.threshold_tokens,
                f"a fresh summary is already past the threshold: the call right after it sent and wrote {seen} "
                f"tokens, limit {self.threshold_tokens} (Compaction(threshold_tokens=...)); compacting again "
                "would repeat on every call: raise the threshold, or shrink what every call re-sends",
            )
        reply = client.messages.create(
            model=model,
            max_tokens=self.summary_max_tokens,
            system=SUMMARY_SYSTEM,
            messages=[{"role": "user", "content": transcript(messages)}],
        )
        summary = " ".join(b.text for b in reply.content if b.type == "text").strip()
        if reply.stop_reason == "max_tokens":
            tr.event(
                "compaction",
                turn=turn,
                refused="summary over budget",
                output_tokens=reply.usage.output_tokens,
                limit=self.summary_max_tokens,
            )
            return Stopped(
                StopReason.COMPACTION_FAILED,
                "summary_max_tokens",
                reply.usage.output_tokens,
                self.summary_max_tokens,
                over_budget(reply.usage.output_tokens, self.summary_max_tokens),
            )
        record = {
            "turn": turn,
            "tokens_before": _prompt(usage) + usage.output_tokens,
            "messages_before": len(messages),
            "summary_tokens": reply.usage.output_tokens,
            "summary": summary,
        }
        self.events.append(record)
        tr.event("compaction", **record)
        self._last, self._since = None, 0
        return [{"role": "user", "content": f"{summary}\n\nContinue the task from this summary."}], {}

    def after_call(self, reply: Any, tr: Any, turn: int) -> None:
        if self._since is not None:
            self._since += 1
        self._last = reply.usage


def _prompt(usage: Any) -> int:
    return Usage.from_api(usage).prompt_total
