"""Notebook 05: the SDK's own agent loop (``client.beta.messages.tool_runner``) beside ``run_agent``.

The installed SDK ships a loop too: it calls the model, runs the tools it was handed, sends their results
and calls again until the model stops, at most ``max_iterations`` times; ``compact_before_next_turn()``
summarises the history on request. It is the same loop as the course's. What differs is the harness around
it: of the guards notebook 05 builds, the runner has the turn limit alone.

``runner_vs_loop`` runs one task both ways on fresh simulated clients with the same turn limit;
``guards_table`` says which guard each one has, the runner's column read from the installed SDK.
"""

from __future__ import annotations

import inspect
import tempfile
from pathlib import Path
from typing import Any

from agentlab.client import connect
from agentlab.guards import Limits
from agentlab.loop import run_agent
from agentlab.meter.middleware import meter_of
from agentlab.tools import Tool, run_tool, toolset
from agentlab.weather import city_task, task_tools

GUARDS = (
    ("turn limit", "max_turns", "max_iterations"),
    ("wall clock", "max_wall_s", None),
    ("repeated call", "max_repeats", None),
    ("no progress", "max_idle_turns", None),
    ("token budget", "max_tokens", None),
    ("USD budget", "max_usd", None),
)
"""Each guard of ``agentlab.guards.Limits``: (what it stops, its ``Limits`` field, the runner's parameter or None)."""


def sdk_tools(tools: list[Tool]) -> list[Any]:
    """The lab's tools as the SDK's runnable tools (``anthropic.beta_tool``): same name, description and schema;
    the input checked and the error worded by ``run_tool``, a failure raised as the SDK's ``ToolError``."""
    from anthropic import beta_tool
    from anthropic.lib.tools import ToolError

    by_name = toolset(tools)

    def runnable(tool: Tool) -> Any:
        def call(**tool_input: Any) -> str:
            out = run_tool(by_name, tool.name, tool_input)
            if out.is_error:
                raise ToolError(out.content)
            return out.content

        return beta_tool(call, name=tool.name, description=tool.description, input_schema=tool.input_schema)

    return [runnable(t) for t in tools]


def run_sdk_runner(client: Any, task: str, tools: list[Tool], max_iterations: int) -> list[Any]:
    """The task through ``client.beta.messages.tool_runner``: every reply, in order."""
    runner = client.beta.messages.tool_runner(
        model=client.agentlab_model,
        max_tokens=1024,
        max_iterations=max_iterations,
        messages=[{"role": "user", "content": task}],
        tools=sdk_tools(tools),
    )
    return list(runner)


def runner_vs_loop(
    policy: Any = None, cities: tuple[str, ...] = ("Paris", "London"), max_turns: int = 8, max_repeats: int = 3
) -> Any:
    """The city task through the SDK's runner (``max_iterations=max_turns``) and through ``run_agent``
    (``Limits(max_turns, max_repeats)``), each on a fresh simulated client running ``policy``: one row each."""
    import pandas as pd

    rows = []
    with tempfile.TemporaryDirectory(prefix="agentlab-runner-") as folder:
        client = connect("sim", policy=policy, quiet=True)
        replies = run_sdk_runner(client, city_task(list(cities)), task_tools(Path(folder) / "sdk"), max_turns)
        rows.append(
            {
                "loop": "SDK tool_runner",
                "model calls": len(meter_of(client).calls),
                "last stop_reason": replies[-1].stop_reason if replies else None,
                "why it ended": "the model stopped"
                if replies and replies[-1].stop_reason != "tool_use"
                else f"max_iterations={max_turns}",
            }
        )
        client = connect("sim", policy=policy, quiet=True)
        run = run_agent(
            client,
            city_task(list(cities)),
            task_tools(Path(folder) / "loop"),
            limits=Limits(max_turns=max_turns, max_repeats=max_repeats),
        )
        rows.append(
            {
                "loop": "agentlab run_agent",
                "model calls": run.model_calls,
                "last stop_reason": run.turns[-1].stop_reason if run.turns else None,
                "why it ended": run.stop_reason.value,
            }
        )
    return pd.DataFrame(rows).set_index("loop")


def runner_parameters() -> set[str]:
    """The keyword parameters of the installed SDK's ``messages.tool_runner``."""
    from anthropic.resources.beta.messages.messages import Messages

    return set(inspect.signature(Messages.tool_runner).parameters) - {"self"}


def guards_table() -> Any:
    """Which of the course's guards each loop has: ``run_agent`` through ``Limits``, the SDK's runner through
    its own parameters (checked against the installed SDK: a parameter it lacks reads "none")."""
    import pandas as pd

    have = runner_parameters()
    rows = [
        {
            "guard": guard,
            "agentlab run_agent": f"Limits({field}=...)",
            "SDK tool_runner": f"{param}=..." if param and param in have else "none",
        }
        for guard, field, param in GUARDS
    ]
    return pd.DataFrame(rows).set_index("guard")
