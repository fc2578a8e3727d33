"""Notebook 13's silent cache miss: a time in the system prompt, and the API's cache diagnostics saying so.

Notebook 13's long run (one city a turn) with a system prompt, three ways: uncached; cached with a fixed prompt;
cached with a prompt that also gives the time, which moves on between calls, as an assistant's "current time"
line does. Every request asks for cache diagnostics (``diagnostics.previous_message_id``: the previous reply's
id), so each reply says whether, and where, its request left the previous one's prefix
(https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agentlab.experiments.turn_costs import city_run
from agentlab.run import Run
from agentlab.tools import ONE_PER_TURN
from agentlab.trace import read_trace
from agentlab.views.i18n import SHOWN_IN_LANGUAGE

SYSTEM = "Answer briefly."
"""The system prompt every run sends (the stamped one adds the time)."""
START = datetime(2026, 12, 7, 9, 0, 0)
"""The clock the stamped prompt reads: it starts here and moves on ``STEP`` each call (fixed, so reruns match)."""
STEP = timedelta(seconds=7)


@dataclass
class AskWhyMissed:
    """A context strategy (``run_agent(..., context=...)``) that asks, on every call, why the cache missed:
    ``diagnostics.previous_message_id`` is the last reply's id (``None`` on the first call, to opt in).
    ``stamped``: the system prompt also gives the time, a new one each call."""

    stamped: bool = False
    """Put the time into the system prompt."""
    previous: str | None = None
    """The id of the last reply (the one the next request is compared with)."""

    def before_call(self, client: Any, model: str, messages: list[dict], tr: Any, turn: int) -> tuple[list, dict]:
        system = f"{SYSTEM} The time is {START + turn * STEP:%H:%M:%S}." if self.stamped else SYSTEM
        return messages, {"system": system, "diagnostics": {"previous_message_id": self.previous}}

    def after_call(self, reply: Any, tr: Any, turn: int) -> None:
        self.previous = reply.id


def miss_runs(n_cities: int, model: str, notes_dir: str | Path) -> dict[str, Run]:
    """The city task with ``n_cities`` on ``model`` and ``SYSTEM``, three times on fresh simulators:
    ``{"uncached": ..., "fixed": ..., "stamped": ...}``; the last two cached and asking why each call missed.
    Traces in ``notes_dir/<label>.jsonl``."""
    return {
        label: city_run(
            n_cities,
            model,
            notes_dir,
            label,
            cache=label != "uncached",
            context=AskWhyMissed(stamped=label == "stamped"),
            tool_choice=ONE_PER_TURN,
        )
        for label in ("uncached", "fixed", "stamped")
    }


def reasons(run: Run) -> list[tuple[str | None, int | None]]:
    """Per turn, from the run's trace: the ``cache_miss_reason`` type the reply gave and its missed tokens
    (``(None, None)``: nothing diverged, or the first call, which has nothing to compare with)."""
    out = []
    for e in read_trace(run.trace_path):
        if e.get("event") == "response":
            why = (e.get("diagnostics") or {}).get("cache_miss_reason") or {}
            out.append((why.get("type"), why.get("cache_missed_input_tokens")))
    return out


def miss_table(runs: dict[str, Run]) -> Any:
    """Per turn, the two cached runs side by side: what each read from the cache, and what its diagnostics said
    (``null``: nothing diverged, or the first call, which has nothing to compare with)."""
    import pandas as pd

    rows = []
    for i, (a, b, (why_a, _), (why_b, missed)) in enumerate(
        zip(runs["fixed"].turns, runs["stamped"].turns, reasons(runs["fixed"]), reasons(runs["stamped"])), 1
    ):
        rows.append(
            {
                "turn": i,
                "fixed: cache read": a.cache_read_tokens,
                "fixed: cache miss reason": why_a or "null",
                "stamped: cache read": b.cache_read_tokens,
                "stamped: cache write": b.cache_write_tokens,
                "stamped: cache miss reason": why_b or "null",
                "stamped: missed tokens": missed if missed is not None else "-",
            }
        )
    table = pd.DataFrame(rows)
    table.attrs[SHOWN_IN_LANGUAGE] = True
    return table


def cost_line(runs: dict[str, Run]) -> str:
    """The three runs' costs in one line, each cached run also as a percent of the uncached one."""
    base = runs["uncached"].cost_usd or 0.0
    parts = [f"uncached ${base:.4f}"]
    parts += [f"{k} ${runs[k].cost_usd:.4f} ({runs[k].cost_usd / base:.0%})" for k in ("fixed", "stamped")]  # type: ignore[operator]
    return ", ".join(parts)
