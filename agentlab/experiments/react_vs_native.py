"""ReAct vs native tool use (course 3.2) on the same task, the same simulated model and the same tools.

``compare_styles`` runs the city task once natively (``tools=``, typed JSON calls) and once as a
prompted ReAct loop per seed (the simulated model writes some malformed actions, ``malformed`` of
them on average), and returns one row per run: parse failures, turns, tokens and cost. The task is
asked in the notebook's language unless ``lang`` says otherwise (a Chinese task gets the Chinese
ReAct prompt, ``agentlab.react.react_prompt``).
"""

from __future__ import annotations

import tempfile

from agentlab.client import connect
from agentlab.loop import run_agent
from agentlab.react import run_react
from agentlab.sim.models.react import ReactWriter
from agentlab.views.i18n import localize
from agentlab.weather import city_task, task_tools


def _row(style: str, seed: int | None, run, failures: int) -> dict:
    return {
        "style": style,
        "seed": seed,
        "parse_failures": failures,
        "turns": run.model_calls,
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "cost_usd": run.cost_usd,
        "stop": run.stop_reason.value,
        "answer": run.final_text,
    }


def compare_styles(
    cities=("Paris", "London"), seeds=range(5), malformed: float = 0.3, lang: str | None = None
) -> list[dict]:
    """One native row, then one ReAct row per seed, the task in ``lang`` (``None``: the notebook's language)."""
    notes = tempfile.mkdtemp(prefix="agentlab-react-")
    task = city_task(list(cities), lang)
    native = run_agent(connect("sim", policy=ReactWriter(), quiet=True), task, task_tools(notes))
    rows = [_row("native", None, native, 0)]
    for seed in seeds:
        client = connect("sim", policy=ReactWriter(malformed=malformed, seed=seed), quiet=True)
        react = run_react(client, task, task_tools(notes))
        rows.append(_row("react", seed, react.run, react.parse_failures))
    return rows


def means(rows: list[dict]) -> dict[str, dict]:
    """Per style: mean parse failures, turns, input and output tokens, cost."""
    out = {}
    for style in dict.fromkeys(r["style"] for r in rows):
        mine = [r for r in rows if r["style"] == style]
        out[style] = {
            k: sum(r[k] for r in mine) / len(mine)
            for k in ("parse_failures", "turns", "input_tokens", "output_tokens", "cost_usd")
        }
    return out


def plot_styles(rows: list[dict]):
    """Native vs ReAct (mean over seeds): parse failures, turns, input tokens, cost; value labels on bars."""
    import matplotlib.pyplot as plt

    m = means(rows)
    keys = [
        ("parse_failures", "parse failures (count)"),
        ("turns", "model calls (count)"),
        ("input_tokens", "input tokens (estimated)"),
        ("cost_usd", "cost (USD)"),
    ]
    fig, axes = plt.subplots(1, 4, figsize=(11, 3.2), constrained_layout=True)
    for ax, (k, label) in zip(axes, keys):
        bars = ax.bar(list(m), [m[s][k] for s in m], color=["#0072B2", "#D55E00"][: len(m)])
        ax.bar_label(bars, fmt="%.4f" if k == "cost_usd" else "%.1f", fontsize=8)
        ax.set_ylabel(label)
    fig.suptitle(f"native: 1 run; ReAct: mean of {len(rows) - 1} seeded runs", fontsize=9)
    return localize(fig)
