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

from ..client import connect
from ..executor import Executor
from ..loop import run_agent
from ..sim.policy import FunctionModel
from ..tools import Tool, tool

TASK = "Add the note 'Paris is warmer than London' and tell me how many notes I have now."


def note_tools(notes: list[str], declared: bool = True, write_delay: Callable[[], None] = lambda: time.sleep(0.05),
               after_read: Callable[[], None] = lambda: None) -> list[Tool]:
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
        return [{"type": "tool_use", "name": "add_note", "input": {"text": "Paris is warmer than London"}},
                {"type": "tool_use", "name": "count_notes", "input": {}}]
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
