"""pass@k and pass^k against exact values, and their intervals (agentlab/evals/estimators.py)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from agentlab.evals.estimators import interval, over_tasks, pass_at_k, pass_hat_k


def test_small_cases_match_counting_by_hand():
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2): no pair of the 3 failures
    assert pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)  # C(2,2)/C(5,2): the one pair of the 2 successes
    assert pass_at_k(10, 0, 3) == 0 and pass_at_k(10, 10, 3) == 1 and pass_at_k(10, 8, 3) == 1  # 2 failures < 3
    assert pass_hat_k(10, 10, 10) == 1 and pass_hat_k(10, 9, 10) == 0


@pytest.mark.parametrize("n,c", [(1, 0), (1, 1), (7, 3), (20, 13)])
def test_with_one_trial_both_are_the_success_rate(n, c):
    assert pass_at_k(n, c, 1) == pytest.approx(c / n) == pass_hat_k(n, c, 1)


@pytest.mark.parametrize("n,k", [(5, 1), (5, 3), (10, 4), (12, 12)])
@pytest.mark.parametrize("p", [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
def test_both_are_unbiased_exactly(n, k, p):
    """Averaged over every count of successes a true rate p gives in n trials, each estimator is exactly the
    quantity it estimates: 1 - (1-p)^k and p^k (the sum in fractions: no rounding)."""
    pmf = {c: comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)}
    at = sum(pr * (1 - Fraction(comb(n - c, k), comb(n, k))) for c, pr in pmf.items())
    hat = sum(pr * Fraction(comb(c, k), comb(n, k)) for c, pr in pmf.items())
    assert at == 1 - (1 - p) ** k and hat == p**k
    for c in range(n + 1):  # and the float functions compute those fractions, at every count
        assert pass_at_k(n, c, k) == pytest.approx(float(1 - Fraction(comb(n - c, k), comb(n, k))))
        assert pass_hat_k(n, c, k) == pytest.approx(float(Fraction(comb(c, k), comb(n, k))))


def test_plugging_in_the_rate_understates_pass_at_k_and_overstates_pass_hat_k():
    n, k, p = 5, 3, Fraction(1, 2)
    pmf = {c: comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)}
    plug_at = sum(pr * (1 - (1 - Fraction(c, n)) ** k) for c, pr in pmf.items())
    plug_hat = sum(pr * Fraction(c, n) ** k for c, pr in pmf.items())
    assert plug_at < 1 - (1 - p) ** k and plug_hat > p**k  # the docstring's two claims
    assert pass_at_k(5, 1, 3) == pytest.approx(0.6) and 1 - (1 - 1 / 5) ** 3 == pytest.approx(0.488)


def test_bad_counts_say_which_and_the_fix():
    with pytest.raises(ValueError, match="k must be from 1 to n"):
        pass_at_k(3, 1, 4)
    with pytest.raises(ValueError, match="c must be from 0 to n"):
        pass_hat_k(3, 4, 1)
    with pytest.raises(ValueError, match="k must be from 1 to n"):
        interval([[True] * 3], 4)


def test_over_tasks_is_the_mean_and_the_interval_repeats_brackets_it_and_never_shrinks_to_a_point():
    outcomes = [[True] * 8 + [False] * 2, [True] * 3 + [False] * 7]
    assert over_tasks(outcomes, 2, "pass^k") == pytest.approx((pass_hat_k(10, 8, 2) + pass_hat_k(10, 3, 2)) / 2)
    lo, hi = interval(outcomes, 2, "pass^k")
    assert (lo, hi) == interval(outcomes, 2, "pass^k") and lo < over_tasks(outcomes, 2, "pass^k") < hi
    lo, hi = interval([[True] * 20] * 5, 5, "pass^k")
    assert 0.5 < lo < hi < 1.0, "every trial succeeded, and yet 20 trials cannot say the rate is 1"


@pytest.mark.parametrize(
    "rates,n,k,kind",
    [
        ([0.88] * 5, 20, 5, "pass^k"),
        ([0.96] * 5, 20, 5, "pass^k"),
        ([0.5] * 5, 20, 1, "pass@k"),
        ([0.99, 0.6, 0.9, 0.3, 0.99], 20, 5, "pass^k"),
        ([0.1, 0.6, 0.2, 0.3, 0.05], 10, 5, "pass@k"),
    ],
)
def test_the_interval_covers_the_true_value_about_as_often_as_it_says(rates, n, k, kind):
    """300 simulated evals of five tasks with known rates: the docstring's coverage (91-99% in this range)."""
    import numpy as np

    rng = np.random.default_rng(7)
    truth = float(np.mean([1 - (1 - p) ** k if kind == "pass@k" else p**k for p in rates]))
    covered = 0
    for e in range(300):
        counts = rng.binomial(n, rates)
        lo, hi = interval([[True] * c + [False] * (n - c) for c in counts], k, kind, draws=1000, seed=e)
        covered += lo <= truth <= hi
    assert 0.88 <= covered / 300 <= 1.0
