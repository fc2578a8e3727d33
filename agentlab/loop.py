"""The agent loop: the course's ``while stop_reason == "tool_use"`` made real, and bounded.

    messages = [task]
    for turn in 1..max_turns:                      # the harness, not the model, bounds the loop
        reply = model(messages, tools)             # the whole history is re-sent every turn
        messages += [reply]
        if reply.stop_reason == "pause_turn": continue   # a paused server-side turn: send it back as is
        if reply.stop_reason != "tool_use": stop   # the model decided it is done (or was cut off)
        messages += [run every tool_use, answer each id once, in one user message]
    stop: max_turns

With ``limits=`` the ``for`` becomes ``while budget.check() is None``: every guard of
``agentlab.guards`` is checked before each call (token and USD budgets after it too), and the
trace's ``stop`` event names the guard, the value it saw and its limit.

The model only *requests* tool calls; this code runs them. Every step goes to the trace as it
happens, so a crash keeps what happened.

At the ``max_turns`` limit the tools the model asked for in that last turn are still run and
answered (so the conversation stays valid and can be resumed), but no model call reads their
results: their side effects happen, and ``final_text`` is whatever the model last wrote.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Generator

from agentlab.caching import with_cache_breakpoints
from agentlab.client import model_of
from agentlab.executor import Executor, not_run
from agentlab.guards import Limits, Stopped, TaskBudget, as_task_budget, stopped_by, with_task_budget
from agentlab.hints import task_lang
from agentlab.interrupts import stop_on_signals
from agentlab.live.spend import SpendRefused
from agentlab.meter.middleware import meter_of
from agentlab.protocols import ContextStrategy, ToolRunner
from agentlab.run import Run, StopReason
from agentlab.sim.effort import LEVELS as EFFORTS
from agentlab.sim.server import did_you_mean
from agentlab.tools import Tool, run_tool, toolset
from agentlab.trace import Trace

DEFAULT_MAX_TURNS = 10
"""Turn limit when none is given: every loop is bounded."""


def run_agent(
    client: Any,
    task: str,
    tools: list[Tool],
    *,
    model: str | None = None,
    system: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_tokens: int = 1024,
    trace: str | Path | None = None,
    limits: Limits | None = None,
    executor: ToolRunner | None = None,
    cache: bool | str = False,
    context: ContextStrategy | None = None,
    tool_choice: dict | None = None,
    stop_sequences: list[str] | None = None,
    task_budget: TaskBudget | int | None = None,
    effort: str | None = None,
) -> Run:
    """Run ``task`` as an agent: the model chooses each next step, the harness executes and bounds it.

    ``limits`` (a :class:`~agentlab.guards.Limits`) replaces ``max_turns`` with every guard;
    ``executor`` runs each turn's tool calls (default: one after another; see ``agentlab.executor``);
    ``cache=True`` (or ``"5m"`` / ``"1h"``) marks prompt-cache breakpoints on tools, system and the
    growing history each turn (:func:`agentlab.caching.with_cache_breakpoints`); ``context`` (see
    ``agentlab.context``) may rewrite the history and add request fields before each call
    (``before_call``) and read each reply (``after_call``); its rewrites start new conversations, so
    the run's turns are then all of this thread's calls. ``before_call`` may return a guard's
    ``Stopped`` instead: the run then ends with that typed reason (e.g. ``COMPACTION_FAILED``).
    ``tool_choice`` goes into every request as is, e.g. ``{"type": "auto", "disable_parallel_tool_use": True}``
    for at most one tool call per turn (https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use).
    ``stop_sequences`` goes into every request too: a reply that writes one ends with ``stop_reason:
    "stop_sequence"`` (the run's ``STOP_SEQUENCE``), cut before it
    (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
    ``task_budget`` (tokens, or a :class:`~agentlab.guards.TaskBudget`) goes into every request as
    ``output_config.task_budget`` with its beta header: a countdown the *model* sees and may heed; unlike
    ``limits``, nothing stops the run at it (https://platform.claude.com/docs/en/build-with-claude/task-budgets).
    ``effort`` (``"low"`` ... ``"max"``) goes into every request as ``output_config.effort``: how many tokens
    the model is willing to spend (https://platform.claude.com/docs/en/build-with-claude/effort).

    It drives :func:`agent_steps` (the loop itself), answering each request with ``client.messages.create``.
    """
    steps = agent_steps(client, task, tools, model=model, system=system, max_turns=max_turns, max_tokens=max_tokens,
                        trace=trace, limits=limits, executor=executor, cache=cache, context=context,
                        tool_choice=tool_choice, stop_sequences=stop_sequences, task_budget=task_budget,
                        effort=effort)
    return drive(steps, lambda request: (client.messages.create(**request), {}))


def drive(steps: Generator[dict, Any, Run], answer: Callable[[dict], tuple[Any, dict]]) -> Run:
    """Run :func:`agent_steps` to its end: each request it yields is answered by ``answer(request)``, a
    ``(Message, fields for the response event)`` pair; an exception ``answer`` raises is raised inside the loop
    (a ``SpendRefused`` ends the run typed, any other is written to the trace and re-raised)."""
    try:
        request = next(steps)
        while True:  # bounded: agent_steps yields at most once per turn, and its turns are bounded
            try:
                reply = answer(request)
            except BaseException as e:  # noqa: BLE001  (the loop decides: typed stop, or trace and re-raise)
                request = steps.throw(e)
            else:
                request = steps.send(reply)
    except StopIteration as done:
        return done.value


def agent_steps(
    client: Any,
    task: str,
    tools: list[Tool],
    *,
    model: str | None = None,
    system: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_tokens: int = 1024,
    trace: str | Path | None = None,
    limits: Limits | None = None,
    executor: ToolRunner | None = None,
    cache: bool | str = False,
    context: ContextStrategy | None = None,
    tool_choice: dict | None = None,
    stop_sequences: list[str] | None = None,
    task_budget: TaskBudget | int | None = None,
    effort: str | None = None,
) -> Generator[dict, Any, Run]:
    """The agent loop as steps (options as :func:`run_agent`): it yields each model request and takes back
    ``(reply, fields)``, the reply a ``Message`` and ``fields`` added to the trace's ``response`` event (a
    Message Batch's ``batch_id``, say); it returns the :class:`Run`. ``run_agent`` answers each request
    with one call; ``agentlab.batching`` answers many runs' requests with one Message Batch."""
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a whole number >= 1, got {max_turns!r}")
    if limits is not None and max_turns != DEFAULT_MAX_TURNS:
        raise ValueError(f"run_agent(max_turns={max_turns!r}, limits=...): give the turn limit once, as Limits(max_turns=...)")
    if model is not None and not isinstance(model, str):
        raise TypeError(f"run_agent(model={model!r}): give the model id as a string, e.g. model='claude-sonnet-5-5'")
    known = getattr(getattr(client, "agentlab_simulator", None), "models", None)  # a simulator client knows its ids
    if model is not None and known is not None and model not in known:
        raise ValueError(f"run_agent(model={model!r}): no such model on the simulator; "
                         + (did_you_mean(model, known) or f"the models are {', '.join(sorted(known))}.")
                         + " (`agentlab models` lists them)")
    budget = (limits or Limits(max_turns=max_turns)).start()
    lang = task_lang(task)  # the harness's own words to the model (errors, refusals) in the task's language
    executor = executor or Executor(lang=lang)
    model = model or model_of(client)
    by_name = toolset(tools)
    meter = meter_of(client)
    start, t0 = meter.mark(), time.perf_counter()
    messages: list[dict] = [{"role": "user", "content": task}]
    if tool_choice is not None and not (isinstance(tool_choice, dict) and isinstance(tool_choice.get("type"), str)):
        raise ValueError(f"run_agent(tool_choice={tool_choice!r}): give a dict with a 'type', "
                         "e.g. {'type': 'auto', 'disable_parallel_tool_use': True}")
    if stop_sequences is not None and not (isinstance(stop_sequences, (list, tuple))
                                           and all(isinstance(x, str) and x for x in stop_sequences)):
        raise ValueError(f"run_agent(stop_sequences={stop_sequences!r}): give a list of non-empty strings, "
                         "e.g. stop_sequences=['FINAL ANSWER:']")
    advisory = as_task_budget(task_budget)  # seen by the model, never enforced here: see guards.TaskBudget
    if effort is not None and effort not in EFFORTS:
        raise ValueError(f"run_agent(effort={effort!r}): give one of {', '.join(map(repr, EFFORTS))}, or None for the model's default")
    extra = {"system": system} if system else {}
    specs = [t.spec() for t in by_name.values()]
    with Trace(trace, kind="agent", model=model, task=task, tools=list(by_name),
               max_turns=budget.limits.max_turns) as tr, stop_on_signals(tr):
        text, turn = "", 0
        while (stopped := budget.check()) is None:  # the harness decides whether another call happens
            turn += 1
            step = context.before_call(client, model, messages, tr, turn) if context else (messages, {})
            if isinstance(step, Stopped):  # the context strategy ended the run: typed, with observed and limit
                stopped, turn = step, turn - 1
                break
            messages, more = step
            req = with_cache_breakpoints(messages, specs, system, cache) if cache else {"messages": messages, "tools": specs, **extra}
            request = {"model": model, "max_tokens": max_tokens, **req, **more}
            if tool_choice is not None:
                request["tool_choice"] = tool_choice
            if stop_sequences:
                request["stop_sequences"] = list(stop_sequences)
            if effort is not None:
                request["output_config"] = {**request.get("output_config", {}), "effort": effort}
            if advisory is not None:
                request = with_task_budget(request, advisory)
            if (stopped := budget.before_call(request)) is not None:  # could cross max_usd: not sent
                turn -= 1
                break
            tr.event("request", turn=turn, messages=len(request["messages"]))  # flushed first: a crash keeps it
            try:
                reply, fields = yield request  # the model call: run_agent's, or one request of a batch
            except SpendRefused as refused:  # the session cap (connect(max_usd=...)) refused it before sending
                stopped, turn = stopped_by(refused), turn - 1
                break
            content, usage = as_json(reply)
            tr.event("response", turn=turn, stop_reason=reply.stop_reason, content=content, usage=usage, **fields)
            if context:
                context.after_call(reply, tr, turn)
            messages.append({"role": "assistant", "content": content})
            said = " ".join(b["text"] for b in content if b["type"] == "text").strip()
            text = said if reply.stop_reason == "refusal" else said or text  # a refusal keeps no earlier text
            budget.after_call(content, usage, reply.model)
            if reply.stop_reason == "pause_turn":  # the server paused a long turn: send it back to continue
                continue
            if reply.stop_reason != "tool_use":
                break
            late = budget.check(after_call=True)  # token and USD budgets are known only now
            results = not_run(content, late, lang) if late else executor(content, by_name, tr, turn)
            budget.after_tools(results)
            _keep_valid(content)
            messages.append({"role": "user", "content": results})
            if late:
                stopped = late
                break
        stop, unknown = (stopped.reason, {}) if stopped else model_stop(reply.stop_reason if turn else None)
        tr.stop(stop.value, turns=turn, final_text=text, **(stopped.fields() if stopped else unknown))
    calls = meter.own_calls(start, any_conversation=context is not None)
    return Run.finish(kind="agent", model=model, meter=meter, since=start, started=t0, calls=calls, stop=stop,
                      final_text=text, messages=messages, trace=trace, tool_results=_results(tr),
                      detail=stopped.detail if stopped else unknown.get("detail", ""))


def model_stop(stop_reason: str | None) -> tuple[StopReason, dict]:
    """The typed stop reason for a model's ``stop_reason`` (``end_turn``, ``max_tokens`` even mid-``tool_use``,
    ``refusal``, ...), and ``UNKNOWN_STOP_REASON`` with a ``detail`` naming it for one this harness does
    not know (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons): never raises."""
    try:
        stop = StopReason(stop_reason)
    except ValueError:
        stop = None
    if stop is None or stop_reason in ("tool_use",) or stop.value not in MODEL_STOPS:
        return StopReason.UNKNOWN_STOP_REASON, {"detail": f"stop_reason {stop_reason!r}"}
    return stop, {}


MODEL_STOPS = ("end_turn", "max_tokens", "stop_sequence", "refusal", "pause_turn", "model_context_window_exceeded")
"""The API's stop reasons that end a run as themselves (``tool_use`` continues the loop; ``pause_turn`` too,
until the turn limit)."""


def call_model(client: Any, trace: Any, at: dict, note: dict | None = None, **request: Any) -> tuple[Any, list[dict], dict]:
    """One metered, traced model call: ``client.messages.create(**request)`` (the client's Meter records it)
    between a ``request`` event (flushed first, so a crash keeps it) and a ``response`` event.

    ``trace`` is anything with ``event(kind, **fields)`` (a :class:`~agentlab.trace.Trace`, a workflow's
    ``Steps``); ``at`` names the call in both events (``{"turn": 3}``, ``{"step": "chaining/write"}``) and
    ``note`` adds fields to the request event. Returns the reply, its content and its usage as JSON.
    """
    trace.event("request", **at, messages=len(request["messages"]), **(note or {}))
    reply = client.messages.create(**request)
    content, usage = as_json(reply)
    trace.event("response", **at, stop_reason=reply.stop_reason, content=content, usage=usage)
    return reply, content, usage


def as_json(reply: Any) -> tuple[list[dict], dict]:
    """A reply's content blocks and usage as the API's JSON (what the trace and the history keep)."""
    return ([b.model_dump(mode="json", exclude_none=True) for b in reply.content],
            reply.usage.model_dump(mode="json", exclude_none=True))


def execute_tools(content: list[Any], tools: dict[str, Tool] | list[Tool], trace: Trace | None = None,
                  turn: int = 0) -> list[dict]:
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


def _keep_valid(content: list[dict]) -> None:
    """A ``tool_use`` the SDK read with ``input: null`` is re-sent with ``{}`` (the API requires an object);
    it was already answered as an error."""
    for block in content:
        if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
            block["input"] = {}


def _results(trace: Trace) -> list[dict]:
    """The executed tools as ``{"name", "input", "content", "is_error"}``, read back from the trace."""
    calls = {e["id"]: e for e in trace.events if e.get("event") == "tool_call"}
    return [{"name": calls[e["id"]]["name"], "input": calls[e["id"]]["input"], "content": e["content"],
             "is_error": e["is_error"]} for e in trace.events if e.get("event") == "tool_result"]
