"""The five workflow patterns and the agent on one shared task, measured side by side.

The shared task: "which of these cities is warmest today? give each temperature" for a list of
cities. Each pattern gets the same weather tool (as code, or as a tool for the agent) and is judged
by the same check: the answer gives every city's temperature and names the warmest.

    pattern_runs(client, ["Madrid", "Oslo", "Cairo"], folder)  -> {name: Run}
    pattern_table(runs, cities)                                -> DataFrame, one row per run

The shared task and every prompt the patterns write for it are in the notebook's language (``lang``
of :func:`pattern_runs`; the zh-CN edition asks in Chinese, names the cities by their Chinese names and
gets Chinese answers). The workflows' own scaffolding (the planner's, router's and evaluator's system
prompts) stays as ``agentlab.workflows`` writes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.views.figures import bars
from agentlab.views.i18n import localize, task_language
from agentlab.weather import chinese_name, city_task, lookup, name_in, task_tools
from agentlab.workflows import Link, run_chain, run_evaluator, run_orchestrator, run_router, run_sections, run_vote

if TYPE_CHECKING:  # imported where a table is built, not at import: pandas takes about 0.25 s to load
    import pandas as pd

CITIES_SCHEMA = {
    "type": "object",
    "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
    "required": ["cities"],
    "additionalProperties": False,
}
WRITE = "Write a short note comparing the cities' temperatures."
PROMPTS = {
    "en": {
        "extract": "Extract the city names.",
        "compare": "Compare the temperatures. {input}",
        "write": WRITE,
        "forecast": "Write tomorrow's forecast.",
        "fallback": "You are the general help desk. Write a short reply.",
        "route": "compare: ",
        "sentence": "Write one sentence on the city's weather.",
        "vote": "Vote for the warmest city.",
        "voter": "You are reviewer {i} of 3.",
        "synth": "Combine the parts into one short note.",
        "limit": "Answer in at most 20 words.",
    },
    "zh": {
        "extract": "提取城市名。",
        "compare": "比较这些城市的气温。{input}",
        "write": "写一段简短的笔记，比较这些城市的气温。",
        "forecast": "写明天的天气预报。",
        "fallback": "你是综合服务台。写一段简短的回复。",
        "route": "比较：",
        "sentence": "用一句话写这个城市的天气。",
        "vote": "投票选出最暖和的城市。",
        "voter": "你是 3 位评审者中的第 {i} 位。",
        "synth": "把这些部分合并成一段简短的笔记。",
        "limit": "最多用 20 个字回答。",
    },
}
"""Every prompt the shared task's patterns write, by task language (``route`` starts the router's input)."""
CONDITIONS_ZH = {
    "clear": "晴",
    "sunny": "晴朗",
    "cloudy": "多云",
    "light rain": "小雨",
    "overcast": "阴",
    "windy": "有风",
}
"""The weather data's conditions in Chinese (a condition not listed stays as written)."""


def data_line(cities: list[str], lang: str = "en") -> str:
    """``Data: Madrid: 24.5°C, clear; ...`` from the weather tool's lookup (code, not the model);
    ``lang="zh"``: ``数据：马德里：24.5°C，晴；...``."""
    if lang == "zh":
        return "数据：" + "；".join(
            f"{chinese_name(r['city'])}：{r['temp_c']:g}°C，{CONDITIONS_ZH.get(r['condition'], r['condition'])}"
            for r in map(lookup, cities)
        )
    return "Data: " + "; ".join(f"{r['city']}: {r['temp_c']:g}°C, {r['condition']}" for r in map(lookup, cities))


def shared_task(cities: list[str], lang: str = "en") -> str:
    """The shared question: which city is warmest, and each temperature (no note), in ``lang``."""
    if lang == "zh":
        names = [chinese_name(c) for c in cities]
        return f"比较{'、'.join(names[:-1])}和{names[-1]}今天的气温，哪个{'更' if len(names) == 2 else '最'}暖和？"
    return city_task(cities, "en").replace(", then save a note with the answer", "")


