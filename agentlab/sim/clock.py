"""A clock for simulated time: cache lifetimes and latency pass without anything sleeping."""

from __future__ import annotations


class SimClock:
    """A clock that only moves when told: ``clock()`` gives seconds, ``clock.advance(s)`` moves it."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)
        """Current time in seconds."""

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (>= 0)."""
        if seconds < 0:
            raise ValueError(f"SimClock.advance: seconds must be >= 0, got {seconds}")
        self.now += seconds
