"""The five workflow patterns and the agent on one shared task, measured side by side.

The shared task: "which of these cities is warmest today? give each temperature" for a list of
cities. Each pattern gets the same weather tool (as code, or as a tool for the agent) and is judged
by the same check: the answer gives every city's temperature and names the warmest.

    pattern_runs(client, ["Madrid", "Oslo", "Cairo"], folder)  -> {name: Run}
    pattern_table(runs, cities)                                -> DataFrame, one row per run
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.views.figures import bars
from agentlab.views.i18n import localize
from agentlab.weather import city_task, lookup, task_tools
from agentlab.workflows import Link, run_chain, run_evaluator, run_orchestrator, run_router, run_sections, run_vote

if TYPE_CHECKING:  # imported where a table is built, not at import: pandas takes about 0.25 s to load
    import pandas as pd

CITIES_SCHEMA = {"type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
                 "required": ["cities"], "additionalProperties": False}
WRITE = "Write a short note comparing the cities' temperatures."


def data_line(cities: list[str]) -> str:
    """``Data: Madrid: 24.5°C, clear; ...`` from the weather tool's lookup (code, not the model)."""
    return "Data: " + "; ".join(f"{r['city']}: {r['temp_c']:g}°C, {r['condition']}" for r in map(lookup, cities))


def pattern_runs(client: Any, cities: list[str], folder: str | Path) -> dict[str, Run]:
    """Run the shared task as the agent and as each pattern; traces go to ``folder``."""
    # in English whatever the notebook's language: the text cut below and the other prompts are English
    folder, task = Path(folder), city_task(cities, "en").replace(", then save a note with the answer", "")
    t = lambda name: folder / f"{name}.jsonl"  # noqa: E731
    runs = {"agent": run_agent(client, task, task_tools(folder / "notes")[:1], trace=t("agent"))}
    runs["chaining"] = run_chain(client, task, [
        Link("extract", prompt="{input}", system="Extract the city names.", schema=CITIES_SCHEMA,
             gate=lambda v: None if len(v["cities"]) >= 2 else f"need two or more cities, got {v['cities']}"),
        Link("fetch", code=lambda v: data_line(v["cities"])),
        Link("write", prompt="Compare the temperatures. {input}", system=WRITE)], trace=t("chaining"))
    routes = {"compare": WRITE, "forecast": "Write tomorrow's forecast."}
    runs["routing"] = run_router(client, f"compare: {task}\n{data_line(cities)}", routes,
                                 fallback="You are the general help desk. Write a short reply.", trace=t("routing"))
    sections = {c: f"{data_line([c])}" for c in cities}
    runs["sectioning"] = run_sections(client, sections, system="Write one sentence on the city's weather.",
                                      combine=lambda parts: _warmest_note(parts), trace=t("sectioning"))
    runs["voting"] = run_vote(client, f"{task}\n{data_line(cities)}\nVote for the warmest city.",
                              [lookup(c)["city"] for c in cities], voters=[f"You are reviewer {i} of 3." for i in (1, 2, 3)],
                              trace=t("voting"))
    runs["orchestrator"] = run_orchestrator(client, task, worker_system="Write one sentence on the city's weather.",
                                            synth_system="Combine the parts into one short note.",
                                            context=lambda s: data_line([s["title"]]), trace=t("orchestrator"))
    runs["evaluator"] = run_evaluator(client, f"{task} Answer in at most 20 words. {data_line(cities)}",
                                      trace=t("evaluator"))
    return runs


def _warmest_note(parts: dict[str, str]) -> str:
    """Sectioning's join, in code: the parts, then the warmest (read from the data, not the model)."""
    top = max(parts, key=lambda c: lookup(c)["temp_c"])
    return " ".join(parts.values()) + f" {lookup(top)['city']} is the warmest."


def solved(run: Run, cities: list[str]) -> bool:
    """The shared task's check: every city's temperature appears and the warmest city is named.
    (Voting answers only the warmest city, so it is checked for that alone.)"""
    recs = [lookup(c) for c in cities]
    top = max(recs, key=lambda r: r["temp_c"])["city"]
    if run.pattern == "voting":
        return run.final_text == top
    return top in run.final_text and all(f"{r['temp_c']:g}°C" in run.final_text for r in recs)


def pattern_table(runs: dict[str, Run], cities: list[str]) -> pd.DataFrame:
    """One row per run: model calls, tokens, cost, wall time, stop reason and whether it solved the task."""
    import pandas as pd

    return pd.DataFrame([{"run": name, "model calls": r.model_calls, "input tokens": r.input_tokens,
                          "output tokens": r.output_tokens, "cost (USD)": r.cost_usd,
                          "wall time (s)": round(r.wall_s, 3), "stop": r.stop_reason.value,
                          "solved": solved(r, cities)} for name, r in runs.items()]).set_index("run")


def plot_patterns(table: pd.DataFrame) -> Any:
    """Model calls, input tokens, cost and wall time for each pattern and the agent (``pattern_table``)."""
    import matplotlib.pyplot as plt

    cols = [("model calls", "{:.0f}", "model calls (count)"), ("input tokens", "{:.0f}", "input tokens (tokens)"),
            ("cost (USD)", "{:.4f}", "cost (USD)"), ("wall time (s)", "{:.2f}", "wall time (s)")]
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), constrained_layout=True)
    colors = ["#c0504d" if n == "agent" else "#4f81bd" for n in table.index]
    for ax, (col, fmt, label) in zip(axes, cols):
        bars(ax, list(table.index), [float(v or 0) for v in table[col]], fmt, colors, label)
    fig.suptitle("One task, five workflow patterns and the agent (red); token counts estimated by the simulator",
                 fontsize=10)
    return localize(fig)
