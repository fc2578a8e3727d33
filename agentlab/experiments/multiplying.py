"""Agents multiplying: tokens and cost as the work fans out to more workers, measured on the simulator.

One task that fans out: "which of these n cities is warmest?" for n = 1, 2, 4, 8. Four ways to do it,
all through one simulated client, so every call (workers' and sub-agents' included) is metered:

- **chat**: one call, no tools, the temperatures already in the prompt (``chat_answer``);
- **agent**: ``run_agent`` with ``get_weather`` and ``save_note``: one window, re-sent every turn;
- **orchestrator-workers**: ``run_orchestrator``: a planning call, one worker call per city (n workers),
  a synthesis call; each call is a fresh, short window;
- **multi-agent**: ``run_multiagent``: an orchestrator *agent* whose tool starts a sub-agent
  per city, each a full ``run_agent`` with its own window.

Ratios to chat are ours, on our task, with the simulator's token *estimates*; the course's ~4x and
~15x are Anthropic's, measured on its own research system (``agentlab/data/published/``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agentlab.client import model_of
from agentlab.experiments.published import published
from agentlab.hints import task_lang
from agentlab.loop import run_agent
from agentlab.meter.middleware import meter_of
from agentlab.run import Run, StopReason, turns_of
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.policy import Reply
from agentlab.tools import Tool, tool
from agentlab.views.i18n import localize, task_language, tr
from agentlab.weather import chinese_name, city_task, get_weather, lookup, make_save_note

KINDS = ("chat", "agent", "orchestrator-workers", "multi-agent")
"""The four ways, cheapest first."""
COLORS = {"chat": "#009E73", "agent": "#0072B2", "orchestrator-workers": "#E69F00", "multi-agent": "#D55E00"}
WORKER = "Write one sentence on the city's weather."
SYNTH = "Combine the parts into one short note that names the warmest city."
ZH = {
    "worker": "用一句话写这个城市的天气。",
    "synth": "把这些部分合并成一段简短的笔记，并说出最暖和的城市。",
    "chat": "今天哪个城市最暖和？用一句话回答。今天的气温：{data}。",
    "sub": "今天{city}的温度是多少？查一下，用一句话回答。",
}
"""The prompts of this module in Chinese, for a run in the zh-CN edition (``WORKER``, ``SYNTH``, ``CHAT_PROMPT``,
``SUB_TASK``); the task itself is :func:`agentlab.experiments.sweeps.sweep_task`'s or ``city_task``'s, in the same language."""


def _question(task: str) -> str:
    """The task's question without its look-up and note instructions (what the orchestrator plans from)."""
    if task_lang(task) == "zh":
        return task.split("查一下")[0].split("然后保存")[0]
    return task.split(", then save")[0].split(" Look it up")[0]


def fan_out(n: int, workdir: str | Path, model: str | None = None, lang: str | None = None) -> dict[str, Any]:
    """The four runs for the first ``n`` cities, on one fresh simulated client: ``{kind: Run}``; every prompt in
    ``lang`` (``"en"``, ``"zh"``; ``None``: the notebook's language)."""
    from agentlab.client import connect
    from agentlab.experiments.patterns import data_line
    from agentlab.experiments.sweeps import sweep_task
    from agentlab.weather import city_names, task_tools
    from agentlab.workflows import run_orchestrator

    names = city_names()
    if not isinstance(n, int) or not 1 <= n <= len(names):
        raise ValueError(f"fan_out(n={n!r}): n must be a whole number from 1 to {len(names)} (cities in the data)")
    cities, folder, lang = names[:n], Path(workdir), task_language(lang, "fan_out")
    client = connect("sim", model=model, policy=OrchestratorPolicy(), quiet=True)
    task = sweep_task(cities, lang)  # the course's comparison, or a plain look-up for one city
    worker, synth = (ZH["worker"], ZH["synth"]) if lang == "zh" else (WORKER, SYNTH)
    return {
        "chat": chat_answer(client, cities, lang=lang),
        "agent": run_agent(client, task, task_tools(folder / "notes"), max_turns=n + 4),
        "orchestrator-workers": run_orchestrator(
            client,
            _question(task),
            worker_system=worker,
            synth_system=synth,
            max_workers=4,
            context=lambda s: data_line([s["title"]], lang),
        ),
        "multi-agent": run_multiagent(client, cities, folder / "notes", task=task)[0],
    }


