"""The swim-lane picture: who does what, step by step, drawn from any run's trace.

Four lanes, as the course draws the loop:

- **model**: Claude. It only reads a request and writes a reply (text or ``tool_use`` requests).
- **host application**: the loop around the model (``run_agent``): sends the history, reads
  ``stop_reason``, decides whether to go round again.
- **your code**: the tool functions you registered, and, in a workflow, the fixed code path that
  decides every step itself.
- **tools**: what those functions touch: weather data, the notes file, the outside world.

Drawn as a sequence diagram: the lanes are columns, time runs down the page, each step is one horizontal
arrow with its label on it (9 pt), and a payload too long for its arrow is numbered and written in full
under the picture. Each trace event becomes one to three arrows (``Step`` s). In an agent run the host application is
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
MAX_LABEL = 90
"""Longest payload a step keeps, in characters (longer ones are cut with "..."); the picture cuts its arrow
labels shorter (``LABEL_MAX``) and writes the rest under it."""


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


LABEL_MAX = 28
"""Longest label drawn on an arrow, per lane it crosses (a step to the next lane: 28 characters, across three
lanes: 84); a longer payload is cut there and given a number, written in full below the picture."""
NOTE_MAX = 110
"""Longest payload written in the notes below the picture, in characters."""
FONT = 9
"""Size of every label on the picture, in points: read without squinting, as the course's figure is."""


def step_y(position: int) -> float:
    """Where the ``position``-th drawn step (1-based) sits: time runs down the page, one row a step."""
    return -float(position)


def plot_swimlane(source: Any, *, max_steps: int = 24, title: str | None = None, upto: int | None = None) -> Any:
    """Draw the swim lanes of a run: ``source`` is a trace path, its events, or a ``Run`` with a trace file.

    A sequence diagram: the four lanes are columns, time runs down, each step is one arrow from the lane
    that acts to the lane it hands over to, labelled horizontally; a payload too long for its arrow is cut
    and numbered, and written in full in a table under the picture. Runs longer than ``max_steps`` arrows
    are collapsed, with a row saying how many are not drawn. ``upto=k`` draws the run as it stands after
    step ``k`` (1-based): later arrows faint and unlabelled, the lane that acts at step ``k`` lit, so a cell
    can walk a run one step at a time, statically.
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
    x = {lane: float(i) for i, lane in enumerate(LANES)}
    notes: list[str] = []
    rows = len(shown)
    fig, ax = plt.subplots(figsize=(10.0, 0.42 * rows + 1.4), constrained_layout=True)
    for lane in LANES:
        lit = upto is not None and steps[upto - 1].src == lane
        ax.axvline(x[lane], color="#ffd54f" if lit else "#e6e6e6", lw=7, zorder=0)  # the acting lane lights up
    for position, (step, n) in enumerate(zip(shown, numbers), start=1):
        y = step_y(position)
        if step is None:
            ax.axhspan(y - 0.4, y + 0.4, color="#f2f2f2", zorder=0)
            ax.text(1.5, y, f"... {hidden} steps not drawn ...", ha="center", va="center", fontsize=FONT)
            continue
        future = upto is not None and n > upto  # not happened yet: faint, no label
        color = "#d9d9d9" if future else _color(step)
        x0, x1 = x[step.src], x[step.dst]
        if x0 == x1:
            ax.plot([x0], [y], marker="s", color=color, ms=7)
        else:
            arrow = {"arrowstyle": "->", "color": color, "lw": 1.0 if future else 1.5}
            ax.annotate("", xy=(x1, y), xytext=(x0, y), arrowprops=arrow)
        if future:
            continue
        label, room = step.label, LABEL_MAX * max(1, round(abs(x1 - x0)))
        if len(label) > room:
            notes.append(label)
            label = f"{label[: room - 8].rstrip()}... [{len(notes)}]"
        at, align = ((x0 + x1) / 2, "center") if x0 != x1 else (x0 + 0.12, "left")
        ax.text(at, y + 0.08, label, fontsize=FONT, ha=align, va="bottom", color=color)
    ax.set_xticks([x[lane] for lane in LANES], LANES, fontsize=FONT + 1)
    ax.xaxis.tick_top()
    ax.set_xlim(-0.6, len(LANES) - 0.4)
    ax.set_ylim(step_y(rows) - 0.7, -0.3)
    ax.set_yticks([step_y(p) for p in range(1, rows + 1)], _row_labels(shown, numbers), fontsize=FONT)
    ax.set_ylabel("step (model call)")
    for side in ("right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="x", length=0)
    kind = events[0].get("kind", "run")
    note = f", {hidden} collapsed" if hidden else ""
    if upto is not None:
        now = steps[upto - 1]
        default = f"{kind}: step {upto} of {len(steps)}, {now.src} to {now.dst}"
    else:
        default = f"{kind}: who does what ({len(steps)} steps{note})"
    ax.set_title(title or default, fontsize=10)
    if notes:  # the payloads cut on their arrows, in full
        lines = [f"[{i}] {text[:NOTE_MAX]}{'...' if len(text) > NOTE_MAX else ''}" for i, text in enumerate(notes, 1)]
        fig.set_figheight(fig.get_figheight() + 0.22 * len(lines))
        ax.set_xlabel("\n".join(lines), fontsize=FONT, loc="left", labelpad=8)
    return localize(fig)


def _color(step: Step) -> str:
    """Red for a failed tool call, blue for what goes to or comes from the model, grey for the rest."""
    return "#D55E00" if step.error else ("#0072B2" if "model" in (step.src, step.dst) else "#555555")


def _row_labels(shown: list[Step | None], numbers: list[int | None]) -> list[str]:
    return ["" if s is None else f"{n} ({s.turn})" for s, n in zip(shown, numbers)]


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
