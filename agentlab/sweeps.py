"""Sweeps: the city task from 1 to 12 cities, as agent and as workflow, cached or not, on a few models.

Every run gets its own simulated client (so no run reads another run's cache), a :class:`SimClock`
(so cache lifetimes and latency are simulated time), and becomes one row of a pandas DataFrame.
The long-output variant makes the model write a paragraph per city in its answer and its note.

Input tokens are split into three disjoint components per run:

- ``tool tokens``: the tool definitions and the hidden tool-use prompt, sent again on every call;
- ``re-sent history``: the rest of the re-prefill, earlier turns sent again (grows ~ quadratically);
- ``new tokens``: what each call sends for the first time.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Iterable

from .client import connect
from .loop import run_agent
from .run import Run
from .sim.caching import SimClock
from .sim.careful import CarefulAgent, cities_in
from .sim.policy import Reply
from .sim.tokens import tool_def_tokens, tool_prompt_overhead
from .weather import city_names, city_task, task_tools
from .workflows import run_workflow

MODELS = ("claude-haiku-5-5", "claude-opus-5")
"""The sweep's default models: the cheapest and a large one, minimum cacheable lengths 4096 (assumed) and 512."""
MAX_TOKENS = 2048
"""max_tokens for every call of the sweep (room for the long-output variant)."""
DETAIL = ("the weather tool's reading for today, with the conditions it reported, set against the other cities "
          "named in this note so the reader can see the whole comparison at a glance.")
"""The sentence the long-output variant writes per city."""


def sweep_task(cities: list[str]) -> str:
    """The task for ``cities``: the course's comparison for two or more, a plain look-up for one."""
    if len(cities) == 1:
        return f"What is the temperature in {cities[0]} today? Look it up, then save a note with it."
    return city_task(cities)


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
        return text + ("\n\nDetails:\n" + "\n".join(f"- {c}: {DETAIL}" for c in names) if names else "")


def tool_tokens_per_call(model: str, notes_dir: str | Path = ".") -> int:
    """Estimated tokens the task's tool definitions and the hidden tool-use prompt add to every call."""
    return sum(tool_def_tokens(t.spec()) for t in task_tools(notes_dir)) + tool_prompt_overhead(model, None)[0]


def run_row(model: str, n: int, kind: str, cache: bool, long_output: bool, notes_dir: str | Path,
            cities: list[str] | None = None) -> dict:
    """One run of the sweep, as a flat dict (one DataFrame row); ``cities`` default: the first ``n`` in the data."""
    client = connect("sim", model=model, policy=LongAnswers() if long_output else None, quiet=True)
    client.agentlab_simulator.clock = SimClock()  # type: ignore[attr-defined]
    cities = cities or city_names()[:n]
    if kind == "agent":
        run = run_agent(client, sweep_task(cities), task_tools(notes_dir), max_turns=n + 4,
                        max_tokens=MAX_TOKENS, cache=cache)
    elif kind == "workflow":
        if cache:
            raise ValueError("run_row(kind='workflow', cache=True): the workflow makes one call and re-sends nothing; "
                             "caching does not apply to it")
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
        "model": run.model, "kind": run.kind, "cities": n, "cache": cache, "long output": long_output,
        "turns": run.model_calls, "input tokens (all)": sum(sent), "input tokens (uncached)": run.input_tokens,
        "cache read tokens": sum(t.cache_read_tokens for t in run.turns),
        "cache write tokens": sum(t.cache_write_tokens for t in run.turns),
        "output tokens": run.output_tokens, "tool tokens": tools, "re-sent history": history,
        "new tokens": sum(sent) - tools - history, "cost (USD)": run.cost_usd,
        "latency (s)": sum(t.latency_s for t in run.turns), "stop": run.stop_reason.value,
    }


def sweep_grid(ns: Iterable[int] = range(1, 13), models: Iterable[str] = MODELS,
               long_output: Iterable[bool] = (False, True)) -> list[tuple[str, int, str, bool, bool]]:
    """Every ``(model, n, kind, cache, long_output)`` of the sweep: the agent with and without caching,
    the workflow without (it re-sends nothing, so there is nothing to cache)."""
    return [(m, n, kind, cache, lo) for m in models for lo in long_output for n in ns
            for kind, cache in (("agent", False), ("agent", True), ("workflow", False))]


def sweep(ns: Iterable[int] = range(1, 13), models: Iterable[str] = MODELS, long_output: Iterable[bool] = (False, True),
          progress: bool = True) -> Any:
    """Run the whole grid (:func:`sweep_grid`) offline; one pandas DataFrame row per run."""
    import pandas as pd
    from tqdm.auto import tqdm

    grid = sweep_grid(ns, models, long_output)
    with tempfile.TemporaryDirectory(prefix="agentlab-sweep-") as notes:
        rows = [run_row(*point, notes_dir=notes) for point in tqdm(grid, desc="sweep runs", disable=not progress)]
    return pd.DataFrame(rows)
