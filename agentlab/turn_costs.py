"""The experiments of notebook 09 (what a turn costs), as functions the notebook and its tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .client import connect
from .loop import run_agent
from .run import Run
from .sim.caching import SimClock
from .sweeps import sweep_task
from .weather import city_names, task_tools


def caching_pair(n_cities: int, model: str, notes_dir: str | Path, cache: str = "5m") -> dict[str, Run]:
    """The city task with ``n_cities`` on ``model``, run twice on fresh simulators: ``{"uncached": ..., "cached": ...}``.

    Traces go to ``notes_dir/uncached.jsonl`` and ``notes_dir/cached.jsonl`` (each response's full usage).
    """
    runs = {}
    for label, flag in (("uncached", False), ("cached", cache)):
        client = connect("sim", model=model, quiet=True)
        client.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]
        runs[label] = run_agent(client, sweep_task(city_names()[:n_cities]), task_tools(notes_dir),
                                max_turns=n_cities + 4, cache=flag, trace=Path(notes_dir) / f"{label}.jsonl")
    return runs


def saving(runs: dict[str, Run]) -> float:
    """Cached cost as a fraction of uncached cost (0.4 means the cached run cost 40%)."""
    return runs["cached"].cost_usd / runs["uncached"].cost_usd  # type: ignore[operator]


def per_turn_table(runs: dict[str, Run]) -> Any:
    """Per turn, both runs side by side: tokens read from / written to the cache and each turn's cost."""
    import pandas as pd

    plain, cached = runs["uncached"], runs["cached"]
    return pd.DataFrame([{"turn": a.index, "input tokens (uncached run)": a.input_tokens,
                          "cache read": b.cache_read_tokens, "cache write": b.cache_write_tokens,
                          "not cached": b.input_tokens, "cost uncached (USD)": round(a.cost_usd or 0, 6),
                          "cost cached (USD)": round(b.cost_usd or 0, 6)} for a, b in zip(plain.turns, cached.turns)])


def ratio_table(ns: list[int], notes_dir: str | Path, model: str | None = None) -> Any:
    """The 4x / 15x check for each number of cities in ``ns``: chat, agent, multi-agent tokens and ratios."""
    import pandas as pd

    from .multiagent import token_ratios

    return pd.DataFrame([token_ratios(city_names()[:n], notes_dir, model) for n in ns])


def price_table(models: list[str]) -> Any:
    """USD per million tokens from genai-prices: input, 5-minute and 1-hour cache writes, cache reads, output
    (``None`` where the model has no known price)."""
    import pandas as pd

    from .caching import usage_cost_usd

    zero = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    m = 10**6
    cols = {"input": {"input_tokens": m}, "cache write 5m": {"cache_creation_input_tokens": m},
            "cache write 1h": {"cache_creation_input_tokens": m,
                               "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": m}},
            "cache read": {"cache_read_input_tokens": m}, "output": {"output_tokens": m}}
    return pd.DataFrame([{"model": model, **{c: usage_cost_usd(model, {**zero, **u}) for c, u in cols.items()}}
                         for model in models]).set_index("model")
