"""Confirmation before side effects: a person approves (or not) every call that changes the world.

The gate asks ``approver(block)`` before each call to a tool in ``side_effects`` (reads pass
without asking). What a person *would* approve cannot be simulated honestly, so the approver here is
blunt on purpose: ``SeededApprover(rate)`` approves a fixed share of the calls it is shown, whatever
they are, as a tired person clicking "yes" does. Sweeping ``rate`` from 0 to 1 shows the trade:
every refusal that stops an attack can stop a benign note too, and every question costs the user
a decision (``Confirmation.asked`` counts them).

The draw is a hash of ``(seed, tool, input)``: the same call gets the same answer at every rate,
and a call approved at one rate is approved at every higher rate. So attack success cannot fall as
the rate rises (the sweep is monotone by construction, and a test checks it on the suite).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable

from agentlab.injection.world import SIDE_EFFECTS


@dataclass(frozen=True)
class SeededApprover:
    """Approves a share ``rate`` of the calls it is shown, decided by a seeded hash of each call."""

    rate: float
    """Share of calls approved, from 0 (never) to 1 (always)."""
    seed: int = 0
    """Changes which calls fall in the approved share."""

    def __post_init__(self) -> None:
        if isinstance(self.rate, bool) or not isinstance(self.rate, (int, float)) or not 0 <= self.rate <= 1:
            raise ValueError(
                f"SeededApprover(rate={self.rate!r}): rate is the share of calls approved, "
                "a number from 0 to 1 (e.g. 0.5)"
            )
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ValueError(f"SeededApprover(seed={self.seed!r}): seed must be a whole number")

    def draw(self, block: dict) -> float:
        """A number in [0, 1) fixed by the seed and the call (tool and input)."""
        key = json.dumps([self.seed, block.get("name"), block.get("input")], sort_keys=True, ensure_ascii=False)
        return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") / 2**64

    def __call__(self, block: dict) -> bool:
        return self.draw(block) < self.rate


@dataclass
class Confirmation:
    """A gate (see ``gates.py``): calls to side-effecting tools run only if ``approver`` says yes."""

    approver: Callable[[dict], bool]
    """``approver(tool_use block) -> bool``: a person's answer (here, usually a ``SeededApprover``)."""
    side_effects: frozenset[str] = SIDE_EFFECTS
    """Tools that need approval."""
    name: str = "confirmation"
    """The defence's name in traces and reports."""
    asked: int = 0
    """How many approvals were asked for in this run."""
    refused: list[str] = field(default_factory=list)
    """Names of the calls the approver refused."""

    def __post_init__(self) -> None:
        if not callable(self.approver):
            raise TypeError(
                f"Confirmation(approver={self.approver!r}): give a function block -> bool, e.g. SeededApprover(0.5)"
            )
        self.side_effects = frozenset(self.side_effects)

    def check(self, block: dict) -> str | None:
        if block.get("name") not in self.side_effects:
            return None
        self.asked += 1
        if self.approver(block):
            return None
        self.refused.append(block["name"])
        return f"the user did not approve {block['name']} (it changes the world, so it needs approval)"

    def observe(self, block: dict, result: dict) -> None:
        return None
