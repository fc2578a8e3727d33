"""A clock for simulated time: cache lifetimes, thread lifetimes, latency and the calendar pass without anything sleeping.

The calendar decides which models are retired (``profiles.Profile.retired_on``). A :class:`SimClock`
carries its own day: the day it started on (by default the day the profile table was read) plus the
seconds it has been moved on, so a test or a replay can put the simulator on any date. Any other clock
(the simulator's default, ``time.monotonic``) has no calendar, and the day is the machine's UTC date.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from functools import lru_cache
from importlib import resources


class SimClock:
    """A clock that only moves when told: ``clock()`` gives seconds, ``clock.advance(s)`` moves it."""

    def __init__(self, start: float = 0.0, *, day: str | date | None = None) -> None:
        self.now = float(start)
        """Current time in seconds."""
        self.start_day: date = _as_day(day) if day is not None else table_day()
        """The calendar day (UTC) at ``now == 0``; by default the day the profile table was read."""

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (>= 0)."""
        if seconds < 0:
            raise ValueError(f"SimClock.advance: seconds must be >= 0, got {seconds}")
        self.now += seconds

    def today(self) -> date:
        """The simulated calendar day: the start day plus the whole days ``now`` has run."""
        return self.start_day + timedelta(seconds=self.now)


def _as_day(day: str | date) -> date:
    if isinstance(day, date):
        return day
    try:
        return date.fromisoformat(day)
    except (TypeError, ValueError):
        raise ValueError(
            f"SimClock(day={day!r}): give the day as an ISO date such as '2026-11-30' or a datetime.date"
        ) from None


@lru_cache(maxsize=1)
def table_day() -> date:
    """The day the profile table (``data/profiles.json``, its ``read`` field) was read: where a SimClock starts by default."""
    data = json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))
    return date.fromisoformat(data["read"])
