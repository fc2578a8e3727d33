"""How often an agent succeeds, from n trials per task: pass@k, pass^k, and intervals around them.

For one task with ``n`` trials of which ``c`` succeeded:

- **pass@k**: the chance that at least one of ``k`` trials succeeds. The unbiased estimator draws ``k`` of the
  ``n`` trials without replacement: ``1 - C(n-c, k) / C(n, k)`` (Chen et al. 2021, "Evaluating Large Language
  Models Trained on Code", the HumanEval paper). Plugging the rate ``c/n`` into ``1 - (1 - c/n)**k`` instead
  understates it on few trials.
- **pass^k** ("pass hat k"): the chance that all ``k`` trials succeed: ``C(c, k) / C(n, k)`` (Yao et al. 2024,
  the tau-bench paper). It is what "it works every time" asks of an agent that runs many times a day.
  Plugging in the rate, ``(c/n)**k``, overstates it on few trials.

Over a task set, each is the mean over tasks. Intervals: pass@1 pooled over trials gets a Wilson score
interval; pass@k and pass^k get a percentile bootstrap, resampling each task's trials (seeded, so a report
repeats exactly). Both are 95% by default.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def _check(n: int, c: int, k: int) -> None:
    if not (isinstance(n, int) and isinstance(c, int) and isinstance(k, int)):
        raise TypeError(f"n, c and k are whole numbers, got n={n!r}, c={c!r}, k={k!r}")
    if not 0 <= c <= n:
        raise ValueError(f"c={c} successes out of n={n} trials: c must be from 0 to n")
    if not 1 <= k <= n:
        raise ValueError(f"k={k} with n={n} trials: k must be from 1 to n (run at least k trials per task)")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of P(at least one of k trials succeeds) from c successes in n trials."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of P(all k trials succeed) from c successes in n trials."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def wilson(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval for a success rate (95% with the default ``z``); sound at 0 and n successes."""
    if trials < 1:
        raise ValueError(f"wilson: {trials} trials; an interval needs at least one")
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if successes == 0 else lo), (1.0 if successes == trials else hi)  # exact at the ends


def over_tasks(outcomes: Sequence[Sequence[bool]], k: int, kind: str = "pass@k") -> float:
    """``pass@k`` or ``pass^k`` over a task set: the mean over tasks, each from its own list of outcomes."""
    est = {"pass@k": pass_at_k, "pass^k": pass_hat_k}[kind]
    if not outcomes:
        raise ValueError("over_tasks: no tasks")
    return sum(est(len(o), sum(map(bool, o)), k) for o in outcomes) / len(outcomes)


def bootstrap(
    outcomes: Sequence[Sequence[bool]], k: int, kind: str = "pass@k", reps: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """A 95% percentile bootstrap interval for :func:`over_tasks`: each task's trials resampled with
    replacement, ``reps`` times, from a fixed ``seed``."""
    rng = random.Random(seed)
    values = sorted(over_tasks([[o[rng.randrange(len(o))] for _ in o] for o in outcomes], k, kind) for _ in range(reps))
    return values[int(0.025 * (reps - 1))], values[int(math.ceil(0.975 * (reps - 1)))]
