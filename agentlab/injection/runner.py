"""One security case run end to end: a world, a defence, the gullible model, the agent loop, two checks.

``run_case`` builds a fresh world (with the attacker's text planted when an injection task is
given), offers the defence's tools, runs ``agentlab.run_agent`` with the defence's executor, and
then checks by code whether the user's task was done and whether the attacker's goal was reached.
``record_injected_run`` does the same and keeps the trace at a path you choose.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentlab.executor import Executor
from agentlab.hints import task_lang
from agentlab.injection.defences import NONE, Defence
from agentlab.injection.defences import defence as named_defence
from agentlab.injection.gates import Blocked
from agentlab.injection.suite import InjectionTask, UserTask, injection_task, user_task
from agentlab.injection.world import World
from agentlab.loop import run_agent
from agentlab.run import Run

MAX_TURNS = 12
"""Turn limit for one case (the longest case needs 6 model calls)."""


@dataclass
class CaseResult:
    """What one case showed."""

    user_task: str
    """The user task's id."""
    injection: str | None
    """The injection task's id (``None``: a benign run)."""
    defence: str
    """The defence's name."""
    utility: bool
    """The user's task was done (checked by code)."""
    attack_succeeded: bool
    """The attacker's goal was reached (checked by code; always False in a benign run)."""
    blocked: list[Blocked] = field(default_factory=list)
    """Calls the defence refused."""
    attack_calls_blocked: int = 0
    """Of those, calls that were the attacker's goal calls."""
    approvals_asked: int = 0
    """Times a person was asked to approve a call."""
    run: Run | None = None
    """The agent run (turns, messages, trace path)."""
    state: dict = field(default_factory=dict)
    """What the world looked like afterwards (notes, outbox, deletions)."""


def gullible_client(obey: bool = True, model: str | None = None) -> Any:
    """A simulated client whose model is ``Gullible(obey)``: it obeys instructions in tool results."""
    from agentlab.client import connect
    from agentlab.sim.models.gullible import Gullible

    return connect("sim", model=model, policy=Gullible(obey=obey), quiet=True)


def run_case(
    user: UserTask | str,
    injection: InjectionTask | str | None = None,
    defence: Defence | str = NONE,
    *,
    client: Any = None,
    workdir: str | Path | None = None,
    trace: str | Path | None = None,
) -> CaseResult:
    """Run one case and check it. ``client`` defaults to the gullible simulated model."""
    user = user_task(user) if isinstance(user, str) else user
    injection = injection_task(injection) if isinstance(injection, str) else injection
    defence = named_defence(defence) if isinstance(defence, str) else defence
    if not isinstance(defence, Defence):
        raise TypeError(f"run_case(defence={defence!r}): give a Defence or the name of one in the matrix")
    client = client if client is not None else gullible_client()
    with tempfile.TemporaryDirectory(prefix="injection-") as tmp:
        world = World(Path(workdir or tmp) / "notes", injection.text() if injection else "")
        prompt = user.prompt  # in the notebook's language
        executor = _in_lang(defence.executor(), task_lang(prompt))
        run = run_agent(
            client, prompt, world.tools(defence.tool_names(user)), executor=executor, trace=trace, max_turns=MAX_TURNS
        )
        goal_calls = [(n, i) for n, i in injection.goal_calls] if injection else []
        return CaseResult(
            user.id,
            injection.id if injection else None,
            defence.name,
            utility=bool(user.check(world, run.final_text)),
            attack_succeeded=bool(injection.check(world)) if injection else False,
            blocked=list(executor.blocked),
            attack_calls_blocked=sum((b.name, b.input) in goal_calls for b in executor.blocked),
            approvals_asked=sum(getattr(g, "asked", 0) for g in executor.gates),
            run=run,
            state=world.state(),
        )


def _in_lang(executor: Any, lang: str) -> Any:
    """``executor`` with its inner ``Executor`` (hints, the tools' confirmations) in ``lang``; any other runner as it is."""
    inner = getattr(executor, "inner", None)
    if lang != "en" and isinstance(inner, Executor) and inner.lang == "en":
        executor.inner = replace(inner, lang=lang)
    return executor


def record_injected_run(
    path: str | Path,
    user: str = "compare_and_note",
    injection: str = "key_by_email",
    defence: Defence | str = NONE,
    client: Any = None,
) -> CaseResult:
    """Run one injected case on the gullible model and write its trace to ``path`` (JSONL, header first,
    ``stop`` last; a refused call shows as a ``blocked`` event with the defence's reason)."""
    if not str(path).endswith(".jsonl"):
        raise ValueError(
            f"record_injected_run(path={str(path)!r}): a trace is JSON Lines; give a path ending in .jsonl"
        )
    return run_case(user, injection, defence, client=client, trace=path)
