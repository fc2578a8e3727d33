"""The course's walk through the loop (notebook 07): the city task, one tool call per turn, step by step.

The course tells the loop in four swim lanes on "compare the temperature of city X and city Y, then
save a note": call 1 asks for ``get_weather(X)``, call 2 for ``get_weather(Y)``, call 3 for
``save_note``, and call 4 ends the turn with plain text. :func:`walk_city` runs that task with
``tool_choice`` ``{"type": "auto", "disable_parallel_tool_use": True}``, which the API documents as
"at most one tool use" per reply
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use) and the simulator
honours (``agentlab/sim/shape.py``); without it the default simulated model asks for every city in one turn.
:func:`walk_steps` turns the run's trace into the walk: one row per arrow of
:func:`agentlab.views.swimlane.plot_swimlane`, with the lane that acts, what crosses to the next lane,
and what the harness decides there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentlab.tools import ONE_PER_TURN
from agentlab.views.i18n import localize, tr
from agentlab.views.swimlane import swimlane_steps, trace_events

MAX_TEXT = 60
"""Longest piece of a tool result or reply quoted in a step, in characters."""


@dataclass(frozen=True)
class WalkStep:
    """One step of the walk: one arrow of the swim-lane picture, explained."""

    step: int
    """1-based position of the step in the run (the arrow's position in the picture, left to right)."""
    turn: int
    """The model call the step belongs to."""
    lane: str
    """The lane that acts at this step (one of ``agentlab.views.swimlane.LANES``)."""
    to: str
    """The lane that receives what crosses (the same lane when the harness decides on its own)."""
    crosses: str
    """What crosses between the lanes: the request with the whole history, a tool_use block, a tool_result, the final text."""
    decides: str
    """What the harness decides at this step ("" where it decides nothing)."""


def walk_city(
    cities: list[str],
    workdir: str | Path,
    *,
    client: Any = None,
    one_per_turn: bool = True,
    name: str = "walk.jsonl",
    lang: str = "en",
) -> Any:
    """Run the city task on ``cities`` with a trace in ``workdir``: one tool call per turn unless ``one_per_turn=False``.

    ``client`` defaults to :func:`agentlab.connect` (the notebook's mode: the simulator offline)."""
    from agentlab.client import connect
    from agentlab.loop import run_agent
    from agentlab.weather import city_task, task_tools

    workdir = Path(workdir)
    client = client if client is not None else connect(quiet=True)
    return run_agent(
        client,
        city_task(cities, lang),
        task_tools(workdir),
        trace=workdir / name,
        tool_choice=ONE_PER_TURN if one_per_turn else None,
    )


def _short(text: Any) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _call(name: str, tool_input: Any) -> str:
    args = (
        ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (tool_input or {}).items())
        if isinstance(tool_input, dict)
        else json.dumps(tool_input, ensure_ascii=False)
    )
    return _short(f"{name}({args})")


def _explained(events: list[dict]) -> list[tuple[str, str]]:
    """(what crosses, what the harness decides) for each arrow, in the order ``swimlane_steps`` draws them."""
    tools = len(events[0].get("tools") or [])
    out: list[tuple[str, str]] = []
    for e in events[1:]:
        kind = e.get("event")
        if kind == "request":
            n = e.get("messages", 0)
            what = (
                f"the task and {tools} tool definitions (1 message)"
                if n == 1
                else f"the whole history again: {n} messages and {tools} tool definitions"
            )
            out.append((what, "call the model"))
        elif kind == "response":
            uses = [b for b in e.get("content", []) if b.get("type") == "tool_use"]
            if uses:
                out.append(
                    (
                        "tool_use " + "; ".join(_call(b.get("name", "?"), b.get("input")) for b in uses),
                        "stop_reason is tool_use: run it, then call again",
                    )
                )
            else:
                text = " ".join(b.get("text", "") for b in e.get("content", []) if b.get("type") == "text")
                out.append((f"final text: {_short(text)}", f"stop_reason is {e.get('stop_reason')}: leave the loop"))
        elif kind == "tool_call":
            out.append((f"run {e.get('name')}", ""))
            out.append((_call(str(e.get("name")), e.get("input")), ""))
        elif kind == "tool_result":
            head = "error" if e.get("is_error") else "tool_result"
            out.append((f"{head}: {_short(e.get('content', ''))}", "append it to the history"))
        elif kind == "code_step":
            raise ValueError(
                "walk_steps: this is a workflow's trace; the walk explains an agent run "
                "(agentlab.run_agent with trace=...)"
            )
        elif kind == "stop":
            out.append((f"stop: {e.get('reason')}", f"end the run ({e.get('reason')})"))
    return out


