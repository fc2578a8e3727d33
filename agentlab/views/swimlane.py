"""The swim-lane picture: who does what, step by step, drawn from any run's trace.

Four lanes, as the course draws the loop:

- **model**: Claude. It only reads a request and writes a reply (text or ``tool_use`` requests).
- **host application**: the loop around the model (``run_agent``): sends the history, reads
  ``stop_reason``, decides whether to go round again.
- **your code**: the tool functions you registered, and, in a workflow, the fixed code path that
  decides every step itself.
- **tools**: what those functions touch: weather data, the notes file, the outside world.

Each trace event becomes one to three arrows (``Step`` s). In an agent run the host application is
in charge and the model's ``tool_use`` decides what runs next; in a workflow your code calls the
tools and the model in an order written in advance. A long run is drawn collapsed: the first and
last steps, and one band that says how many steps in between are not drawn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentlab.views.fonts import use_cjk_font
from agentlab.views.i18n import localize

LANES = ("model", "host application", "your code", "tools")
"""The four lanes, top to bottom."""
MAX_LABEL = 38
"""Longest arrow label, in characters (longer labels are cut with "...")."""


@dataclass(frozen=True)
class Step:
    """One arrow of the picture."""

    src: str
    """Lane the arrow starts in (one of ``LANES``)."""
    dst: str
    """Lane the arrow ends in."""
    label: str
    """What travels along the arrow, short."""
    turn: int
    """Model call this step belongs to (0 before the first call)."""
    error: bool = False
    """True for a failed tool call (drawn in red)."""


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."


def _args(tool_input: Any) -> str:
    if isinstance(tool_input, dict):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in tool_input.items())
    return json.dumps(tool_input, ensure_ascii=False)


def swimlane_steps(events: list[dict]) -> list[Step]:
    """The arrows for a trace's events (header first, as :func:`agentlab.read_trace` returns them)."""
    if not events or events[0].get("format") != "agentlab-trace":
        raise ValueError("swimlane_steps: expected a trace's events with its header first (agentlab.read_trace(path))")
    agent = events[0].get("kind") == "agent"
    caller = "host application" if agent else "your code"
    steps: list[Step] = []
    turn = 0
    for e in events[1:]:
        kind = e.get("event")
        if kind == "request":
            turn = e.get("turn") or turn + 1  # a workflow's calls carry a step path instead of a turn
            what = e.get("step") or f"request {turn}: {e.get('messages', '?')} messages"
            steps.append(Step(caller, "model", _short(what), turn))
        elif kind == "response":
            asked = [b.get("name", "?") for b in e.get("content", []) if b.get("type") == "tool_use"]
            what = f"tool_use {', '.join(asked)}" if asked else (e.get("stop_reason") or "reply")
            steps.append(Step("model", caller, _short(what), turn))
        elif kind == "tool_call":
            steps.append(Step("host application", "your code", _short(f"run {e.get('name')}"), turn))
            steps.append(Step("your code", "tools", _short(f"{e.get('name')}({_args(e.get('input'))})"), turn))
        elif kind == "tool_result":
            err = bool(e.get("is_error"))
            steps.append(
                Step(
                    "tools",
                    "host application",
                    _short(("error: " if err else "tool_result: ") + str(e.get("content", ""))),
                    turn,
                    err,
                )
            )
        elif kind == "code_step":  # a workflow's step: your code runs the tool and reads its outcome itself
            err = bool(e.get("is_error"))
            steps.append(Step("your code", "tools", _short(f"{e.get('name')}({_args(e.get('input'))})"), turn))
            steps.append(
                Step("tools", "your code", _short(("error: " if err else "") + str(e.get("content", ""))), turn, err)
            )
        elif kind == "stop":
            steps.append(Step(caller, caller, _short(f"stop: {e.get('reason')}"), turn))
    return steps


def collapse_steps(steps: list[Step], max_steps: int) -> tuple[list[Step | None], int]:
    """At most ``max_steps`` arrows: the first and last ones, with ``None`` marking the gap."""
    if len(steps) <= max_steps:
        return list(steps), 0
    head = max_steps // 2
    tail = max_steps - head - 1
    return [*steps[:head], None, *steps[-tail:]], len(steps) - head - tail


