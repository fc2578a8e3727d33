"""Parallelization: independent model calls at the same time, in threads on the same client.

Sectioning: split a task into parts that do not depend on each other, run them at once, join the
parts in code. Voting: ask the same question several times (here: with different reviewer prompts)
and take the majority. Either way the wall time is about the slowest call, not the sum (measure it:
``benchmarks/parallel_speedup.py``). A call that fails or times out is recorded; the others are kept.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

from agentlab.run import Run, StopReason
from agentlab.workflows.step import Steps, check_bound, guarded

MAX_WORKERS = 16
"""Most threads a parallel pattern may use."""


def check_pool(n: int, max_workers: int, worker_timeout: float, what: str) -> None:
    """Refuse (ValueError naming the field) a job count, worker count or worker timeout out of bounds."""
    check_bound(what, n, 1, 64)
    check_bound("max_workers", max_workers, 1, MAX_WORKERS)
    check_bound("worker_timeout", worker_timeout, 0.001, 3600, whole=False)


@guarded
def run_sections(
    client: Any,
    sections: dict[str, str],
    *,
    system: str | None = None,
    combine: Callable[[dict[str, str]], str] = lambda parts: "\n".join(parts.values()),
    max_workers: int = 4,
    worker_timeout: float = 60.0,
    model: str | None = None,
    max_tokens: int = 512,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Run one model call per section concurrently; ``combine`` (code) joins the parts that succeeded."""
    check_pool(len(sections), max_workers, worker_timeout, "len(sections)")
    with Steps(
        client, "sectioning", limits=limits, model=model, trace=trace, max_tokens=max_tokens, sections=list(sections)
    ) as wf:
        paths = {name: f"sectioning/section[{name}]" for name in sections}
        jobs = [(paths[n], lambda n=n: wf.ask(paths[n], sections[n], system=system)) for n in sections]
        out = wf.concurrently(jobs, max_workers=max_workers, timeout=worker_timeout)
        parts = {n: out[paths[n]].output for n in sections if out[paths[n]].status == "ok"}
        failed = [n for n in sections if n not in parts]
        text = combine(parts) if parts else ""
        if failed:
            return wf.finish(
                StopReason.WORKER_FAILED,
                text,
                f"sections {failed} failed or timed out; {len(parts)} of {len(sections)} kept",
            )
        return wf.finish(StopReason.COMPLETED, text, f"{len(parts)} sections joined")


def vote_schema(choices: list[str]) -> dict:
    """A voter's output schema: one of ``choices``."""
    return {
        "type": "object",
        "properties": {"vote": {"type": "string", "enum": list(choices)}},
        "required": ["vote"],
        "additionalProperties": False,
    }


@guarded
def run_vote(
    client: Any,
    question: str,
    choices: list[str],
    *,
    voters: list[str],
    max_workers: int = 4,
    worker_timeout: float = 60.0,
    model: str | None = None,
    max_tokens: int = 256,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Ask ``question`` once per voter system prompt, concurrently; the majority choice wins.

    A tie goes to the tied choice listed first in ``choices`` (a rule fixed in code), and the run says so.
    """
    check_pool(len(voters), max_workers, worker_timeout, "len(voters)")
    check_bound("len(choices)", len(choices), 2, 64)
    with Steps(client, "voting", limits=limits, model=model, trace=trace, max_tokens=max_tokens, choices=choices) as wf:
        paths = [f"voting/voter[{i}]" for i in range(1, len(voters) + 1)]
        jobs = [
            (p, lambda p=p, s=s: wf.ask(p, question, system=s, schema=vote_schema(choices))["vote"])
            for p, s in zip(paths, voters)
        ]
        out = wf.concurrently(jobs, max_workers=max_workers, timeout=worker_timeout)
        votes = [out[p].output for p in paths if out[p].status == "ok"]
        if not votes:
            return wf.finish(StopReason.WORKER_FAILED, "", "every voter failed or timed out; no majority")
        tally = Counter(votes)
        top = max(tally.values())
        tied = [c for c in choices if tally.get(c) == top]
        winner = tied[0]
        detail = f"votes {dict(tally)}; {winner!r} wins" + (
            f" (tie among {tied}: first listed wins)" if len(tied) > 1 else ""
        )
        if len(votes) < len(voters):
            return wf.finish(StopReason.WORKER_FAILED, winner, f"{len(voters) - len(votes)} voter(s) failed; " + detail)
        return wf.finish(StopReason.COMPLETED, winner, detail)
