"""Compounding errors (notebook 06): a task of n steps, each tool call failing with a seeded probability.

The task asks which of n cities is warmest: n ``get_weather`` calls, and the answer needs every one.
``flaky_weather`` fails each call with probability ``1 - p_step``, decided by a seeded draw of
(seed, city, attempt), so a rerun fails the same calls and both arms meet the same first failures.
Each run goes through the real loop (``run_agent``) on the simulator with its default careful model,
one tool call per reply (``tool_choice`` ``disable_parallel_tool_use``), so the n look-ups are n steps in a
row, as the lesson's dependent steps are; without it the model asks for every city in one reply.

Two arms differ only in what happens after a failed call:

- ``"stop"``: the harness ends the run at the first turn whose calls all failed
  (``Limits(max_idle_turns=1)``), as a script with no error handling would; the model never reads
  the error. Expected success: ``p_step ** n``.
- ``"recover"``: the failure goes back as an ``is_error`` result the model can read ("temporarily
  unavailable; try again"). Our careful model reads it as transient and retries the same call up to
  ``RETRIES["recover"]`` times (3: ``agentlab.sim.models.reading.retry_limit``, a bound kept as data with
  its source, the upper end of the 2-3 retries issue 19 reports of real models; the recorded real
  retries in the calibration set all succeeded at the first), so a step fails only when all four
  attempts fail: expected success ``(1 - (1 - p_step) ** 4) ** n``. That bound is how the simulated
  model is written, not a measurement of Claude.

A run *succeeds* when it ends with ``end_turn`` and its answer states every city's true temperature.
The task is written in the notebook's language (the zh-CN edition asks in Chinese, naming the cities
by their Chinese names); the failures are drawn per city, whatever its name, so both editions meet
the same failures and measure the same rates.
"""

from __future__ import annotations

import random

from agentlab.client import connect
from agentlab.guards import Limits
from agentlab.loop import run_agent
from agentlab.sim.models.reading import retry_limit
from agentlab.tools import ONE_PER_TURN, Tool, ToolError, tool
from agentlab.views.i18n import localize, task_language
from agentlab.weather import chinese_name, city_names, city_task, lookup, weather_table

ARMS = ("stop", "recover")
"""What follows a failed call: the harness stops the run, or the model reads the error and retries."""
P_STEP = 0.9
"""The share of ``get_weather`` calls that succeed in the notebook's experiment."""
STEPS = tuple(range(1, 9))
"""Task lengths (cities, so ``get_weather`` steps) the notebook measures."""
TRIALS = 50
"""Runs per task length and arm in the notebook (each a different seed)."""
FAILURE = "get_weather is temporarily unavailable; try again"
"""What a failed call raises: a transient failure, worded so a reader knows a retry may work."""
RETRIES = {"stop": 0, "recover": retry_limit("retry")}
"""Extra attempts a failed step gets in each arm (the recover arm's 3 are our model's bound for a transient error)."""


def predicted(p_step: float, steps: int, retries: int = 0) -> float:
    """Chance that ``steps`` independent steps all succeed when each attempt succeeds with ``p_step``
    and a failed step is tried again up to ``retries`` times: ``(1 - (1 - p_step) ** (retries + 1)) ** steps``."""
    if not 0 <= p_step <= 1:
        raise ValueError(f"predicted(p_step={p_step!r}): p_step is a probability, from 0 to 1")
    if not isinstance(steps, int) or steps < 0 or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"predicted(steps={steps!r}, retries={retries!r}): give whole numbers >= 0")
    return (1 - (1 - p_step) ** (retries + 1)) ** steps


def flaky_weather(p_step: float, seed: object = 0) -> Tool:
    """A ``get_weather`` whose k-th call for a city fails (raises ``FAILURE``) when the seeded draw of
    (seed, city, k) is at or above ``p_step``; otherwise it returns the city's weather."""
    if not 0 <= p_step <= 1:
        raise ValueError(f"flaky_weather(p_step={p_step!r}): p_step is the share of calls that succeed, from 0 to 1")
    attempts: dict[str, int] = {}

    @tool(name="get_weather")
    def get_weather(city: str) -> dict:
        """Get today's temperature (degrees Celsius) and conditions for a city.

        Args:
            city: The city's name, e.g. "Paris".
        """
        rec = weather_table().get(city.strip().casefold())
        key = rec["name"] if rec is not None else city  # 巴黎 draws as Paris: both editions fail the same calls
        k = attempts[key] = attempts.get(key, 0) + 1
        if random.Random(f"{seed}:{key}:{k}").random() >= p_step:
            raise ToolError(FAILURE)
        return lookup(city)

    return get_weather


def step_task(cities: list[str], lang: str | None = None) -> str:
    """The task of ``len(cities)`` steps: one city's temperature, or which of several is warmest, in
    English (``"en"``), Chinese (``"zh"``, the cities by their Chinese names) or, with ``None``, the
    notebook's language (:func:`agentlab.views.i18n.language`). It asks for no note: only look-ups."""
    lang = task_language(lang, "step_task")
    if lang == "zh":
        names = [chinese_name(c) for c in cities]
        if len(names) == 1:
            return f"{names[0]}今天的气温是多少？"
        listed = "、".join(names[:-1]) + f"和{names[-1]}"
        return f"比较{listed}今天的气温，哪个{'更' if len(names) == 2 else '最'}暖和？"
    if len(cities) == 1:
        return f"What is the temperature in {cities[0]} today?"
    return city_task(cities, "en").replace(", then save a note with the answer", "")


