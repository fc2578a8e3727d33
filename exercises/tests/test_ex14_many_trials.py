"""Graded tests for exercises/ex14_many_trials.py. Run: make grade"""

import itertools
from fractions import Fraction

import pytest

from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.evals.estimators.pass_hat_k",
    "agentlab.evals.estimators.over_tasks",
    why="Exercise 14 asks you to write the estimator yourself",
)

ex14 = lazy_import("exercises.ex14_many_trials")


def _by_counting(n: int, c: int, k: int) -> Fraction:
    """Every way to pick k of the n trials, counted: the share in which all k picked ones succeeded."""
    trials = [True] * c + [False] * (n - c)
    picks = list(itertools.combinations(range(n), k))
    return Fraction(sum(all(trials[i] for i in pick) for pick in picks), len(picks))


@pytest.mark.exercise("14.1")
@pytest.mark.points(2)
def test_pass_hat_k_counts_the_ways_all_k_picked_trials_succeed():
    for n, c, k in [(5, 2, 2), (6, 6, 3), (6, 0, 1), (7, 4, 1), (8, 5, 3), (10, 9, 10), (9, 7, 4)]:
        got = ex14.pass_hat_k(n, c, k)
        want = float(_by_counting(n, c, k))
        assert got == pytest.approx(want, abs=1e-12), (
            f"pass_hat_k({n}, {c}, {k}) = {got}, expected {want} (reread 'Every time, not once' in notebook 14)"
        )
    plugged = (4 / 5) ** 3
    got = ex14.pass_hat_k(5, 4, 3)
    assert got != pytest.approx(plugged), (
        f"pass_hat_k(5, 4, 3) = {got}: that is the rate plugged in, (4/5)**3, not the count of picks"
    )


@pytest.mark.exercise("14.1")
@pytest.mark.points(1)
def test_a_count_outside_its_range_is_a_value_error():
    for n, c, k in [(5, 6, 2), (5, -1, 2), (5, 3, 0), (5, 3, 6)]:
        with pytest.raises(ValueError):
            ex14.pass_hat_k(n, c, k)
