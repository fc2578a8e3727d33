"""agentlab: a teaching lab for the LLM agent loop.

An agent is a loop in *your* code around a model that only ever *requests* tool calls; each turn
re-sends the whole history and costs tokens and money. A workflow runs the same task on a code path
fixed in advance. agentlab runs both, offline on a simulated Claude or live on the real API, through
the same ``anthropic.Anthropic`` client, and measures them side by side.
"""

import importlib

# The public API, listed once: module -> the names it defines, grouped by course topic. Each is imported on
# first use (PEP 562), so `import agentlab.grading` (the autograder) does not pay for the SDK and jsonschema
# imports (~2 s) it never uses.
_API = {
    # connect: one real SDK client, simulated or live; use: where every later connect() goes (a notebook's
    # parameter cell), a live run refused before it would cross its cap, a replay that differs
    "client": ["connect", "default_model", "model_of", "MissingAPIKey"],
    "live.session": ["use"],
    "live.spend": ["SpendRefused"],
    "live.cassette": ["CassetteMismatch"],
    # the loop (and, below, the workflow: the same task on a fixed path)
    "loop": ["run_agent", "execute_tools"],
    "experiments.comparison": ["compare", "comparison_table"],
    "run": ["Run", "Turn", "StopReason"],
    # tools, and the course task's
    "tools": ["tool", "Tool", "ToolError", "ToolOutcome", "run_tool", "toolset"],
    "weather": ["get_weather", "make_save_note", "task_tools", "city_task", "city_names"],
    # the meter and traces
    "meter.middleware": ["Meter", "meter_of"],
    "meter.record": ["CallRecord"],
    "meter.prices": ["cost_usd"],
    "trace": ["Trace", "read_trace"],
    # the simulated model
    "sim.server": ["Simulator"],
    "sim.models.careful": ["CarefulAgent"],
    "sim.policy": ["FunctionModel", "ScriptedModel", "Reply"],
    # the workflow, and the five workflow patterns (agentlab/workflows/, one file each)
    "workflows": [
        "run_workflow",
        "run_chain",
        "Link",
        "run_router",
        "run_sections",
        "run_vote",
        "run_orchestrator",
        "run_evaluator",
        "StepRecord",
        "UnparseableOutput",
    ],
    # who decides done (guards; a task budget is the model's advisory countdown), the tool executor, ReAct
    "guards": ["Limits", "Stopped", "TaskBudget"],
    "executor": ["Executor"],
    "react": ["run_react"],
    # what a turn costs: prompt caching, the simulated clock, sweeps, Message Batches at half price
    "caching": ["with_cache_breakpoints"],
    "sim.clock": ["SimClock"],
    "experiments.sweeps": ["sweep"],
    "experiments.batching": ["run_batched"],
    # the swim-lane picture of any run (model, host application, your code, tools)
    "views.swimlane": ["plot_swimlane", "swimlane_steps"],
    # context engineering: four tactics against a full window (agentlab/context/, one file each)
    "context": [
        "compare_tactics",
        "Compaction",
        "ClearToolResults",
        "ServerClearing",
        "make_memory_tool",
        "MemoryPathError",
        "SubAgentFailed",
    ],
    "sim.models.context_agent": ["ContextAgent"],
    # untrusted content: a model that obeys injected text, and the harness's defences
    "sim.models.gullible": ["Gullible"],
    "injection.gates": ["GatedExecutor"],
    "injection.guard": ["DataFlowGuard"],
    "injection.confirm": ["Confirmation"],
    "injection.runner": ["record_injected_run"],
    # position and length (cited, never simulated); agents multiplying
    "experiments.position": ["plot_lost_in_the_middle"],
    "experiments.multiplying": ["multiplying_table"],
}
_WHERE = {name: module for module, names in _API.items() for name in names}
"""Each public name -> the module (under ``agentlab.``) that defines it."""
__all__ = list(_WHERE)


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