def plot_swimlane(source: Any, *, max_steps: int = 24, title: str | None = None, upto: int | None = None) -> Any:
    """Draw the swim lanes of a run: ``source`` is a trace path, its events, or a ``Run`` with a trace file.

    Runs longer than ``max_steps`` arrows are collapsed, with a note saying how many are not drawn.
    ``upto=k`` draws the run as it stands after step ``k`` (1-based): later arrows faint and unlabelled,
    the lane that acts at step ``k`` lit, so a cell can walk a run one step at a time, statically.
    """
    import matplotlib.pyplot as plt

    if not isinstance(max_steps, int) or max_steps < 3:
        raise ValueError(f"plot_swimlane(max_steps={max_steps!r}): use a whole number of at least 3")
    use_cjk_font()  # Chinese tasks and labels render as glyphs, not boxes
    events = trace_events(source)
    steps = swimlane_steps(events)
    if upto is not None and not (isinstance(upto, int) and 1 <= upto <= len(steps)):
        raise ValueError(
            f"plot_swimlane(upto={upto!r}): this run has {len(steps)} steps; give a whole number "
            f"from 1 to {len(steps)}, or leave upto out to draw them all"
        )
    shown, hidden = collapse_steps(steps, max_steps)
    numbers = _numbers(len(steps), len(shown), hidden)
    y = {lane: len(LANES) - 1 - i for i, lane in enumerate(LANES)}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(shown) + 2.5), 3.8), constrained_layout=True)
    for lane in LANES:
        ax.axhline(y[lane], color="#dddddd", lw=8, zorder=0)
    for x, (step, n) in enumerate(zip(shown, numbers), start=1):
        if step is not None and upto is not None and n == upto:
            ax.axhline(y[step.src], color="#ffd54f", lw=8, zorder=0)  # the acting lane lights up
        if step is not None and upto is not None and n > upto:  # not happened yet: faint, no label
            y0, y1 = y[step.src], y[step.dst]
            if y0 == y1:
                ax.plot([x], [y0], marker="s", color="#e3e3e3", ms=6)
            else:
                ax.annotate(
                    "", xy=(x, y1), xytext=(x, y0), arrowprops={"arrowstyle": "->", "color": "#e3e3e3", "lw": 1.0}
                )
            continue
        if step is None:
            ax.axvspan(x - 0.4, x + 0.4, color="#f2f2f2", zorder=0)
            ax.text(x, 1.5, f"... {hidden} steps\nnot drawn ...", ha="center", va="center", fontsize=7, rotation=90)
            continue
        color = "#c0504d" if step.error else ("#4f81bd" if step.dst == "model" or step.src == "model" else "#555555")
        y0, y1 = y[step.src], y[step.dst]
        if y0 == y1:
            ax.plot([x], [y0], marker="s", color=color, ms=7)
        else:
            ax.annotate("", xy=(x, y1), xytext=(x, y0), arrowprops={"arrowstyle": "->", "color": color, "lw": 1.4})
        ax.text(x + 0.08, (y0 + y1) / 2, step.label, fontsize=6.5, rotation=90, va="center", color=color)
    ax.set_yticks([y[lane] for lane in LANES], LANES)
    ax.set_xlim(0.3, len(shown) + 0.9)
    ax.set_ylim(-0.6, len(LANES) - 0.4)
    ax.set_xticks(range(1, len(shown) + 1), [str(s.turn) if s else "" for s in shown], fontsize=7)
    ax.set_xlabel("step, in order (tick = the model call it belongs to)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    kind = events[0].get("kind", "run")
    note = f", {hidden} collapsed" if hidden else ""
    if upto is not None:
        now = steps[upto - 1]
        default = f"{kind}: step {upto} of {len(steps)}, {now.src} to {now.dst}"
    else:
        default = f"{kind}: who does what ({len(steps)} steps{note})"
    ax.set_title(title or default, fontsize=10)
    return localize(fig)


def _numbers(total: int, shown: int, hidden: int) -> list[int | None]:
    """The 1-based step number of each drawn slot (``None`` for the collapsed band)."""
    if not hidden:
        return list(range(1, total + 1))
    head = shown // 2  # as collapse_steps cuts: head steps, the band, then the last ones
    tail = shown - head - 1
    return [*range(1, head + 1), None, *range(total - tail + 1, total + 1)]


def trace_events(source: Any) -> list[dict]:
    """The events of a trace: from a list of events, a ``Run`` (its ``trace_path``) or a trace file's path."""
    if isinstance(source, list):
        return source
    path = getattr(source, "trace_path", source)
    if path is None:
        raise ValueError(
            "this Run has no trace file to draw or step through; run it with trace='run.jsonl', "
            "or pass the trace's events"
        )
    from agentlab.trace import read_trace

    return read_trace(Path(path))
