"""Who decides "done": deterministic guards the *harness* checks, whatever the model wants.

The model only decides whether to ask for another tool. The harness ends the task. ``Limits`` holds
the limits; ``limits.start()`` gives a ``Budget`` that counts one run. Any code path calls
``budget.check()`` before each model call (the agent loop does, and a workflow can too), feeds it
what happened with ``after_call`` and ``after_tools``, and stops when ``check`` returns a ``Stopped``.

Guards, checked in this order (when two trip at the same check, the first one listed is reported),
and how far each can overshoot its limit:

- ``max_turns``: model calls. Checked before a call, so never more than ``max_turns`` calls.
- ``max_wall_s``: seconds on ``clock`` since ``start()``. Checked before a call: a call that starts
  just under the limit runs to its end, so the overshoot is at most one turn (a call and its tools).
- ``max_repeats``: the same tool with the same canonical arguments (JSON, keys sorted) requested
  ``k`` times. The k-th request is run and answered; no model call follows it. Overshoot: none.
- ``max_idle_turns``: no progress. A turn *makes progress* when it brings at least one successful
  (not ``is_error``) tool result whose text was not seen earlier in the run. Text the model writes
  does not count (it is free to write), nor do errors. After ``k`` turns in a row without progress
  no model call follows. A turn that asks for no tool ends the run anyway. Overshoot: none.
- ``max_tokens``: input + output tokens (cache reads and writes included) summed over calls.
- ``max_usd``: price of the calls so far (genai-prices). Checked *before* each call too, against the
  call's predicted upper bound (its input estimate plus ``max_tokens`` at the output price,
  ``agentlab.live.spend.upper_bound_usd``): ``before_call`` stops the run before the call that could
  cross the budget, so the spend never passes it. A model with no known price is refused (ValueError)
  before its first call. The token budget is known only *after* a call, so ``check`` runs again then:
  the call that crosses it is the last one, and the tools it asked for are not run.

Not a guard: a *task budget* (``TaskBudget``, ``run_agent(..., task_budget=...)``) sends
``output_config.task_budget`` and its beta header with every request. The model sees it as a countdown
and may wrap up sooner; nothing stops the run at it. ``max_tokens`` here is the opposite: the model never
sees it, and the run stops when it is crossed. Source (read 2026-12-03):
https://platform.claude.com/docs/en/build-with-claude/task-budgets; the simulator's rules: ``sim/budgets.py``.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from agentlab.api.request import TASK_BUDGET_BETA as BETA
from agentlab.api.request import TASK_BUDGET_MIN as MIN_TOTAL
from agentlab.meter.usage import Usage
from agentlab.run import StopReason
from agentlab.views.i18n import tr

GUARDS = (
    ("max_turns", StopReason.MAX_TURNS),
    ("max_wall_s", StopReason.MAX_WALL_TIME),
    ("max_repeats", StopReason.REPEATED_CALL),
    ("max_idle_turns", StopReason.NO_PROGRESS),
    ("max_tokens", StopReason.TOKEN_BUDGET),
    ("max_usd", StopReason.USD_BUDGET),
)
"""Each guard as ``(Limits field, StopReason it stops with)``, in the order they are checked."""
_WHOLE = {"max_turns", "max_repeats", "max_idle_turns", "max_tokens"}


@dataclass(frozen=True)
class Stopped:
    """A guard ended the run: which one, what it saw, and its limit."""

    reason: StopReason
    """The typed stop reason (e.g. ``StopReason.REPEATED_CALL``)."""
    guard: str
    """The ``Limits`` field that tripped, e.g. ``"max_repeats"``."""
    observed: Any
    """The value the guard saw (turns, seconds, repeats, idle turns, tokens, USD)."""
    limit: Any
    """The limit it was compared with."""
    detail: str = ""
    """More context, e.g. the repeated call."""

    def fields(self) -> dict:
        """What the trace's ``stop`` event records about the guard."""
        out = {"guard": self.guard, "observed": self.observed, "limit": self.limit}
        return {**out, "detail": self.detail} if self.detail else out


