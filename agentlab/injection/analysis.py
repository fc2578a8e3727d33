"""Static analysis of the suite: what each defence decides, computed without running any model.

Two questions have exact answers from the suite's declarations alone:

- **Reachable with this tool list?** An attack goal needs certain tools (``InjectionTask.needs``).
  If one of them is not offered, no model, however gullible, can reach the goal: the harness
  cannot run a tool that is not in the list. ``reachable_share`` is the exact share of cases
  (user task x injection task) whose goal stays reachable under a tool-list policy.
- **Does the goal need tainted arguments?** If one of the calls that reach the goal
  (``InjectionTask.goal_calls``) has a string argument sharing ``min_chars`` or more characters with
  the attacker's planted text, a data-flow guard that treats that text as untrusted refuses it.
  Goals reached with trusted data only (the user's key) or with no arguments are out of its reach.

The runs of the gullible model (``metrics.py``) must agree with both; the tests check that they do.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from agentlab.injection.guard import DEFAULT_MIN_CHARS, carries_taint
from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS, InjectionTask, UserTask
from agentlab.injection.world import ALL_TOOLS


def reachable(injection: InjectionTask, offered: tuple[str, ...] | list[str]) -> bool:
    """True when every tool the goal needs is in ``offered``."""
    return set(injection.needs) <= set(offered)


def reachable_share(tools_for: Callable[[UserTask], tuple[str, ...]] = lambda u: ALL_TOOLS) -> Fraction:
    """The exact share of cases whose goal is reachable when ``tools_for(user_task)`` is offered."""
    cases = [(u, i) for u in USER_TASKS for i in INJECTION_TASKS]
    return Fraction(sum(reachable(i, tools_for(u)) for u, i in cases), len(cases))


def reachability_table() -> list[dict]:
    """Per user task: the least-privilege tools and which goals they still reach (one row each)."""
    rows = []
    for u in USER_TASKS:
        hit = [i.id for i in INJECTION_TASKS if reachable(i, u.needs)]
        rows.append(
            {
                "user task": u.id,
                "tools offered": ", ".join(u.needs),
                "goals reachable": ", ".join(hit) or "none",
                "reachable": f"{len(hit)}/{len(INJECTION_TASKS)}",
            }
        )
    return rows


def needs_tainted_args(injection: InjectionTask, min_chars: int = DEFAULT_MIN_CHARS) -> bool:
    """True when a call that reaches the goal carries ``min_chars``+ characters of the planted text."""
    planted = [("planted text", injection.text())]
    return any(carries_taint(inp, planted, min_chars) is not None for _, inp in injection.goal_calls)


def guard_reach(min_chars: int = DEFAULT_MIN_CHARS) -> dict[str, bool]:
    """For each injection task: does the data-flow guard stand between the model and the goal?"""
    return {i.id: needs_tainted_args(i, min_chars) for i in INJECTION_TASKS}
