"""The same tool with three descriptions (notebook 08): what a description buys and what it costs.

``lookup_tool`` is one weather tool, ``lookup(query)``, whose code never changes; only the text the
model reads does (``DESCRIPTIONS``: ``bare`` says nothing about weather, ``vague`` says "weather" and
nothing about the input, ``precise`` says what it returns, the unit, when to use it and the input
format with an example). ``compare_descriptions`` runs the city task once per variant and seed on
``DescriptionReader`` (``agentlab/sim/models/described.py``), which picks a tool by what its text says
and guesses the input format when no example is given. Each row: whether the tool was used, how many
inputs the tool refused, turns, input tokens, and the tokens of the tool's definition, which every
turn re-sends as billed input. What the rows show about choosing and phrasing holds because of how
that model is written; the definition's token cost holds for any model, in the simulator's estimate.
"""

from __future__ import annotations

import tempfile

from agentlab.api.tokens import tool_def_tokens
from agentlab.client import connect
from agentlab.loop import run_agent
from agentlab.sim.models.described import DescriptionReader
from agentlab.tools import Tool, ToolError, tool
from agentlab.views.i18n import localize
from agentlab.weather import city_task, lookup, make_save_note, weather_table

DESCRIPTIONS = {
    "bare": ("Look something up.", "The query."),
    "vague": ("Weather lookup.", "The query."),
    "precise": (
        "Returns today's temperature in degrees Celsius (temp_c) and the sky condition for one city. "
        "Use it once per city whenever a question needs today's weather.",
        'One city\'s name only, e.g. "Paris" or "上海"; not a sentence.',
    ),
}
"""Per variant: the tool's description and its ``query`` property's description."""


def lookup_tool(description: str, query_description: str) -> Tool:
    """The weather tool ``lookup(query)`` with the given texts; it takes one city's name and nothing else."""
    for label, text in (("description", description), ("query_description", query_description)):
        if not isinstance(text, str):
            raise ValueError(f"lookup_tool({label}={text!r}): give the text the model reads, a string")

    @tool(name="lookup")
    def lookup_city(query: str) -> dict:
        """Placeholder; the description is set below."""
        if query.strip().casefold() in weather_table():
            return lookup(query)
        named = sorted(
            (n for rec in weather_table().values() for n in rec["names"] if n.casefold() in query.casefold()),
            key=len,
            reverse=True,
        )
        hint = f" Did you mean: {named[0]}?" if named else ""
        raise ToolError(f"Unknown city '{query}'.{hint} query takes one city's name only, e.g. 'Paris'.")

    schema = {**lookup_city.input_schema, "properties": {"query": {"type": "string", "description": query_description}}}
    return Tool("lookup", description, schema, lookup_city.fn)


def definition_tokens(t: Tool) -> int:
    """Estimated input tokens of the tool's definition, re-sent (and billed) on every turn."""
    return tool_def_tokens(t.spec())


def run_once(
    description: str,
    query_description: str,
    seed: int = 0,
    guess_wrong: float = 0.5,
    cities=("Paris", "London"),
    lang: str = "en",
) -> dict:
    """The city task with ``lookup`` described so, on ``DescriptionReader``: one row (see the module docstring)."""
    t = lookup_tool(description, query_description)
    client = connect("sim", policy=DescriptionReader(guess_wrong=guess_wrong, seed=seed), quiet=True)
    with tempfile.TemporaryDirectory(prefix="agentlab-desc-", ignore_cleanup_errors=True) as notes:  # read by no one
        run = run_agent(client, city_task(list(cities), lang), [t, make_save_note(notes)])
    calls = [r for r in run.tool_results if r["name"] == "lookup"]
    warmer = max(cities, key=lambda c: lookup(c)["temp_c"])
    return {
        "seed": seed,
        "used_tool": bool(calls),
        "refused_inputs": sum(r["is_error"] for r in calls),
        "answered": run.final_text.startswith(warmer),
        "turns": run.model_calls,
        "input_tokens": run.input_tokens,
        "definition_tokens": definition_tokens(t),
        "stop": run.stop_reason.value,
    }


def compare_descriptions(
    seeds=range(20), guess_wrong: float = 0.5, variants=tuple(DESCRIPTIONS), lang: str = "en"
) -> list[dict]:
    """One row per variant of ``DESCRIPTIONS`` and seed, each tagged with its ``variant``."""
    if not set(variants) <= set(DESCRIPTIONS):
        raise ValueError(f"compare_descriptions(variants={variants!r}): choose among {', '.join(DESCRIPTIONS)}")
    return [
        {"variant": v, **run_once(*DESCRIPTIONS[v], seed=s, guess_wrong=guess_wrong, lang=lang)}
        for v in variants
        for s in seeds
    ]


def summary(rows: list[dict]) -> dict[str, dict]:
    """Per variant: % of runs that used the tool and answered, mean refused inputs, turns, input and definition tokens."""
    out = {}
    for v in dict.fromkeys(r["variant"] for r in rows):
        mine = [r for r in rows if r["variant"] == v]
        n = len(mine)
        out[v] = {
            "used_pct": 100 * sum(r["used_tool"] for r in mine) / n,
            "answered_pct": 100 * sum(r["answered"] for r in mine) / n,
            **{
                k: sum(r[k] for r in mine) / n for k in ("refused_inputs", "turns", "input_tokens", "definition_tokens")
            },
        }
    return out


def plot_descriptions(rows: list[dict]):
    """One bar per variant in each panel (mean over seeds), value labels on the bars."""
    import matplotlib.pyplot as plt

    m = summary(rows)
    keys = [
        ("answered_pct", "runs answered (%)", "%.0f"),
        ("refused_inputs", "refused inputs (per run)", "%.1f"),
        ("turns", "model calls (count)", "%.1f"),
        ("definition_tokens", "tool definition (tokens per turn)", "%.0f"),
        ("input_tokens", "input tokens per run (estimated)", "%.0f"),
    ]
    fig, axes = plt.subplots(1, len(keys), figsize=(13, 3.2), constrained_layout=True)
    for ax, (k, label, fmt) in zip(axes, keys):
        bars = ax.bar(list(m), [m[v][k] for v in m], color=["#009E73", "#D55E00", "#0072B2"][: len(m)])
        ax.bar_label(bars, fmt=fmt, fontsize=8)
        ax.set_ylabel(label)
        ax.margins(y=0.15)
    runs = len(rows) // max(len(m), 1)
    fig.suptitle(f"the same lookup tool, three descriptions: mean of {runs} seeded runs each", fontsize=9)
    return localize(fig)
