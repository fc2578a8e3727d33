"""The experiments of notebook 09 (what a turn costs), as functions the notebook and its tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from agentlab.client import connect
from agentlab.experiments.sweeps import sweep_task
from agentlab.loop import run_agent
from agentlab.meter.latency import cumulative
from agentlab.run import Run
from agentlab.sim.caching import SimClock
from agentlab.tools import ONE_PER_TURN
from agentlab.views.i18n import localize
from agentlab.weather import city_names, task_tools


def caching_pair(
    n_cities: int, model: str, notes_dir: str | Path, cache: str = "5m", one_per_turn: bool = True
) -> dict[str, Run]:
    """The city task with ``n_cities`` on ``model``, run twice on fresh simulators: ``{"uncached": ..., "cached": ...}``.

    ``one_per_turn``: one tool call per reply (``disable_parallel_tool_use``), so the run takes a turn per city,
    the long run whose re-sent prefix caching is for; ``False``: the model asks for every city in one reply.

    Traces go to ``notes_dir/uncached.jsonl`` and ``notes_dir/cached.jsonl`` (each response's full usage).
    """
    return {
        label: city_run(
            n_cities, model, notes_dir, label, cache=flag, tool_choice=ONE_PER_TURN if one_per_turn else None
        )
        for label, flag in (("uncached", False), ("cached", cache))
    }


def city_run(n_cities: int, model: str, notes_dir: str | Path, label: str, **options: Any) -> Run:
    """The city task with ``n_cities`` on ``model``, on a fresh simulator (an empty cache, its own clock), its trace in
    ``notes_dir/<label>.jsonl``; ``options`` go to ``run_agent``."""
    client = connect("sim", model=model, quiet=True)
    client.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]
    task = sweep_task(city_names()[:n_cities])
    trace = Path(notes_dir) / f"{label}.jsonl"
    return run_agent(client, task, task_tools(notes_dir), max_turns=n_cities + 4, trace=trace, **options)


def saving(runs: dict[str, Run]) -> float:
    """Cached cost as a fraction of uncached cost (0.4 means the cached run cost 40%)."""
    return runs["cached"].cost_usd / runs["uncached"].cost_usd  # type: ignore[operator]


def per_turn_table(runs: dict[str, Run]) -> Any:
    """Per turn, both runs side by side: tokens read from / written to the cache and each turn's cost."""
    import pandas as pd

    plain, cached = runs["uncached"], runs["cached"]
    return pd.DataFrame(
        [
            {
                "turn": a.index,
                "input tokens (uncached run)": a.input_tokens,
                "cache read": b.cache_read_tokens,
                "cache write": b.cache_write_tokens,
                "not cached": b.input_tokens,
                "cost uncached (USD)": round(a.cost_usd or 0, 6),
                "cost cached (USD)": round(b.cost_usd or 0, 6),
            }
            for a, b in zip(plain.turns, cached.turns)
        ]
    )


def ratio_table(ns: list[int], notes_dir: str | Path, model: str | None = None) -> Any:
    """The 4x / 15x check for each number of cities in ``ns``: chat, agent, multi-agent tokens and ratios."""
    import pandas as pd

    from agentlab.experiments.multiplying import token_ratios

    return pd.DataFrame([token_ratios(city_names()[:n], notes_dir, model) for n in ns])


def price_table(models: list[str]) -> Any:
    """USD per million tokens from genai-prices at each model's base rates (a prompt below any long-prompt tier):
    input, 5-minute and 1-hour cache writes, cache reads, output; then, for a model that bills a long prompt
    higher, the prompt size from which it does and its input and output rates there (``None`` where there is
    no such tier or no known price)."""
    import pandas as pd

    from agentlab.meter.prices import long_prompt_tier, usage_cost_usd

    zero = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    k = 1000  # 1,000 tokens of each kind, times 1,000: below every long-prompt tier, so the base rate
    cols = {
        "input": {"input_tokens": k},
        "cache write 5m": {"cache_creation_input_tokens": k},
        "cache write 1h": {
            "cache_creation_input_tokens": k,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": k},
        },
        "cache read": {"cache_read_input_tokens": k},
        "output": {"output_tokens": k},
    }
    rows = []
    for model in models:
        row = {"model": model}
        for col, usage in cols.items():
            usd = usage_cost_usd(model, {**zero, **usage})
            row[col] = None if usd is None else round(usd * 1000, 6)
        tier = long_prompt_tier(model)
        row["long prompt from (tokens)"], row["long: input"], row["long: output"] = tier or (None, None, None)
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


# Cost and time per turn, and their running totals: cached against uncached, turn by turn.


def cost_curve(run: Run) -> tuple[list[float], list[float]]:
    """Per-turn cost (USD) and its running total; a turn with no known price raises, never counts as 0."""
    per = [t.cost_usd for t in run.turns]
    if any(c is None for c in per):
        raise ValueError(f"cost_curve: genai-prices has no price for {run.model!r}; there is no cost curve to draw")
    return per, cumulative(per)  # type: ignore[arg-type]


def plot_cost_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: cost of each turn, and cost so far, one line per labelled run (e.g. uncached / cached)."""
    fig = _per_turn_and_total(runs, cost_curve, lambda v: f"${v:.4f}", "cost of this turn (USD)", "cost so far (USD)")
    model = next(iter(runs.values())).model
    fig.suptitle(f"Prompt caching, turn by turn ({model}; simulator, tokens estimated)", fontsize=10)
    return localize(fig)


def plot_latency_per_turn(runs: dict[str, Run]) -> Any:
    """Two panels: latency of each turn and elapsed model time, one line per labelled run."""

    def latency(run: Run) -> tuple[list[float], list[float]]:
        per = [t.latency_s for t in run.turns]
        return per, cumulative(per)

    fig = _per_turn_and_total(
        runs, latency, lambda v: f"{v:.1f} s", "latency of this turn (s)", "model time so far (s)"
    )
    est = "simulated from assumed rates" if any(r.estimated for r in runs.values()) else "measured"
    fig.suptitle(f"Time per turn ({est})", fontsize=10)
    return localize(fig)


def _per_turn_and_total(
    runs: dict[str, Run],
    curve: Callable[[Run], tuple[list[float], list[float]]],
    fmt: Callable[[float], str],
    per_label: str,
    total_label: str,
) -> Any:
    """Left: a value per turn; right: its running total (last point labelled); one line per labelled run."""
    import matplotlib.pyplot as plt

    fig, (ax, total) = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    for label, run in runs.items():
        per, cum = curve(run)
        turns = [t.index for t in run.turns]
        ax.plot(turns, per, marker="o", ms=3, label=label)
        total.plot(turns, cum, marker="o", ms=3, label=label)
        total.annotate(fmt(cum[-1]), (turns[-1], cum[-1]), textcoords="offset points", xytext=(4, 0), fontsize=8)
    ax.set_ylabel(per_label)
    total.set_ylabel(total_label)
    for a in (ax, total):
        a.set_xlabel("turn (model call number)")
        a.legend(fontsize=8)
    return fig
