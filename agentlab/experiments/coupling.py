"""The hidden-coupling bug (course 3.5): two tools of one turn share state, one must go first.

The model asks, in one turn, to ``add_note`` and to ``count_notes`` (to tell the user how many notes
there are now). ``add_note`` writes the notes; ``count_notes`` reads them. Run naively in parallel,
the count can be read before the note is written: the model is told the *old* count, reports it,
and nothing anywhere says an error happened. Declaring ``writes=("notes",)`` / ``reads=("notes",)``
lets the executor's conflict rule run the writer first.
"""

from __future__ import annotations

import json
import re
import time
from typing import Callable

from agentlab.client import connect
from agentlab.executor import Executor
from agentlab.loop import run_agent
from agentlab.sim.policy import FunctionModel
from agentlab.tools import Tool, tool
from agentlab.views.i18n import localize

TASK = "Add the note 'Paris is warmer than London' and tell me how many notes I have now."


def note_tools(
    notes: list[str],
    declared: bool = True,
    write_delay: Callable[[], None] = lambda: time.sleep(0.05),
    after_read: Callable[[], None] = lambda: None,
) -> list[Tool]:
    """``add_note`` and ``count_notes`` over the shared list ``notes``.

    ``declared`` adds the ``writes``/``reads`` declarations. ``write_delay`` runs before the write
    (the writer is the slower tool: a disk or a remote service); ``after_read`` runs after a read.
    """
    state = {"writes": ("notes",)} if declared else {}

    @tool(name="add_note", **state)
    def add_note(text: str) -> str:
        """Add a note to the user's notes.

        Args:
            text: The note.
        """
        write_delay()
        notes.append(text)
        return "Note added."

    @tool(name="count_notes", **({"reads": ("notes",)} if declared else {}))
    def count_notes() -> dict:
        """How many notes the user has."""
        count = len(notes)
        after_read()
        return {"notes": count}

    return [add_note, count_notes]


def _model(messages: list[dict], info: dict):
    """Asks for both tools in one turn, then reports the count it was given (and only that number)."""
    if len(messages) == 1:
        return [
            {"type": "tool_use", "name": "add_note", "input": {"text": "Paris is warmer than London"}},
            {"type": "tool_use", "name": "count_notes", "input": {}},
        ]
    results = [b for b in messages[-1]["content"] if b.get("type") == "tool_result"]
    count = next((json.loads(r["content"])["notes"] for r in results if re.match(r'\{"notes"', r["content"])), None)
    return f"Done: the note is saved, and you now have {count} notes."


def run_demo(executor: Executor, tools: list[Tool]):
    """The task with ``tools`` run by ``executor``; returns the ``Run``."""
    client = connect("sim", policy=FunctionModel(_model), quiet=True)
    return run_agent(client, TASK, tools, executor=executor)


def reported_count(run) -> int | None:
    """The count the model told the user."""
    m = re.search(r"you now have (\d+) notes", run.final_text)
    return int(m.group(1)) if m else None


def naive_vs_declared() -> list[dict]:
    """The demo twice, starting from one stored note: naive parallel, then parallel with declared state.

    In the naive run the writer is made slower than the reader (it waits until the read is done),
    which is what a slow disk or service does by chance; here it happens every time, so the run repeats.
    """
    import threading

    rows = []
    for label, declared in (("naive parallel", False), ("declared reads/writes", True)):
        notes = ["an older note"]
        read = threading.Event()
        delay = (lambda: None) if declared else (lambda: read.wait(5))
        run = run_demo(
            Executor(parallel=True, respect_state=declared),
            note_tools(notes, declared=declared, write_delay=delay, after_read=read.set),
        )
        rows.append(
            {
                "executor": label,
                "count told to the user": reported_count(run),
                "notes stored": len(notes),
                "errors": sum(r["is_error"] for r in run.tool_results),
                "answer": run.final_text,
            }
        )
    return rows


def plot_coupling(rows: list[dict]):
    """Per executor: the count the user was told beside the notes actually stored."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.4), constrained_layout=True)
    x = range(len(rows))
    for off, key, color in ((-0.2, "count told to the user", "#D55E00"), (0.2, "notes stored", "#009E73")):
        bars = ax.bar([i + off for i in x], [r[key] for r in rows], width=0.4, color=color, label=key)
        ax.bar_label(bars, fontsize=8)
    ax.set_xticks(list(x), [r["executor"] for r in rows])
    ax.set_ylabel("notes (count)")
    ax.set_ylim(top=1.6 * max([1] + [r[k] for r in rows for k in ("count told to the user", "notes stored")]))
    ax.legend(fontsize=8, loc="upper center", ncol=2)  # above the bars and their labels
    return localize(fig)
