"""agentlab: a teaching lab for the LLM agent loop.

An agent is a loop in *your* code around a model that only ever *requests* tool calls; each turn
re-sends the whole history and costs tokens and money. A workflow runs the same task on a code path
fixed in advance. agentlab runs both, offline on a simulated Claude or live on the real API, through
the same ``anthropic.Anthropic`` client, and measures them side by side.
"""

import importlib
from typing import TYPE_CHECKING

# name -> module that defines it. Imported on first use (PEP 562), so `import agentlab.grading`
# (the autograder) does not pay for the SDK and jsonschema imports (~2 s) it never uses.
_WHERE = {
    "connect": "client", "default_model": "client", "model_of": "client", "MissingAPIKey": "client",
    "use": "live.session", "SpendRefused": "live.spend", "CassetteMismatch": "live.cassette",
    "run_agent": "loop", "execute_tools": "loop", "run_workflow": "workflows",
    "compare": "experiments.comparison", "comparison_table": "experiments.comparison",
    "Run": "run", "Turn": "run", "StopReason": "run",
    "tool": "tools", "Tool": "tools", "ToolError": "tools", "ToolOutcome": "tools", "run_tool": "tools",
    "toolset": "tools",
    "get_weather": "weather", "make_save_note": "weather", "task_tools": "weather", "city_task": "weather",
    "city_names": "weather",
    "Meter": "meter.middleware", "CallRecord": "meter.record", "meter_of": "meter.middleware",
    "cost_usd": "meter.prices",
    "Trace": "trace", "read_trace": "trace",
    "Simulator": "sim.server", "CarefulAgent": "sim.models.careful",
    "FunctionModel": "sim.policy", "ScriptedModel": "sim.policy", "Reply": "sim.policy",
    "run_chain": "workflows", "Link": "workflows", "run_router": "workflows", "run_sections": "workflows",
    "run_vote": "workflows", "run_orchestrator": "workflows", "run_evaluator": "workflows",
    "StepRecord": "workflows", "UnparseableOutput": "workflows",
    "Limits": "guards", "Stopped": "guards", "TaskBudget": "guards", "Executor": "executor", "run_react": "react",
    "with_cache_breakpoints": "caching", "SimClock": "sim.clock", "sweep": "experiments.sweeps",
    "run_batched": "experiments.batching",
    "plot_swimlane": "views.swimlane", "swimlane_steps": "views.swimlane",
    "compare_tactics": "context", "Compaction": "context", "ClearToolResults": "context",
    "ServerClearing": "context", "make_memory_tool": "context", "MemoryPathError": "context",
    "SubAgentFailed": "context", "ContextAgent": "sim.models.context_agent",
    "Gullible": "sim.models.gullible", "GatedExecutor": "injection.gates", "DataFlowGuard": "injection.guard",
    "Confirmation": "injection.confirm", "record_injected_run": "injection.runner",
    "plot_lost_in_the_middle": "experiments.position", "multiplying_table": "experiments.multiplying",
}