def run_task(
    client,
    n: int,
    arm: str,
    p_step: float = P_STEP,
    seed: object = 0,
    lang: str | None = None,
    one_per_turn: bool = True,
) -> dict:
    """One run of the n-step task in ``arm``, asked in ``lang`` (see :func:`step_task`), one tool call per
    reply unless ``one_per_turn=False``; its figures as a flat dict."""
    if arm not in ARMS:
        raise ValueError(f"run_task(arm={arm!r}): arm must be one of {', '.join(ARMS)}")
    names = city_names()
    if not isinstance(n, int) or not 1 <= n <= len(names):
        raise ValueError(f"run_task(n={n!r}): n must be a whole number from 1 to {len(names)} (cities in the data)")
    cities = names[:n]
    # n calls, up to RETRIES retries of each, the answer
    limits = Limits(max_turns=(1 + RETRIES[arm]) * n + 1, max_idle_turns=1 if arm == "stop" else None)
    run = run_agent(
        client,
        step_task(cities, lang),
        [flaky_weather(p_step, seed)],
        limits=limits,
        tool_choice=ONE_PER_TURN if one_per_turn else None,
    )
    truth = [f"{lookup(c)['temp_c']:g}°C" for c in cities]
    failed = sum(r["is_error"] for r in run.tool_results)
    return {
        "steps": n,
        "arm": arm,
        "seed": seed,
        "success": run.stop_reason.value == "end_turn" and all(t in run.final_text for t in truth),
        "failed_calls": failed,
        "model_calls": run.model_calls,
        "stop": run.stop_reason.value,
    }


def compounding_runs(
    steps=STEPS,
    trials: int = TRIALS,
    p_step: float = P_STEP,
    arms=ARMS,
    lang: str | None = None,
    one_per_turn: bool = True,
) -> list[dict]:
    """Every task length x arm x trial, one row each, on one simulated client (offline), asked in
    ``lang`` (``None``: the notebook's language), one tool call per reply unless ``one_per_turn=False``."""
    if not isinstance(trials, int) or trials < 1:
        raise ValueError(f"compounding_runs(trials={trials!r}): give a whole number of runs >= 1")
    client = connect("sim", quiet=True)
    return [
        run_task(client, n, arm, p_step, seed=t, lang=lang, one_per_turn=one_per_turn)
        for n in steps
        for arm in arms
        for t in range(trials)
    ]


def summary(rows: list[dict], p_step: float = P_STEP) -> list[dict]:
    """Per task length and arm: runs, measured success rate, the rate predicted, mean model calls."""
    out = []
    for key in dict.fromkeys((r["steps"], r["arm"]) for r in rows):
        mine = [r for r in rows if (r["steps"], r["arm"]) == key]
        out.append(
            {
                "steps": key[0],
                "arm": key[1],
                "runs": len(mine),
                "success_rate": sum(r["success"] for r in mine) / len(mine),
                "predicted": predicted(p_step, key[0], RETRIES[key[1]]),
                "mean_model_calls": sum(r["model_calls"] for r in mine) / len(mine),
            }
        )
    return out


def plot_compounding(rows: list[dict], p_step: float = P_STEP):
    """Measured task success (%) per number of steps, each arm as labelled points, over its predicted curve."""
    import matplotlib.pyplot as plt

    table = summary(rows, p_step)
    fig, ax = plt.subplots(figsize=(7.5, 4), constrained_layout=True)
    style = {
        "stop": ("#D55E00", "-", -13, "stop at the first failed call"),
        "recover": ("#0072B2", "--", 7, "readable is_error, the model retries"),
    }
    for arm in dict.fromkeys(r["arm"] for r in table):
        color, line, dy, label = style[arm]
        mine = [r for r in table if r["arm"] == arm]
        xs = [r["steps"] for r in mine]
        ax.plot(
            xs,
            [100 * r["predicted"] for r in mine],
            line,
            color=color,
            lw=1.2,
            alpha=0.7,
            label="predicted: p**n"
            if arm == "stop"
            else f"predicted, up to {RETRIES[arm]} retries: (1 - (1 - p)**{RETRIES[arm] + 1})**n",
        )
        ax.scatter(xs, [100 * r["success_rate"] for r in mine], color=color, zorder=3, label=f"measured: {label}")
        for r in mine:
            ax.annotate(
                f"{100 * r['success_rate']:.0f}%",
                (r["steps"], 100 * r["success_rate"]),
                textcoords="offset points",
                xytext=(0, dy),
                ha="center",
                fontsize=7,
                color=color,
            )
    ax.set_xlabel("steps in the task (get_weather calls, count)")
    ax.set_ylabel("runs that succeed (%)")
    ax.set_ylim(0, 110)
    ax.set_xticks(sorted({r["steps"] for r in table}))
    ax.legend(fontsize=7, loc="lower left")
    runs = table[0]["runs"] if table else 0
    ax.set_title(f"Each call succeeds with p = {p_step:g}; {runs} seeded runs per point", fontsize=9)
    return localize(fig)


if __name__ == "__main__":  # python -m agentlab.experiments.compounding
    for r in summary(compounding_runs()):
        print(
            f"n={r['steps']} {r['arm']:8} measured={r['success_rate']:.2f} predicted={r['predicted']:.2f} "
            f"calls={r['mean_model_calls']:.1f}"
        )