def pattern_runs(client: Any, cities: list[str], folder: str | Path, lang: str | None = None) -> dict[str, Run]:
    """Run the shared task as the agent and as each pattern, in ``lang`` (``"en"``, ``"zh"``; ``None``: the
    notebook's language); traces go to ``folder``."""
    lang = task_language(lang, "pattern_runs")
    say, data = PROMPTS[lang], lambda names: data_line(names, lang)  # noqa: E731
    folder, task = Path(folder), shared_task(cities, lang)
    t = lambda name: folder / f"{name}.jsonl"  # noqa: E731
    runs = {"agent": run_agent(client, task, task_tools(folder / "notes")[:1], trace=t("agent"))}
    runs["chaining"] = run_chain(
        client,
        task,
        [
            Link(
                "extract",
                prompt="{input}",
                system=say["extract"],
                schema=CITIES_SCHEMA,
                gate=lambda v: None if len(v["cities"]) >= 2 else f"need two or more cities, got {v['cities']}",
            ),
            Link("fetch", code=lambda v: data(v["cities"])),
            Link("write", prompt=say["compare"], system=say["write"]),
        ],
        trace=t("chaining"),
    )
    routes = {"compare": say["write"], "forecast": say["forecast"]}
    runs["routing"] = run_router(
        client, f"{say['route']}{task}\n{data(cities)}", routes, fallback=say["fallback"], trace=t("routing")
    )
    sections = {c: f"{data([c])}" for c in cities}
    runs["sectioning"] = run_sections(
        client,
        sections,
        system=say["sentence"],
        combine=lambda parts: _warmest_note(parts, lang),
        trace=t("sectioning"),
    )
    runs["voting"] = run_vote(
        client,
        f"{task}\n{data(cities)}\n{say['vote']}",
        [_name(c, lang) for c in cities],
        voters=[say["voter"].format(i=i) for i in (1, 2, 3)],
        trace=t("voting"),
    )
    runs["orchestrator"] = run_orchestrator(
        client,
        task,
        worker_system=say["sentence"],
        synth_system=say["synth"],
        context=lambda s: data([s["title"]]),
        trace=t("orchestrator"),
    )
    runs["evaluator"] = run_evaluator(client, f"{task} {say['limit']} {data(cities)}", trace=t("evaluator"))
    return runs


def _name(city: str, lang: str) -> str:
    """The data's name for ``city`` in ``lang`` (Madrid, 马德里)."""
    return name_in(lookup(city)["city"], lang)


def _warmest_note(parts: dict[str, str], lang: str = "en") -> str:
    """Sectioning's join, in code: the parts, then the warmest (read from the data, not the model)."""
    top = max(parts, key=lambda c: lookup(c)["temp_c"])
    if lang == "zh":
        return "".join(parts.values()) + f"{_name(top, lang)}最暖和。"
    return " ".join(parts.values()) + f" {lookup(top)['city']} is the warmest."


def solved(run: Run, cities: list[str]) -> bool:
    """The shared task's check: every city's temperature appears and the warmest city is named (by its
    English or Chinese name). (Voting answers only the warmest city, so it is checked for that alone.)"""
    recs = [lookup(c) for c in cities]
    top = max(recs, key=lambda r: r["temp_c"])["city"]
    names = (top, chinese_name(top))
    if run.pattern == "voting":
        return run.final_text in names
    return any(n in run.final_text for n in names) and all(f"{r['temp_c']:g}°C" in run.final_text for r in recs)


def pattern_table(runs: dict[str, Run], cities: list[str]) -> pd.DataFrame:
    """One row per run: model calls, tokens, cost, wall time, stop reason and whether it solved the task."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "run": name,
                "model calls": r.model_calls,
                "input tokens": r.input_tokens,
                "output tokens": r.output_tokens,
                "cost (USD)": r.cost_usd,
                "wall time (s)": round(r.wall_s, 3),
                "stop": r.stop_reason.value,
                "solved": solved(r, cities),
            }
            for name, r in runs.items()
        ]
    ).set_index("run")


def plot_patterns(table: pd.DataFrame) -> Any:
    """Model calls, input tokens, cost and wall time for each pattern and the agent (``pattern_table``)."""
    import matplotlib.pyplot as plt

    cols = [
        ("model calls", "{:.0f}", "model calls (count)"),
        ("input tokens", "{:.0f}", "input tokens (tokens)"),
        ("cost (USD)", "{:.4f}", "cost (USD)"),
        ("wall time (s)", "{:.2f}", "wall time (s)"),
    ]
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), constrained_layout=True)
    colors = ["#D55E00" if n == "agent" else "#0072B2" for n in table.index]
    for ax, (col, fmt, label) in zip(axes, cols):
        bars(ax, list(table.index), [float(v or 0) for v in table[col]], fmt, colors, label)
    fig.suptitle(
        "One task, five workflow patterns and the agent (red); token counts estimated by the simulator", fontsize=10
    )
    return localize(fig)
