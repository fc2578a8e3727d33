"""The agent loop: the course's ``while stop_reason == "tool_use"`` made real, and bounded.

    messages = [task]
    while the harness allows another call:           # turn limit and every guard: the harness decides
        reply = model(messages, tools)               # the whole history is re-sent every turn
        messages += [reply]
        if reply.stop_reason == "pause_turn": continue   # a paused server-side turn: send it back as is
        if reply.stop_reason != "tool_use": stop     # the model decided it is done (or was cut off)
        messages += [run every tool_use, answer each id once, in one user message]

:func:`run_agent` is that loop, line for line. The model only *requests* tool calls; this code runs
them. What happens around each call (the guards, the trace, a context strategy, cache breakpoints)
is in :class:`agentlab.harness.Harness`, whose hooks the loop calls by name.

At the ``max_turns`` limit the tools the model asked for in that last turn are still run and
answered (so the conversation stays valid and can be resumed), but no model call reads their
results: their side effects happen, and ``final_text`` is whatever the model last wrote.
"""

from __future__ import annotations

from typing import Any

from agentlab.harness import DEFAULT_MAX_TURNS, MODEL_STOPS, AgentOptions, Harness, model_stop
from agentlab.live.spend import SpendRefused
from agentlab.run import Run
from agentlab.tools import Tool, run_tool, toolset
from agentlab.trace import Trace

__all__ = ["DEFAULT_MAX_TURNS", "MODEL_STOPS", "execute_tools", "model_stop", "run_agent"]


def run_agent(client: Any, task: str, tools: list[Tool], **options: Any) -> Run:
    """Run ``task`` as an agent: the model chooses each next step, the harness executes and bounds it.
    ``options`` are :class:`agentlab.harness.AgentOptions`' fields (``max_turns``, ``limits``, ``trace``, ...)."""
    messages: list[dict] = [{"role": "user", "content": task}]
    with Harness(client, task, tools, AgentOptions(**options)) as harness:  # options checked once; trace opened
        while (request := harness.before_call(messages)) is not None:  # guards, context, cap: or stop
            try:
                reply = client.messages.create(**request)  # the whole history, re-sent every turn
            except SpendRefused as refused:  # the session cap refused it unsent
                harness.refused(refused)
                break
            messages.append({"role": "assistant", "content": harness.after_call(reply)})
            if reply.stop_reason == "pause_turn":
                continue  # a paused server-side turn: send it back
            if reply.stop_reason != "tool_use":
                break  # the model is done (or was cut off)
            messages.append({"role": "user", "content": harness.run_tools()})  # one tool_result per tool_use id
    return harness.run(messages)


def execute_tools(
    content: list[Any], tools: dict[str, Tool] | list[Tool], trace: Trace | None = None, turn: int = 0
) -> list[dict]:
    """Run every ``tool_use`` block in order; one ``tool_result`` per id, failures as ``is_error``.

    ``content`` may hold dicts or SDK blocks; ``tools`` a list or a name-to-tool dict.
    """
    by_name = tools if isinstance(tools, dict) else toolset(tools)
    trace = trace if trace is not None else Trace()
    results = []
    for block in content:
        block = block.model_dump(mode="json", exclude_none=True) if hasattr(block, "model_dump") else block
        if block["type"] != "tool_use":
            continue
        tool_input = block.get("input")  # the SDK drops an ``input`` of null: run_tool reports it as is_error
        trace.event("tool_call", turn=turn, id=block["id"], name=block["name"], input=tool_input)
        outcome = run_tool(by_name, block["name"], tool_input)
        trace.event("tool_result", turn=turn, id=block["id"], content=outcome.content, is_error=outcome.is_error)
        result = {"type": "tool_result", "tool_use_id": block["id"], "content": outcome.content}
        if outcome.is_error:
            result["is_error"] = True
        results.append(result)
    return results
