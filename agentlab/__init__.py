"""agentlab: a teaching lab for the LLM agent loop.

An agent is a loop in *your* code around a model that only ever *requests* tool calls; each turn
re-sends the whole history and costs tokens and money. A workflow runs the same task on a code path
fixed in advance. agentlab runs both, offline on a simulated Claude or live on the real API, through
the same ``anthropic.Anthropic`` client, and measures them side by side.
"""

from .accounting import CallRecord, Meter, cost_usd, meter_of
from .compare import compare, comparison_table
from .connect import MissingAPIKey, connect, default_model, model_of
from .loop import execute_tools, run_agent
from .run import Run, StopReason, Turn
from .sim.careful import CarefulAgent
from .sim.policy import FunctionModel, Reply, ScriptedModel
from .sim.server import Simulator
from .tools import Tool, ToolError, ToolOutcome, run_tool, tool
from .trace import Trace, read_trace
from .weather import city_task, get_weather, make_save_note, task_tools
from .workflows import run_workflow

__all__ = [
    # connect: one real SDK client, simulated or live
    "connect", "default_model", "model_of", "MissingAPIKey",
    # the loop and the workflow
    "run_agent", "execute_tools", "run_workflow", "compare", "comparison_table",
    "Run", "Turn", "StopReason",
    # tools
    "tool", "Tool", "ToolError", "ToolOutcome", "run_tool",
    "get_weather", "make_save_note", "task_tools", "city_task",
    # accounting and traces
    "Meter", "CallRecord", "meter_of", "cost_usd", "Trace", "read_trace",
    # the simulated model
    "Simulator", "CarefulAgent", "FunctionModel", "ScriptedModel", "Reply",
]
