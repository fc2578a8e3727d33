"""What the trace stepper shows at each turn, as plain data (no widgets): one ``TurnFrame`` per model call.

A frame is the messages array exactly as that call's request carried it (the blocks new since the
previous call marked), the call's tokens and the totals so far, and which swim-lane steps belong to
it. Built from a ``Run`` (its messages and metered turns: the re-prefill is the meter's
``Turn.reprefill_tokens``) or from a trace file alone (the messages are rebuilt from the trace's
events, and re-prefill is computed with the meter's rule from each ``response`` event's usage: call k
re-sends what the previous call sent and generated, never more than its own input,
``min(prompt_k, prompt_j + output_j)``, cache reads and writes counted in every prompt).

When a ``Turn`` or a trace ``response`` event carries a per-component input breakdown (a dict of
component name to tokens, e.g. system / tools / history / new), the frame keeps it; otherwise the
breakdown is ``None`` and only the totals are shown.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from agentlab.meter.usage import Usage
from agentlab.views.i18n import tr

BREAKDOWN_NAMES = ("input_breakdown", "breakdown", "components")
"""Attribute / event keys looked up, in order, for a per-component input breakdown (dict name -> tokens)."""


@dataclass
class TurnFrame:
    """One model call of a run, as the stepper shows it."""

    turn: int
    """1-based model call number."""
    messages: list[dict]
    """The messages array this call's request carried."""
    new_from: int
    """Index in ``messages`` of the first message the previous call did not carry (0 for turn 1)."""
    input_tokens: int
    """Every input token of this call: ``usage.input_tokens`` plus cache reads and writes
    (``Usage.prompt_total``); just ``usage.input_tokens`` when nothing was cached."""
    output_tokens: int
    """``usage.output_tokens`` of this call."""
    reprefill_tokens: int
    """Input tokens of this call already sent or generated in the previous call (the meter's figure)."""
    cum_input: int
    """Input tokens of every call up to and including this one."""
    cum_reprefill: int
    """Re-prefill tokens of every call up to and including this one."""
    stop_reason: str | None
    """The model's ``stop_reason`` for this call."""
    tools: list[str] = field(default_factory=list)
    """Tools the model asked for in this call."""
    breakdown: dict[str, int] | None = None
    """Per-component input tokens of this call when the run records them, else ``None``."""


def _breakdown(*holders: Any) -> dict[str, int] | None:
    for h in holders:
        for name in BREAKDOWN_NAMES:
            value = h.get(name) if isinstance(h, dict) else getattr(h, name, None)
            if callable(value):
                value = value()
            if hasattr(value, "__dataclass_fields__"):
                from dataclasses import asdict

                value = asdict(value)
            if isinstance(value, dict) and value and all(isinstance(v, (int, float)) for v in value.values()):
                return {str(k): int(v) for k, v in value.items()}
    return None


def _rebuild_messages(events: list[dict]) -> list[dict]:
    """The final messages array of an agent run, rebuilt from its trace (tool results grouped per turn)."""
    head = events[0]
    task = head.get("task", "(the task is not recorded in this trace)")
    msgs: list[dict] = [{"role": "user", "content": task}]
    pending: list[dict] = []
    for e in events[1:]:
        kind = e.get("event")
        if kind in ("request", "stop") and pending:
            msgs.append({"role": "user", "content": pending})
            pending = []
        if kind == "response":
            msgs.append({"role": "assistant", "content": e.get("content", [])})
        elif kind == "tool_result":
            block = {"type": "tool_result", "tool_use_id": e.get("id"), "content": e.get("content")}
            if e.get("is_error"):
                block["is_error"] = True
            pending.append(block)
    return msgs


def _metered_turns(run: Any, events: list[dict]) -> dict[int, Any]:
    """Trace turn -> the run's metered ``Turn``, in call order, past the summary call each ``compaction``
    event made; empty (read the trace alone) when the run's calls do not line up with its trace."""
    if run is None:
        return {}
    calls = [e for e in events[1:] if e.get("event") in ("response", "compaction")]
    if len(calls) != len(run.turns):
        return {}
    return {e["turn"]: t for e, t in zip(calls, run.turns) if e.get("event") == "response"}


