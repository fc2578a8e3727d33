"""Sweeps: the city task from 1 to 12 cities, as agent and as workflow, cached or not, on a few models.

Every run gets its own simulated client (so no run reads another run's cache), a :class:`SimClock`
(so cache lifetimes and latency are simulated time), and becomes one row of a pandas DataFrame.
The long-output variant makes the model write a paragraph per city in its answer and its note.

Input tokens are split into three disjoint components per run:

- ``tool tokens``: the tool definitions and the hidden tool-use prompt, sent again on every call;
- ``re-sent history``: the rest of the re-prefill, earlier turns sent again (grows ~ quadratically);
- ``new tokens``: what each call sends for the first time.

Every agent run asks for one tool call per reply (``ONE_PER_TURN``, ``disable_parallel_tool_use``), so n cities
take n + 2 turns and the re-sent history grows with n; ``one_per_turn=False`` lets the model ask for every city
in one reply (what our simulated model does by default), and every run takes 3 turns.

``sweep(..., batch=True)`` runs the agent points through the Message Batches API (``agentlab.experiments.batching``):
each round, one batch per policy (short or long answers) holds every unfinished run's next request.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Iterable

from agentlab.api.tokens import tool_def_tokens, tool_prompt_overhead
from agentlab.client import connect
from agentlab.experiments.batching import run_batched
from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.sim.caching import SimClock
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.reading import cities_in, is_chinese
from agentlab.sim.policy import Reply
from agentlab.tools import ONE_PER_TURN
from agentlab.views.i18n import localize, task_language, tr
from agentlab.weather import chinese_name, city_names, city_task, task_tools
from agentlab.workflows import run_workflow

MODELS = ("claude-haiku-5-5", "claude-opus-5")
"""The sweep's default models: the cheapest and a large one, minimum cacheable lengths 4096 (assumed) and 512."""
MAX_TOKENS = 2048
"""max_tokens for every call of the sweep (room for the long-output variant)."""
DETAIL = (
    "the weather tool's reading for today, with the conditions it reported, set against the other cities "
    "named in this note so the reader can see the whole comparison at a glance."
)
"""The sentence the long-output variant writes per city."""
DETAIL_ZH = "天气工具今天的读数和它报告的天气状况，并与这条笔记里提到的其他城市对照，让读者一眼看清整个比较。"
"""The same sentence for an answer written in Chinese."""


def sweep_task(cities: list[str], lang: str | None = None) -> str:
    """The task for ``cities``: the course's comparison for two or more, a plain look-up for one, in ``lang``
    (``"en"``, ``"zh"``; ``None``: the notebook's language, :func:`agentlab.views.i18n.language`), so the
    zh-CN edition's sweeps ask in Chinese (the Chinese task names each city by its Chinese name)."""
    lang = task_language(lang, "sweep_task")
    if len(cities) == 1:
        if lang == "zh":
            return f"今天{chinese_name(cities[0])}的温度是多少？查一下，然后保存一条笔记。"
        return f"What is the temperature in {cities[0]} today? Look it up, then save a note with it."
    return city_task(cities, lang)  # the same language as the one-city task above: one language per sweep


class LongAnswers:
    """A policy that acts like ``inner`` but writes a paragraph per city in every answer and note."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = inner or CarefulAgent()
        """The policy that decides what to do; this one only lengthens its text."""

    def __call__(self, request: dict) -> Reply:
        reply = self.inner(request)
        blocks = []
        for b in reply.content:
            if b.get("type") == "text" and b["text"] and not any(x.get("type") == "tool_use" for x in reply.content):
                b = {**b, "text": self._expand(b["text"])}
            elif b.get("type") == "tool_use" and b.get("name") == "save_note":
                b = {**b, "input": {"text": self._expand(b["input"].get("text", ""))}}
            blocks.append(b)
        return Reply(blocks, reply.stop_reason)

    @staticmethod
    def _expand(text: str) -> str:
        names = cities_in(text)
        if names and is_chinese(text):  # a Chinese answer gets its paragraph in Chinese
            return text + "\n\n详情：\n" + "\n".join(f"- {c}：{DETAIL_ZH}" for c in names)
        return text + ("\n\nDetails:\n" + "\n".join(f"- {c}: {DETAIL}" for c in names) if names else "")


def tool_tokens_per_call(model: str, notes_dir: str | Path = ".") -> int:
    """Estimated tokens the task's tool definitions and the hidden tool-use prompt add to every call."""
    return sum(tool_def_tokens(t.spec()) for t in task_tools(notes_dir)) + tool_prompt_overhead(model, None)[0]