def multiplying_table(
    ns: tuple[int, ...] = (1, 2, 4, 8),
    workdir: str | Path | None = None,
    model: str | None = None,
    lang: str | None = None,
) -> Any:
    """One row per (cities, kind): model calls, total tokens, USD, and tokens and cost as multiples of chat's.
    The runs' notes go to ``workdir`` (default: a fresh temporary folder); prompts in ``lang`` (see :func:`fan_out`)."""
    import tempfile

    import pandas as pd

    workdir = workdir if workdir is not None else tempfile.mkdtemp(prefix="agentlab-multiplying-")
    rows = []
    for n in ns:
        runs = fan_out(n, workdir, model, lang)
        chat = total_tokens(runs["chat"])
        for kind, run in runs.items():
            rows.append(
                {
                    "cities": n,
                    "kind": kind,
                    "model calls": run.model_calls,
                    "tokens": total_tokens(run),
                    "cost (USD)": run.cost_usd,
                    "x chat tokens": round(total_tokens(run) / chat, 1),
                    "x chat cost": round(run.cost_usd / runs["chat"].cost_usd, 1) if run.cost_usd else None,
                    "stop": run.stop_reason.value,
                }
            )
    return pd.DataFrame(rows)


def ratios(table: Any, n: int | None = None) -> dict[str, float]:
    """Tokens as a multiple of chat's at ``n`` cities (default: the largest in the table)."""
    n = n if n is not None else int(table["cities"].max())
    at = table[table["cities"] == n].set_index("kind")["x chat tokens"]
    if at.empty:
        raise ValueError(
            f"ratios(n={n!r}): the table has no rows for {n} cities; it has {sorted(set(table['cities']))}"
        )
    return {k: float(at[k]) for k in KINDS[1:]}


def anthropic_ratios() -> dict[str, float]:
    """The course's figures: Anthropic's agent and multi-agent token multiples of chat (one system, 2025)."""
    return {k: float(v) for k, v in published("multi_agent_tokens")["ratios_to_chat"].items()}


