"""The standard metrics of an attack suite, and the injection matrix.

For one defence, over the suite's cases:

- **benign utility**: share of user tasks done, with no attack planted;
- **utility under attack**: share of (user task, injection task) cases whose user task was still done;
- **attack success rate (ASR)**: share of those cases where the attacker's goal was reached.

Plus what the defence cost and did: benign calls it refused (utility it took away), attacker goal
calls it refused, and approvals it asked a person for. Everything is counted from runs of the
gullible model (``agentlab.sim.models.gullible``): the worst case, a model that obeys every injected
instruction. So the ASR here is an upper bound for what the *harness* lets through, not an estimate
of what a real model would do.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable

from agentlab.injection.defences import MATRIX_DEFENCES, Defence
from agentlab.injection.runner import CaseResult, gullible_client, run_case
from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

APPROVAL_RATES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The approval rates the default sweep visits."""
SEEDS = (0, 1, 2)
"""The approver's seeds a confirmation defence is averaged over, in the matrix and in the sweep alike."""


@dataclass(frozen=True)
class Metrics:
    """One defence's row of the matrix."""

    benign_utility: float
    """Share of user tasks done with no attack (0 to 1)."""
    utility_under_attack: float
    """Share of attacked cases whose user task was still done (0 to 1)."""
    asr: float
    """Attack success rate: share of attacked cases where the attacker's goal was reached (0 to 1)."""
    benign_runs: int
    """User tasks run without an attack."""
    attacked_runs: int
    """Cases run with an attack."""
    benign_calls_blocked: int
    """Calls the defence refused in the benign runs (each one a cost in utility)."""
    attack_calls_blocked: int
    """Attacker goal calls the defence refused in the attacked runs."""
    approvals_asked: int
    """Approvals asked for, over all runs."""


def summarize(results: Iterable[CaseResult]) -> Metrics:
    """The metrics of a list of case results (benign runs have ``injection=None``)."""
    results = list(results)
    benign = [r for r in results if r.injection is None]
    attacked = [r for r in results if r.injection is not None]
    if not benign or not attacked:
        raise ValueError(
            f"summarize: need benign runs and attacked runs, got {len(benign)} benign and "
            f"{len(attacked)} attacked; run every user task alone and with each injection task"
        )
    return Metrics(
        benign_utility=sum(r.utility for r in benign) / len(benign),
        utility_under_attack=sum(r.utility for r in attacked) / len(attacked),
        asr=sum(r.attack_succeeded for r in attacked) / len(attacked),
        benign_runs=len(benign),
        attacked_runs=len(attacked),
        benign_calls_blocked=sum(len(r.blocked) for r in benign),
        attack_calls_blocked=sum(r.attack_calls_blocked for r in attacked),
        approvals_asked=sum(r.approvals_asked for r in results),
    )


def run_suite(defence: Defence, client: Any = None) -> list[CaseResult]:
    """Every user task alone, then with every injection task, under ``defence``."""
    client = client if client is not None else gullible_client()
    out = [run_case(u, None, defence, client=client) for u in USER_TASKS]
    return out + [run_case(u, i, defence, client=client) for u in USER_TASKS for i in INJECTION_TASKS]


def _seed_runs(defence: Defence, seeds: Iterable[int], client: Any) -> list[Metrics]:
    """One ``Metrics`` per approver seed for a confirmation defence; one run for any other defence."""
    if defence.approval_rate is None:
        return [summarize(run_suite(defence, client))]
    seeds = list(seeds)
    if not seeds:
        raise ValueError(f"seeds=[] for {defence.name!r}: give at least one approver seed, e.g. seeds={SEEDS}")
    return [summarize(run_suite(replace(defence, seed=s), client)) for s in seeds]


def _mean(ms: list[Metrics], field: str, scale: float = 1.0) -> float:
    return scale * sum(getattr(m, field) for m in ms) / len(ms)


def matrix(defences: Iterable[Defence] = MATRIX_DEFENCES, client: Any = None, seeds: Iterable[int] = SEEDS) -> Any:
    """The injection matrix: one row per defence, the standard metrics in percent (a pandas DataFrame).

    A confirmation defence's row is the mean over the approver's ``seeds`` (which calls fall in the
    approved share), the same seeds as ``approval_sweep``, so its row equals the sweep at that rate.
    Its ``seed`` field is ignored here; run ``run_suite`` for one seed. Counts are means too."""
    import pandas as pd

    rows = {}
    for d in defences:
        ms = _seed_runs(d, seeds, client)
        rows[d.name] = {
            "benign utility %": _mean(ms, "benign_utility", 100),
            "utility under attack %": _mean(ms, "utility_under_attack", 100),
            "attack success %": _mean(ms, "asr", 100),
            "benign calls blocked": _mean(ms, "benign_calls_blocked"),
            "attack calls blocked": _mean(ms, "attack_calls_blocked"),
            "approvals asked": _mean(ms, "approvals_asked"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def approval_sweep(rates: Iterable[float] = APPROVAL_RATES, seeds: Iterable[int] = SEEDS, client: Any = None) -> Any:
    """Confirmation before side effects at each approval rate: the standard metrics, averaged over the
    approver's ``seeds`` (which calls fall in the approved share), as a DataFrame indexed by rate."""
    import pandas as pd

    seeds = list(seeds)
    if not seeds:
        raise ValueError(f"approval_sweep(seeds=[]): give at least one seed, e.g. seeds={SEEDS}")
    rows = {}
    for rate in rates:
        ms = _seed_runs(Defence(f"confirmation ({rate:.0%} approved)", approval_rate=rate), seeds, client)
        rows[rate] = {
            "benign utility %": _mean(ms, "benign_utility", 100),
            "utility under attack %": _mean(ms, "utility_under_attack", 100),
            "attack success %": _mean(ms, "asr", 100),
            "approvals per run": sum(m.approvals_asked / (m.benign_runs + m.attacked_runs) for m in ms) / len(ms),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "approval rate"
    return frame


def case_grid(results: Iterable[CaseResult]) -> Any:
    """Attack success per case: user tasks as rows, injection tasks as columns (1 = goal reached)."""
    import pandas as pd

    grid = pd.DataFrame(0, index=[u.id for u in USER_TASKS], columns=[i.id for i in INJECTION_TASKS])
    for r in results:
        if r.injection is not None:
            grid.loc[r.user_task, r.injection] = int(r.attack_succeeded)
    return grid


def as_dict(m: Metrics) -> dict:
    """A ``Metrics`` as a plain dict."""
    return asdict(m)