@dataclass(frozen=True)
class Limits:
    """The limits of one run; ``None`` switches a guard off (except ``max_turns``: every loop is bounded)."""

    max_turns: int = 10
    """Most model calls."""
    max_wall_s: float | None = None
    """Most seconds (on ``clock``) before the next model call may start."""
    max_repeats: int | None = None
    """Stop once one tool has been asked for this many times with the same canonical arguments."""
    max_idle_turns: int | None = None
    """Stop after this many turns in a row that make no progress (see the module docstring)."""
    max_tokens: int | None = None
    """Token budget: input + output tokens over all calls."""
    max_usd: float | None = None
    """USD budget over all calls (a model without a known price is refused when this is set)."""
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    """Seconds as a float; inject a fake clock in tests so nothing sleeps."""

    def __post_init__(self) -> None:
        for name, _ in GUARDS:
            value = getattr(self, name)
            if value is None and name != "max_turns":
                continue
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if name in _WHOLE and not (number and float(value).is_integer()):
                raise ValueError(
                    f"Limits({name}={value!r}): {name} must be a whole number >= 1"
                    f"{'' if name == 'max_turns' else ', or None to switch it off'}"
                )
            if not number or math.isnan(value) or value <= 0 or math.isinf(value):
                raise ValueError(
                    f"Limits({name}={value!r}): {name} must be a positive finite number"
                    f"{'' if name == 'max_turns' else ', or None to switch it off'}"
                )
        if not callable(self.clock):
            raise ValueError(f"Limits(clock={self.clock!r}): clock must be a function returning seconds")

    def start(self) -> "Budget":
        """A fresh count for one run; the wall clock starts now."""
        return Budget(self)


def stopped_by(refused: Any) -> Stopped:
    """The session cap's refusal (``agentlab.live.spend.SpendRefused``) as a run's typed stop."""
    return Stopped(StopReason.USD_BUDGET, "session max_usd", refused.observed, refused.limit, str(refused))


def canonical_call(name: str, tool_input: Any) -> str:
    """One string per distinct call: the tool name and its input as JSON with sorted keys."""
    return name + " " + json.dumps(tool_input, sort_keys=True, ensure_ascii=False, default=str)


class Budget:
    """What one run has used so far, checked against its ``Limits``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.started = limits.clock()
        self.turns = 0
        """Model calls made."""
        self.tokens = 0
        """Input + output tokens over the calls made."""
        self.usd = 0.0
        """USD spent over the calls made."""
        self.calls: Counter[str] = Counter()
        """How often each canonical call was requested."""
        self.idle = 0
        """Turns in a row without progress."""
        self._seen: set[str] = set()
        self._bound: float | None = None  # the upper bound of the call in flight (USD)

    def elapsed(self) -> float:
        """Seconds on the clock since ``start()``."""
        return self.limits.clock() - self.started

    def observed(self) -> dict[str, Any]:
        """Each guard's current value, keyed by its ``Limits`` field."""
        top = self.calls.most_common(1)
        return {
            "max_turns": self.turns,
            "max_wall_s": round(self.elapsed(), 6),
            "max_repeats": top[0][1] if top else 0,
            "max_idle_turns": self.idle,
            "max_tokens": self.tokens,
            "max_usd": round(self.usd, 9),
        }

    def check(self, after_call: bool = False) -> Stopped | None:
        """The first guard that says stop, or ``None``. ``after_call=True`` checks only the budgets."""
        seen = None  # each guard's value, read once and only when a guard is on (twice a turn, every turn)
        for name, reason in GUARDS:
            limit = getattr(self.limits, name)
            if limit is None or (after_call and name not in ("max_tokens", "max_usd")):
                continue
            if name == "max_turns":  # the one guard always on: no need for the others' values
                value = self.turns
            else:
                seen = seen or self.observed()
                value = seen[name]
            over = value > limit if name in ("max_tokens", "max_usd") else value >= limit
            if over:
                detail = self.calls.most_common(1)[0][0] if name == "max_repeats" else ""
                return Stopped(reason, name, value, limit, detail)
        return None

    def before_call(self, request: dict) -> Stopped | None:
        """With ``max_usd``: stop before a call (a Messages API request body) whose predicted upper bound
        would take the spend past the budget. A model with no known price raises ValueError, before paying."""
        if self.limits.max_usd is None:
            return None
        from agentlab.live.spend import upper_bound_usd

        bound = upper_bound_usd(request)
        if bound is None:
            raise ValueError(
                f"Limits(max_usd={self.limits.max_usd}): the model {request.get('model')!r} has no known "
                "price, so a USD budget cannot be kept; no call was made. Use max_tokens instead, "
                "or a priced model (`agentlab models`)"
            )
        self._bound = bound
        if self.usd + bound > self.limits.max_usd:
            return Stopped(
                StopReason.USD_BUDGET,
                "max_usd",
                round(self.usd, 9),
                self.limits.max_usd,
                tr(
                    f"the next call could cost up to ${bound:.6f} (input estimate + max_tokens at the "
                    "output price), so it was not sent"
                ),
            )  # the notebook's language (zh-CN: Chinese)
        return None

    def after_call(self, content: list[dict], usage: dict | Usage, model: str) -> None:
        """Count one model call: its tokens (the API's ``usage`` JSON or a ``Usage``), its price, and the
        tool calls it asked for."""
        tokens = usage if isinstance(usage, Usage) else Usage.from_api(usage)
        self.turns += 1
        self.tokens += tokens.prompt_total + tokens.output_tokens
        if self.limits.max_usd is not None:
            from agentlab.meter.prices import cost_usd

            price = cost_usd(model, tokens)
            if price is None and self._bound is None:  # never priced before the call: cannot keep the budget
                raise ValueError(
                    f"Limits(max_usd={self.limits.max_usd}): the model {model!r} has no known price, "
                    "so a USD budget cannot be kept; use max_tokens instead"
                )
            self.usd += self._bound if price is None else price  # a reply naming an unpriced id: its bound
            self._bound = None
        for b in content:
            if b.get("type") == "tool_use":
                self.calls[canonical_call(b["name"], b.get("input"))] += 1

    def after_tools(self, results: list[dict]) -> None:
        """Count one turn's tool results toward progress (new, successful results)."""
        fresh = False
        for r in results:
            text = r.get("content") if isinstance(r.get("content"), str) else json.dumps(r.get("content"))
            if not r.get("is_error") and text not in self._seen:
                self._seen.add(text)
                fresh = True
        self.idle = 0 if fresh else self.idle + 1