def plot_multiplying(table: Any) -> Any:
    """Left: total tokens by number of cities for each way (log scale, values labelled). Right: our
    multiples of chat at the largest n beside Anthropic's ~4x and ~15x, labelled as whose they are."""
    import matplotlib.pyplot as plt

    from agentlab.views.fonts import use_cjk_font

    use_cjk_font()
    fig, (ax, bx) = plt.subplots(
        1, 2, figsize=(11, 4.6), constrained_layout=True, gridspec_kw={"width_ratios": [1.2, 1]}
    )
    for kind in KINDS:
        sub = table[table["kind"] == kind].sort_values("cities")
        ax.plot(sub["cities"], sub["tokens"], marker="o", color=COLORS[kind], label=kind)
        for x, y in zip(sub["cities"], sub["tokens"]):
            ax.annotate(
                f"{y:,}", (x, y), xytext=(0, 5), textcoords="offset points", ha="center", fontsize=7, color=COLORS[kind]
            )
    ax.set_yscale("log")
    ax.set_xticks(sorted(set(table["cities"])))
    ax.set_xlabel("cities = workers / sub-agents (count)")
    ax.set_ylabel("total tokens, input + output (log scale)")
    ax.set_title("Ours (simulated estimates): tokens as the task fans out", fontsize=10)
    ax.margins(y=0.1)  # room above the top value label
    # below the axes, so no line or value label sits under it
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=len(KINDS), frameon=False)
    n = int(table["cities"].max())
    ours, theirs = ratios(table, n), anthropic_ratios()
    labels = [
        "agent\n(ours)",
        "orchestrator-\nworkers\n(ours)",
        "multi-agent\n(ours)",
        "agent\n(Anthropic's)",
        "multi-agent\n(Anthropic's)",
    ]
    values = [ours["agent"], ours["orchestrator-workers"], ours["multi-agent"], theirs["agent"], theirs["multi-agent"]]
    colors = [COLORS["agent"], COLORS["orchestrator-workers"], COLORS["multi-agent"], "#bfbfbf", "#7f7f7f"]
    xs = [0, 1, 2, 3.5, 4.5]  # a gap between ours and theirs
    bars = bx.bar(xs, values, color=colors)
    for bar, v in zip(bars, values):
        bx.annotate(
            f"{v:g}x",
            (bar.get_x() + bar.get_width() / 2, v),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
    bx.set_xticks(xs, [tr(label) for label in labels], fontsize=7)  # tick texts are redrawn: translate them now
    bx.set_ylabel("tokens as a multiple of one chat call (x)")
    bx.set_title(
        f"Multiples of one chat call: ours at {n} cities (simulated estimates)\n"
        "vs Anthropic's (one vendor, one system)",
        fontsize=9,
    )
    bx.margins(y=0.15)
    return localize(fig)


# Chat, agent, multi-agent: the same city question three ways, to check the course's 4x and 15x.

CHAT_PROMPT = "Which city is warmest today? Answer in one sentence. Today's temperatures: {data}."
"""The chat baseline's prompt: the data is given, nothing is looked up."""
SUB_TASK = "What is the temperature in {city} today? Look it up and answer in one sentence."
"""What each sub-agent is asked."""


def chat_answer(client: Any, cities: list[str], model: str | None = None, lang: str | None = None) -> Run:
    """One call, no tools, the temperatures in the prompt: the chat baseline, asked in ``lang`` (see :func:`fan_out`)."""
    model = model or model_of(client)
    meter = meter_of(client)
    start, t0 = meter.mark(), time.perf_counter()
    if task_language(lang, "chat_answer") == "zh":
        prompt = ZH["chat"].format(data="；".join(f"{chinese_name(c)}: {lookup(c)['temp_c']:g}°C" for c in cities))
    else:
        prompt = CHAT_PROMPT.format(data="; ".join(f"{c}: {lookup(c)['temp_c']:g}°C" for c in cities))
    messages: list[dict] = [{"role": "user", "content": prompt}]
    reply = client.messages.create(model=model, max_tokens=256, messages=messages)
    content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
    messages.append({"role": "assistant", "content": content})
    text = " ".join(b["text"] for b in content if b["type"] == "text").strip()
    return Run.finish(
        kind="chat",
        model=model,
        meter=meter,
        since=start,
        started=t0,
        stop=StopReason(reply.stop_reason),
        final_text=text,
        messages=messages,
    )


def research_tool(client: Any, model: str | None = None, sub_runs: list[Run] | None = None) -> Tool:
    """The orchestrator's ``research_city`` tool: each call runs a fresh sub-agent for one city."""

    @tool(name="research_city")
    def research_city(city: str) -> str:
        """Delegate one city to a research sub-agent, which looks up today's temperature and answers in one sentence.

        Args:
            city: The city to research, e.g. "Paris".
        """
        sub_task = ZH["sub"].format(city=chinese_name(city)) if task_lang(city) == "zh" else SUB_TASK.format(city=city)
        sub = run_agent(
            client, sub_task, [get_weather], model=model, max_turns=4
        )  # a Chinese city name: asked in Chinese
        if sub_runs is not None:
            sub_runs.append(sub)
        return sub.final_text

    return research_city


def run_multiagent(
    client: Any, cities: list[str], notes_dir: str | Path, model: str | None = None, task: str | None = None
) -> tuple[Run, list[Run]]:
    """The orchestrator with one sub-agent per city; returns its Run (every call, sub-agents' included) and the sub-runs.
    ``task`` replaces the city task's wording (``fan_out`` asks its own question of the same cities)."""
    subs: list[Run] = []
    tools = [research_tool(client, model, subs), make_save_note(notes_dir)]
    start = meter_of(client).mark()
    run = run_agent(client, task or city_task(cities), tools, model=model, max_turns=len(cities) + 4)
    run.kind = "multi-agent"
    run.turns = turns_of(meter_of(client), start)  # every call since the start: the orchestrator's and its sub-agents
    return run, subs


class OrchestratorPolicy:
    """Simulated model for the multi-agent run: a careful agent that uses ``research_city`` where it
    would use ``get_weather`` (and is an ordinary careful agent for the sub-agents)."""

    def __init__(self) -> None:
        self.inner = CarefulAgent()
        """The policy doing the deciding."""

    def __call__(self, request: dict) -> Reply:
        if not any(t.get("name") == "research_city" for t in request.get("tools") or []):
            return self.inner(request)
        reply = self.inner(_renamed(request, "research_city", "get_weather"))
        return Reply(
            [
                {**b, "name": "research_city"} if b.get("type") == "tool_use" and b.get("name") == "get_weather" else b
                for b in reply.content
            ],
            reply.stop_reason,
        )


def _renamed(request: dict, old: str, new: str) -> dict:
    def block(b: Any) -> Any:
        return {**b, "name": new} if isinstance(b, dict) and b.get("name") == old else b

    messages = [
        {**m, "content": [block(b) for b in m["content"]]} if isinstance(m.get("content"), list) else m
        for m in request.get("messages", [])
    ]
    return {**request, "tools": [block(t) for t in request["tools"]], "messages": messages}


def total_tokens(run: Run) -> int:
    """Input (cached or not) plus output tokens over every call of ``run``."""
    return sum(t.prompt_tokens + t.output_tokens for t in run.turns)


def token_ratios(cities: list[str], notes_dir: str | Path, model: str | None = None) -> dict:
    """Chat, agent and multi-agent on the simulator for ``cities``: their tokens and the ratios to chat."""
    from agentlab.client import connect
    from agentlab.weather import task_tools

    client = connect("sim", model=model, policy=OrchestratorPolicy(), quiet=True)
    chat = chat_answer(client, cities)  # in the notebook's language, as city_task below
    agent = run_agent(client, city_task(cities), task_tools(notes_dir), max_turns=len(cities) + 4)
    multi, subs = run_multiagent(client, cities, notes_dir)
    c, a, m = total_tokens(chat), total_tokens(agent), total_tokens(multi)
    return {
        "cities": len(cities),
        "chat tokens": c,
        "agent tokens": a,
        "multi-agent tokens": m,
        "agent / chat": round(a / c, 1),
        "multi-agent / chat": round(m / c, 1),
        "chat calls": chat.model_calls,
        "agent calls": agent.model_calls,
        "multi-agent calls": multi.model_calls,
        "sub-agents": len(subs),
    }