def run_row(
    model: str,
    n: int,
    kind: str,
    cache: bool,
    long_output: bool,
    notes_dir: str | Path,
    cities: list[str] | None = None,
    one_per_turn: bool = True,
) -> dict:
    """One run of the sweep, as a flat dict (one DataFrame row); ``cities`` default: the first ``n`` in the data;
    ``one_per_turn``: the agent asks for one tool call per reply (``ONE_PER_TURN``)."""
    client = connect("sim", model=model, policy=LongAnswers() if long_output else None, quiet=True)
    client.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]
    cities = cities or city_names()[:n]
    if kind == "agent":
        run = run_agent(
            client,
            sweep_task(cities),
            task_tools(notes_dir),
            max_turns=n + 4,
            max_tokens=MAX_TOKENS,
            cache=cache,
            tool_choice=ONE_PER_TURN if one_per_turn else None,
        )
    elif kind == "workflow":
        if cache:
            raise ValueError(
                "run_row(kind='workflow', cache=True): the workflow makes one call and re-sends nothing; "
                "caching does not apply to it"
            )
        run = run_workflow(client, cities, notes_dir, max_tokens=MAX_TOKENS)
    else:
        raise ValueError(f"run_row(kind={kind!r}): kind must be 'agent' or 'workflow'")
    return row_of(run, n, cache, long_output)


def row_of(run: Run, n: int, cache: bool, long_output: bool) -> dict:
    """The figures the sweep keeps for one run."""
    sent = [t.input_tokens + t.cache_read_tokens + t.cache_write_tokens for t in run.turns]
    per_call = tool_tokens_per_call(run.model) if run.kind == "agent" else 0
    resent = sum(min(s, prev + t_prev.output_tokens) for s, prev, t_prev in zip(sent[1:], sent, run.turns))
    tools = per_call * len(run.turns)
    history = max(0, resent - per_call * (len(run.turns) - 1))
    return {
        "model": run.model,
        "kind": run.kind,
        "cities": n,
        "cache": cache,
        "long output": long_output,
        "turns": run.model_calls,
        "input tokens (all)": sum(sent),
        "input tokens (uncached)": run.input_tokens,
        "cache read tokens": sum(t.cache_read_tokens for t in run.turns),
        "cache write tokens": sum(t.cache_write_tokens for t in run.turns),
        "output tokens": run.output_tokens,
        "tool tokens": tools,
        "re-sent history": history,
        "new tokens": sum(sent) - tools - history,
        "cost (USD)": run.cost_usd,
        "latency (s)": sum(t.latency_s for t in run.turns),
        "stop": run.stop_reason.value,
    }


def sweep_grid(
    ns: Iterable[int] = range(1, 13), models: Iterable[str] = MODELS, long_output: Iterable[bool] = (False, True)
) -> list[tuple[str, int, str, bool, bool]]:
    """Every ``(model, n, kind, cache, long_output)`` of the sweep: the agent with and without caching,
    the workflow without (it re-sends nothing, so there is nothing to cache)."""
    return [
        (m, n, kind, cache, lo)
        for m in models
        for lo in long_output
        for n in ns
        for kind, cache in (("agent", False), ("agent", True), ("workflow", False))
    ]


def sweep(
    ns: Iterable[int] = range(1, 13),
    models: Iterable[str] = MODELS,
    long_output: Iterable[bool] = (False, True),
    progress: bool = True,
    batch: bool = False,
    one_per_turn: bool = True,
) -> Any:
    """Run the whole grid (:func:`sweep_grid`) offline; one pandas DataFrame row per run; ``one_per_turn``: each
    agent run asks for one tool call per reply (the module docstring).

    ``batch=True``: the agent points only (the workflow is a fixed code path, not a stepped loop), sent
    through the Message Batches API one round at a time (:func:`batch_rows`): the same turns and tokens
    as without it for uncached runs, at half the cost, each turn as slow as its batch round."""
    import pandas as pd
    from tqdm.auto import tqdm

    grid = sweep_grid(ns, models, long_output)
    with tempfile.TemporaryDirectory(prefix="agentlab-sweep-") as notes:
        if batch:
            return pd.DataFrame(batch_rows([p for p in grid if p[2] == "agent"], notes, one_per_turn))
        rows = [
            run_row(*point, notes_dir=notes, one_per_turn=one_per_turn)
            for point in tqdm(grid, desc=tr("sweep runs"), disable=not progress)
        ]
    return pd.DataFrame(rows)