__all__ = [
    # connect: one real SDK client, simulated or live; use: where every later connect() goes (a
    # notebook's parameter cell), a live run refused before it would cross its cap, a replay that differs
    "connect", "default_model", "model_of", "MissingAPIKey", "use", "SpendRefused", "CassetteMismatch",
    # the loop and the workflow
    "run_agent", "execute_tools", "run_workflow", "compare", "comparison_table",
    "Run", "Turn", "StopReason",
    # tools
    "tool", "Tool", "ToolError", "ToolOutcome", "run_tool", "toolset",
    "get_weather", "make_save_note", "task_tools", "city_task", "city_names",
    # the meter and traces
    "Meter", "CallRecord", "meter_of", "cost_usd", "Trace", "read_trace",
    # the simulated model
    "Simulator", "CarefulAgent", "FunctionModel", "ScriptedModel", "Reply",
    # the five workflow patterns (agentlab/workflows/, one file each)
    "run_chain", "Link", "run_router", "run_sections", "run_vote", "run_orchestrator", "run_evaluator",
    "StepRecord", "UnparseableOutput",
    # who decides done (guards; a task budget is the model's advisory countdown), the tool executor, ReAct
    "Limits", "Stopped", "TaskBudget", "Executor", "run_react",
    # what a turn costs: prompt caching, the simulated clock, sweeps, Message Batches at half price
    "with_cache_breakpoints", "SimClock", "sweep", "run_batched",
    # the swim-lane picture of any run (model, host application, your code, tools)
    "plot_swimlane", "swimlane_steps",
    # context engineering: four tactics against a full window (agentlab/context/, one file each)
    "compare_tactics", "Compaction", "ClearToolResults", "ServerClearing", "make_memory_tool",
    "MemoryPathError", "SubAgentFailed", "ContextAgent",
    # untrusted content: a model that obeys injected text, and the harness's defences
    "Gullible", "GatedExecutor", "DataFlowGuard", "Confirmation", "record_injected_run",
    # position and length (cited, never simulated); agents multiplying
    "plot_lost_in_the_middle", "multiplying_table",
]


_SUBMODULES = {"meter", "views", "experiments", "sim", "workflows", "context", "injection", "grading"}
"""Subpackages reachable as attributes after a plain ``import agentlab`` (e.g. ``agentlab.views``)."""


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _WHERE:
        raise AttributeError(f"module 'agentlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if "AGENTLAB_FORBIDS" in __import__("os").environ:  # a process a student's code started during a graded test
    from agentlab.grading.forbid import guard_started_process

    guard_started_process()


if TYPE_CHECKING:  # for editors and type checkers: the same names, imported eagerly
    from agentlab.experiments.batching import run_batched
    from agentlab.caching import with_cache_breakpoints
    from agentlab.client import MissingAPIKey, connect, default_model, model_of
    from agentlab.live.cassette import CassetteMismatch
    from agentlab.live.session import use
    from agentlab.live.spend import SpendRefused
    from agentlab.context import (
        ClearToolResults,
        Compaction,
        MemoryPathError,
        ServerClearing,
        SubAgentFailed,
        compare_tactics,
        make_memory_tool,
    )
    from agentlab.executor import Executor
    from agentlab.experiments.comparison import compare, comparison_table
    from agentlab.experiments.multiplying import multiplying_table
    from agentlab.experiments.position import plot_lost_in_the_middle
    from agentlab.experiments.sweeps import sweep
    from agentlab.guards import Limits, Stopped
    from agentlab.injection.confirm import Confirmation
    from agentlab.injection.gates import GatedExecutor
    from agentlab.injection.guard import DataFlowGuard
    from agentlab.injection.runner import record_injected_run
    from agentlab.loop import execute_tools, run_agent
    from agentlab.meter.middleware import Meter, meter_of
    from agentlab.meter.record import CallRecord
    from agentlab.meter.prices import cost_usd
    from agentlab.react import run_react
    from agentlab.run import Run, StopReason, Turn
    from agentlab.sim.clock import SimClock
    from agentlab.sim.models.careful import CarefulAgent
    from agentlab.sim.models.context_agent import ContextAgent
    from agentlab.sim.models.gullible import Gullible
    from agentlab.sim.policy import FunctionModel, Reply, ScriptedModel
    from agentlab.sim.server import Simulator
    from agentlab.tools import Tool, ToolError, ToolOutcome, run_tool, tool, toolset
    from agentlab.trace import Trace, read_trace
    from agentlab.views.swimlane import plot_swimlane, swimlane_steps
    from agentlab.weather import city_names, city_task, get_weather, make_save_note, task_tools
    from agentlab.workflows import (
        Link,
        StepRecord,
        UnparseableOutput,
        run_chain,
        run_evaluator,
        run_orchestrator,
        run_router,
        run_sections,
        run_vote,
        run_workflow,
    )