def walk_steps(source: Any) -> list[WalkStep]:
    """The walk of an agent run: ``source`` is a ``Run`` with a trace, a trace path, or its events."""
    events = trace_events(source)
    arrows = swimlane_steps(events)
    if events[0].get("kind") != "agent":
        raise ValueError(
            f"walk_steps: this trace is a {events[0].get('kind')!r} run; the walk explains an agent "
            "run (agentlab.run_agent with trace=...)"
        )
    notes = _explained(events)
    if len(notes) != len(arrows):
        raise ValueError(
            f"walk_steps: {len(arrows)} arrows but {len(notes)} explanations; an event kind the walk "
            "does not know was drawn (add it to agentlab/experiments/walkthrough.py)"
        )
    return [
        WalkStep(i, a.turn, a.src, a.dst, what, decides)
        for i, (a, (what, decides)) in enumerate(zip(arrows, notes), start=1)
    ]


def walk_table(source: Any) -> Any:
    """The walk as a table (pandas), one row per step, in the notebook's language."""
    import pandas as pd

    cols = ("step", "turn", "lane", "to", "crosses", "harness decides")
    rows = [(s.step, s.turn, tr(s.lane), tr(s.to), tr(s.crosses), tr(s.decides)) for s in walk_steps(source)]
    return pd.DataFrame(rows, columns=[tr(c) for c in cols]).set_index(tr("step"))


def per_lane(source: Any) -> dict[str, int]:
    """How many steps each lane acts in (every lane listed, zero included)."""
    from agentlab.views.swimlane import LANES

    steps = walk_steps(source)
    return {lane: sum(s.lane == lane for s in steps) for lane in LANES}


def resent_rows(run: Any) -> list[dict]:
    """Per model call: the messages it sent, its input tokens, and how many of them an earlier call already sent."""
    from agentlab.views.stepper import turn_frames

    return [
        {
            "turn": f.turn,
            "messages": len(f.messages),
            "input_tokens": f.input_tokens,
            "resent_tokens": f.reprefill_tokens,
            "new_tokens": f.input_tokens - f.reprefill_tokens,
        }
        for f in turn_frames(run)
    ]


def plot_resent(run: Any, title: str | None = None) -> Any:
    """Input tokens per model call, split into what an earlier call already sent and what is new, labelled."""
    from agentlab.views.figures import pyplot

    rows = resent_rows(run)
    turns = [r["turn"] for r in rows]
    fig, ax = pyplot().subplots(figsize=(6.4, 3.8), constrained_layout=True)
    old = ax.bar(
        turns, [r["resent_tokens"] for r in rows], color="#9dc3e6", label="re-sent (the call before sent or wrote it)"
    )
    new = ax.bar(
        turns,
        [r["new_tokens"] for r in rows],
        bottom=[r["resent_tokens"] for r in rows],
        color="#f4b183",
        label="new in this call",
    )
    ax.bar_label(
        old,
        labels=[f"{r['resent_tokens']:,}" if r["resent_tokens"] else "" for r in rows],
        label_type="center",
        fontsize=8,
    )
    ax.bar_label(new, labels=[f"{r['input_tokens']:,} ({r['messages']} msgs)" for r in rows], fontsize=8)
    ax.set_xticks(turns)
    ax.set_xlabel("model call (turn)")
    ax.set_ylabel("input tokens of the call (tokens)")
    ax.margins(y=0.18)
    ax.legend(fontsize=8, loc="upper left")
    est = ", estimated by the simulator" if getattr(run, "estimated", False) else ""
    ax.set_title(title or f"Each call re-sends the history{est}", fontsize=10)
    return localize(fig)