def batch_rows(
    grid: list[tuple[str, int, str, bool, bool]], notes_dir: str | Path, one_per_turn: bool = True
) -> list[dict]:
    """The agent points of ``grid`` as rows, their calls sent as Message Batches on the simulator: one batch client
    per policy (short or long answers, as :func:`run_row` picks), one batch per round of all its runs.

    Live safety does not arise here (the simulator only); :func:`agentlab.experiments.batching.run_batched` checks a live
    client's session cap against each whole batch. Runs in one batch share that simulator's prompt cache,
    as requests sent with one API key share its cache: cached runs may read each other's tool definitions."""
    if any(kind != "agent" for _, _, kind, _, _ in grid):
        raise ValueError("batch_rows(grid=...): only agent points can be batched (the workflow makes one call)")
    rows: dict[int, dict] = {}
    for lo in dict.fromkeys(p[4] for p in grid):
        points = [(i, p) for i, p in enumerate(grid) if p[4] == lo]
        sender = connect("sim", policy=LongAnswers() if lo else None, quiet=True)
        sender.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]
        runs = []
        for _, (model, n, _, cache, _) in points:
            own = connect("sim", model=model, quiet=True)  # where the run's turns are metered; it sends nothing
            runs.append(
                (
                    own,
                    lambda c, n=n, cache=cache: run_agent(
                        c,
                        sweep_task(city_names()[:n]),
                        task_tools(notes_dir),
                        max_turns=n + 4,
                        max_tokens=MAX_TOKENS,
                        cache=cache,
                        tool_choice=ONE_PER_TURN if one_per_turn else None,
                    ),
                )
            )
        for (i, (_, n, _, cache, _)), run in zip(points, run_batched(sender, runs)):
            if isinstance(run, BaseException):
                raise run
            rows[i] = {**row_of(run, n, cache, lo), "batch": True}
    return [rows[i] for i in range(len(grid))]


# Figures for a sweep DataFrame (:func:`agentlab.experiments.sweeps.sweep`): what grows with the number of cities.

VARIANTS = (
    ("agent", False, "agent", "#D55E00"),
    ("agent", True, "agent, cached", "#E69F00"),
    ("workflow", False, "workflow", "#0072B2"),
)
"""(kind, cache, label, colour) of each line."""


def _pick(df: Any, model: str | None, long_output: bool) -> tuple[Any, str]:
    model = model or df["model"].iloc[0]
    if model not in set(df["model"]):
        raise ValueError(f"plot_sweep(model={model!r}): the sweep has {sorted(set(df['model']))}")
    return df[(df["model"] == model) & (df["long output"] == long_output)], model


def _lines(ax: Any, sub: Any, column: str, label_last: bool = True, fmt: str = "{:g}") -> None:
    for kind, cache, label, colour in VARIANTS:
        part = sub[(sub["kind"] == kind) & (sub["cache"] == cache)].sort_values("cities")
        if part.empty:
            continue
        ax.plot(part["cities"], part[column], marker="o", ms=3, color=colour, label=label)
        if label_last:
            x, y = part["cities"].iloc[-1], part[column].iloc[-1]
            ax.annotate(fmt.format(y), (x, y), textcoords="offset points", xytext=(4, 0), fontsize=7, va="center")
    ax.set_xlabel("cities in the task (count)")
    ax.legend(fontsize=7)


def plot_sweep(df: Any, model: str | None = None, long_output: bool = False) -> Any:
    """Four panels against the number of cities, for one model: turns, input tokens by component
    (agent, uncached), cost and simulated latency."""
    import matplotlib.pyplot as plt

    sub, model = _pick(df, model, long_output)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), constrained_layout=True)
    _lines(axes[0, 0], sub, "turns")
    axes[0, 0].set_ylabel("model calls per run (count)")
    agent = sub[(sub["kind"] == "agent") & (~sub["cache"])].sort_values("cities")
    ax = axes[0, 1]
    parts = [("tool tokens", "#009E73"), ("re-sent history", "#bbbbbb"), ("new tokens", "#0072B2")]
    ax.stackplot(
        agent["cities"], *[agent[c] for c, _ in parts], labels=[c for c, _ in parts], colors=[c for _, c in parts]
    )
    total = agent["input tokens (all)"]
    ax.annotate(
        f"{total.iloc[-1]:,}",
        (agent["cities"].iloc[-1], total.iloc[-1]),
        fontsize=7,
        textcoords="offset points",
        xytext=(-30, 4),
    )
    ax.set_xlabel("cities in the task (count)")
    ax.set_ylabel("agent input tokens per run (tokens)")
    ax.legend(fontsize=7, loc="upper left")
    _lines(axes[1, 0], sub, "cost (USD)", fmt="${:.4f}")
    axes[1, 0].set_ylabel("cost per run (USD)")
    _lines(axes[1, 1], sub, "latency (s)", fmt="{:.1f} s")
    axes[1, 1].set_ylabel("simulated latency per run (s)")
    kind = "long answers" if long_output else "short answers"
    fig.suptitle(
        f"The city task, 1 to {int(sub['cities'].max())} cities: {model}, {kind} "
        "(simulator: tokens estimated, latency from assumed rates)",
        fontsize=10,
    )
    return localize(fig)


def plot_cost_by_model(df: Any, long_output: bool = False) -> Any:
    """Cost per run against cities, one panel per model: agent, cached agent and workflow."""
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(df["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(3.6 * len(models), 3.4), constrained_layout=True, squeeze=False)
    for ax, model in zip(axes[0], models):
        sub, _ = _pick(df, model, long_output)
        _lines(ax, sub, "cost (USD)", fmt="${:.4f}")
        ax.set_title(model, fontsize=9)
        ax.set_ylabel("cost per run (USD)")
    fig.suptitle("What caching saves depends on the model's price and its minimum cacheable length", fontsize=10)
    return localize(fig)
