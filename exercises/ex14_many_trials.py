"""Graded exercise for notebook 14 (optional: many trials). Grade it with `make grade`.

Edit the function below: replace its `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Exercise 14.1: the unbiased estimate of pass^k, the chance that k trials of a task ALL succeed.

    A task was tried n times and c of the trials succeeded. Return the chance that k trials drawn from those n
    without replacement all succeed: the number of ways to choose k of the c successes, over the number of ways
    to choose k of all n trials (`math.comb` counts them). Do not plug the rate in as (c / n) ** k: on few trials
    that overstates the chance. Raise ValueError when c is not between 0 and n, or k not between 1 and n.

    练习 14.1：pass^k 的无偏估计，即某个任务的 k 次试验全部成功的概率。
    一个任务试了 n 次，其中 c 次成功。返回从这 n 次里不放回地抽出 k 次、而这 k 次全部成功的概率：从 c 次成功里选 k 次的
    选法数，除以从全部 n 次里选 k 次的选法数（用 `math.comb` 计数）。不要把比例代进去算 (c / n) ** k：试验少时它会高估这个
    概率。c 不在 0 到 n 之间，或 k 不在 1 到 n 之间时，抛出 ValueError。
    """
    ### BEGIN SOLUTION
    import math

    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return math.comb(c, k) / math.comb(n, k)
    ### END SOLUTION