def turn_frames(source: Any) -> list[TurnFrame]:
    """The frames of a run: ``source`` is a ``Run`` with a trace file, a trace path, or a trace's events."""
    from agentlab.views.swimlane import trace_events

    run = source if hasattr(source, "turns") and hasattr(source, "messages") else None
    events = trace_events(source)
    if not events or events[0].get("format") != "agentlab-trace":
        raise ValueError("turn_frames: expected an agentlab trace (a Run with trace=..., a .jsonl path, or its events)")
    if run is not None and run.messages:
        messages = run.messages
    elif events[0].get("kind") == "agent":
        messages = _rebuild_messages(events)
    else:
        messages = [{"role": "user", "content": "(this workflow's prompt is not in its trace; pass the Run to see it)"}]
        messages += [
            {"role": "assistant", "content": e.get("content", [])} for e in events if e.get("event") == "response"
        ]
    requests, responses = _by_call(events, "request"), _by_call(events, "response")
    metered = _metered_turns(run, events)
    restarts = {e.get("turn") for e in events if e.get("event") == "compaction" and not e.get("refused")}
    frames: list[TurnFrame] = []
    prev_count, earlier, cum_in, cum_re = 0, None, 0, 0
    for k in sorted(responses):
        usage = Usage.from_api(responses[k].get("usage"))
        turn = metered.get(k)
        if k in restarts:  # a summary replaced the history: the meter starts a new conversation
            earlier = None
        inp = turn.prompt_tokens if turn else usage.prompt_total
        out = turn.output_tokens if turn else usage.output_tokens
        if turn is not None:
            re = turn.reprefill_tokens
        else:  # the meter's rule: what the previous call sent and generated, never more than this input
            re = usage.reprefill_after(earlier)
        count = int(requests.get(k, {}).get("messages", len(messages)))
        cum_in, cum_re = cum_in + inp, cum_re + re
        asked = [b.get("name", "?") for b in responses[k].get("content", []) if b.get("type") == "tool_use"]
        frames.append(
            TurnFrame(
                k,
                messages[:count],
                min(prev_count, count),
                inp,
                out,
                re,
                cum_in,
                cum_re,
                responses[k].get("stop_reason"),
                asked,
                _breakdown(turn, responses[k]),
            )
        )
        prev_count, earlier = count, usage
    if not frames:
        raise ValueError("turn_frames: this trace has no model call (no response event) to step through")
    return frames


def _by_call(events: list[dict], kind: str) -> dict[int, dict]:
    """The ``kind`` events by model call: the agent's ``turn``, or their order (a workflow names its step instead)."""
    return {e.get("turn") or i: e for i, e in enumerate((e for e in events if e.get("event") == kind), start=1)}


_NEW = "background:#fff3b0;border-left:4px solid #e0a800;"
_OLD = "background:#f4f4f4;border-left:4px solid #cccccc;color:#555;"


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if block.get("type") == "text":
        return block.get("text", "")
    return json.dumps(block, ensure_ascii=False)


def messages_html(frame: TurnFrame) -> str:
    """The frame's messages array as HTML: one box per block, new blocks highlighted yellow."""
    rows = []
    for i, m in enumerate(frame.messages):
        new = i >= frame.new_from
        blocks = [m["content"]] if isinstance(m["content"], str) else m["content"]
        for b in blocks:
            kind = "text" if isinstance(b, str) else b.get("type", "?")
            tag = " " + tr("NEW") if new else ""
            rows.append(
                f'<div class="agentlab-block{" agentlab-new" if new else ""}" style="{_NEW if new else _OLD}'
                f'padding:2px 6px;margin:2px 0;font-family:monospace;font-size:12px;white-space:pre-wrap">'
                f"<b>[{i}] {html.escape(m['role'])} · {html.escape(kind)}{tag}</b> "
                f"{html.escape(_block_text(b)[:400])}</div>"
            )
    return "".join(rows)


def tokens_html(frame: TurnFrame, estimated: bool | None = None) -> str:
    """This call's tokens and the totals so far (and the input breakdown when the run records one)."""
    rows = [
        ("input tokens, this call", frame.input_tokens),
        ("  of which re-prefill", frame.reprefill_tokens),
        ("  new this call", frame.input_tokens - frame.reprefill_tokens),
        ("output tokens, this call", frame.output_tokens),
        ("input tokens so far", frame.cum_input),
        ("re-prefill tokens so far", frame.cum_reprefill),
    ]
    if frame.breakdown:
        rows += [(f"  input: {name}", value) for name, value in frame.breakdown.items()]
    body = "".join(f"<tr><td>{html.escape(tr(k))}</td><td style='text-align:right'>{v}</td></tr>" for k, v in rows)
    note = tr("tokens (estimated by the simulator)" if estimated else "tokens")
    return (
        f"<b>{html.escape(tr(f'turn {frame.turn}'))}</b>: {html.escape(tr(f'{len(frame.messages)} messages sent'))}, "
        f"stop_reason <code>{html.escape(str(frame.stop_reason))}</code>, "
        f"{html.escape(tr('tools asked'))}: {html.escape(', '.join(frame.tools) or '-')}"
        f"<table class='agentlab-tokens'>{body}</table><small>{html.escape(note)}</small>"
    )