@dataclass(frozen=True)
class TaskBudget:
    """The ``output_config.task_budget`` every request of a run carries."""

    total: int
    """Tokens for the whole loop (thinking, tool calls, tool results, output); at least 20,000."""
    remaining: int | None = None
    """What is left of ``total`` when this run starts (a budget carried over from earlier work); ``None``: all of it."""

    def __post_init__(self) -> None:
        if isinstance(self.total, bool) or not isinstance(self.total, int) or self.total < MIN_TOTAL:
            raise ValueError(
                f"TaskBudget(total={self.total!r}): total must be a whole number of tokens >= {MIN_TOTAL} "
                "(the API's minimum), e.g. TaskBudget(64_000)"
            )
        if self.remaining is not None and (
            isinstance(self.remaining, bool)
            or not isinstance(self.remaining, int)
            or not 0 <= self.remaining <= self.total
        ):
            raise ValueError(
                f"TaskBudget(remaining={self.remaining!r}): remaining must be a whole number from 0 to "
                f"total ({self.total}), or None for all of it"
            )

    def field(self) -> dict:
        """The ``task_budget`` object as the API takes it."""
        out = {"type": "tokens", "total": self.total}
        return out if self.remaining is None else {**out, "remaining": self.remaining}


def as_task_budget(value: object) -> TaskBudget | None:
    """``run_agent``'s ``task_budget=``: a :class:`TaskBudget`, a whole number (its ``total``) or ``None``."""
    if value is None or isinstance(value, TaskBudget):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return TaskBudget(value)
    raise ValueError(
        f"run_agent(task_budget={value!r}): give the budget in tokens, e.g. task_budget=64_000, "
        "or a TaskBudget(total, remaining)"
    )


def with_task_budget(request: dict, budget: TaskBudget) -> dict:
    """``request`` with the budget in ``output_config`` and the beta added to any ``anthropic-beta`` it already has."""
    headers = dict(request.get("extra_headers") or {})
    betas = [v.strip() for v in headers.get("anthropic-beta", "").split(",") if v.strip()]
    headers["anthropic-beta"] = ",".join(betas + [BETA] if BETA not in betas else betas)
    config = {**(request.get("output_config") or {}), "task_budget": budget.field()}
    return {**request, "output_config": config, "extra_headers": headers}
