"""What surrounds each model call of the agent loop (:func:`agentlab.loop.run_agent`): its options, checked
once, and the hooks it calls around each call.

    options = AgentOptions(**kwargs)               # every option of run_agent, checked when built
    with Harness(client, task, tools, options) as harness:
        request = harness.before_call(messages)    # None: a guard, the context strategy or the cap says stop;
                                                   #   else the request: built once, extended with this turn's history
        content = harness.after_call(reply)        # trace, budgets, context strategy; the reply as the history keeps it
        results = harness.run_tools()              # the executor answers every tool_use (or says why none ran)
    run = harness.run(messages)                    # the Run, from the meter's records of the replies

The trace is written as the run goes (``request`` before each call, ``response`` after, the executor's
``tool_call`` and ``tool_result``, ``stop`` at the end), so a crash keeps what happened; SIGINT and SIGTERM
end it with ``interrupted`` (``agentlab.interrupts``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentlab.api.profiles import did_you_mean
from agentlab.api.request import EFFORT_LEVELS as EFFORTS
from agentlab.caching import with_cache_breakpoints
from agentlab.client import model_of
from agentlab.executor import Executor, not_run
from agentlab.guards import Limits, Stopped, TaskBudget, as_task_budget, stopped_by, with_task_budget
from agentlab.hints import task_lang
from agentlab.interrupts import stop_on_signals
from agentlab.meter.middleware import meter_of
from agentlab.protocols import ContextStrategy, ToolRunner
from agentlab.run import Run, StopReason
from agentlab.tools import Tool, toolset
from agentlab.trace import Trace

DEFAULT_MAX_TURNS = 10
"""Turn limit when none is given: every loop is bounded."""
MODEL_STOPS = ("end_turn", "max_tokens", "stop_sequence", "refusal", "pause_turn", "model_context_window_exceeded")
"""The API's stop reasons that end a run as themselves (``tool_use`` continues the loop; ``pause_turn`` too,
until the turn limit)."""


@dataclass(frozen=True)
class AgentOptions:
    """Every option of ``run_agent``, in one object, checked when it is built."""

    model: str | None = None
    """The model id; ``None``: the client's (``agentlab.model_of(client)``)."""
    system: str | None = None
    """A system prompt for every call."""
    max_turns: int = DEFAULT_MAX_TURNS
    """Most model calls (with ``limits``, give it there instead)."""
    max_tokens: int = 1024
    """``max_tokens`` of every call: the most the model may write in one reply."""
    trace: str | Path | None = None
    """Where to write the run's JSONL trace, as it goes; ``None``: kept in memory only."""
    otlp: str | None = None
    """An OTLP receiver's address (``http://localhost:4318``): the trace also goes there as spans, as the run goes
    (:mod:`agentlab.otel`; default ``$AGENTLAB_OTLP``)."""
    limits: Limits | None = None
    """Every guard (``agentlab.guards.Limits``); it replaces ``max_turns``."""
    executor: ToolRunner | None = None
    """Runs each turn's tool calls (default: one after another, ``agentlab.executor.Executor``)."""
    cache: bool | str = False
    """``True``, ``"5m"`` or ``"1h"``: prompt-cache breakpoints on tools, system and the growing history."""
    context: ContextStrategy | None = None
    """May rewrite the history and add request fields before each call, and read each reply (``agentlab.context``)."""
    tool_choice: dict | None = None
    """Goes into every request as is, e.g. ``{"type": "auto", "disable_parallel_tool_use": True}``."""
    stop_sequences: list[str] | None = None
    """Go into every request: a reply that writes one ends with ``stop_reason: "stop_sequence"``, cut before it."""
    task_budget: TaskBudget | int | None = None
    """``output_config.task_budget`` (with its beta header) in every request: a countdown the model sees; nothing
    stops the run at it (https://platform.claude.com/docs/en/build-with-claude/task-budgets)."""
    effort: str | None = None
    """``output_config.effort`` in every request, ``"low"`` ... ``"max"``
    (https://platform.claude.com/docs/en/build-with-claude/effort)."""

    def __post_init__(self) -> None:
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"max_turns must be a whole number >= 1, got {self.max_turns!r}")
        if self.limits is not None and self.max_turns != DEFAULT_MAX_TURNS:
            raise ValueError(
                f"run_agent(max_turns={self.max_turns!r}, limits=...): give the turn limit once, "
                "as Limits(max_turns=...)"
            )
        if self.model is not None and not isinstance(self.model, str):
            raise TypeError(
                f"run_agent(model={self.model!r}): give the model id as a string, e.g. model='claude-sonnet-5-5'"
            )
        if self.tool_choice is not None and not (
            isinstance(self.tool_choice, dict) and isinstance(self.tool_choice.get("type"), str)
        ):
            raise ValueError(
                f"run_agent(tool_choice={self.tool_choice!r}): give a dict with a 'type', "
                "e.g. {'type': 'auto', 'disable_parallel_tool_use': True}"
            )
        if self.stop_sequences is not None and not (
            isinstance(self.stop_sequences, (list, tuple))
            and all(isinstance(x, str) and x for x in self.stop_sequences)
        ):
            raise ValueError(
                f"run_agent(stop_sequences={self.stop_sequences!r}): give a list of non-empty strings, "
                "e.g. stop_sequences=['FINAL ANSWER:']"
            )
        if self.effort is not None and self.effort not in EFFORTS:
            raise ValueError(
                f"run_agent(effort={self.effort!r}): give one of {', '.join(map(repr, EFFORTS))}, "
                "or None for the model's default"
            )
        as_task_budget(self.task_budget)  # raises on a value that is no budget
        if self.otlp is not None and not isinstance(self.otlp, str):
            raise TypeError(f"run_agent(otlp={self.otlp!r}): give the receiver's address, e.g. 'http://localhost:4318'")

    def request(self, model: str, specs: list[dict]) -> dict:
        """The part of every request that never changes during the run (everything but ``messages``)."""
        marked = with_cache_breakpoints([], specs, self.system, self.cache) if self.cache else {}
        request: dict[str, Any] = {"model": model, "max_tokens": self.max_tokens, "tools": marked.get("tools", specs)}
        if self.system:
            request["system"] = marked.get("system", self.system)
        if self.tool_choice is not None:
            request["tool_choice"] = self.tool_choice
        if self.stop_sequences:
            request["stop_sequences"] = list(self.stop_sequences)
        if self.effort is not None:
            request["output_config"] = {"effort": self.effort}
        budget = as_task_budget(self.task_budget)
        return with_task_budget(request, budget) if budget is not None else request


class Harness:
    """The hooks around each model call of one agent run (see the module docstring for the order)."""

    def __init__(self, client: Any, task: str, tools: list[Tool], options: AgentOptions) -> None:
        known = getattr(getattr(client, "agentlab_simulator", None), "models", None)  # a simulator knows its ids
        if options.model is not None and known is not None and options.model not in known:
            raise ValueError(
                f"run_agent(model={options.model!r}): no such model on the simulator; "
                + (did_you_mean(options.model, known) or f"the models are {', '.join(sorted(known))}.")
                + " (`agentlab models` lists them)"
            )
        self.client, self.options, self.tools = client, options, toolset(tools)
        self.model = options.model or model_of(client)
        self.lang = task_lang(task)  # the harness's own words to the model (errors, refusals) in the task's language
        self.executor = options.executor or Executor(lang=self.lang)
        self.budget = (options.limits or Limits(max_turns=options.max_turns)).start()
        self.meter = meter_of(client)
        self.request = options.request(self.model, [t.spec() for t in self.tools.values()])  # built once
        self.trace = Trace(
            options.trace,
            options.otlp,
            kind="agent",
            model=self.model,
            task=task,
            tools=list(self.tools),
            max_turns=self.budget.limits.max_turns,
        )
        self.last_stop: str | None = None
        """The ``stop_reason`` of the latest reply (``None`` before the first)."""
        self.calls: list[Any] = []
        """The meter's record of each reply (and of any call the context strategy made for the run), in order:
        the run's turns."""
        self.stopped: Stopped | None = None
        """The guard (or cap, or context strategy) that ended the run; ``None`` while it goes on, or when the model did."""
        self.turn = 0
        """Model calls sent so far."""
        self.text = ""
        """The last text the model wrote (a refusal keeps no earlier text)."""
        self._content: list[dict] = []
        self._since, self._t0 = self.meter.mark(), time.perf_counter()
        self._signals = stop_on_signals(self.trace)

    def __enter__(self) -> Harness:
        self.trace.__enter__()
        self._signals.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if exc[1] is None:
                stop, fields = self.ending()
                self.trace.stop(stop.value, turns=self.turn, final_text=self.text, **fields)
        finally:
            try:
                self._signals.__exit__(*exc)
            finally:
                self.trace.__exit__(*exc)

    def before_call(self, messages: list[dict]) -> dict | None:
        """The request for the next call, or ``None`` when the run stops here. The context strategy may replace
        ``messages`` (in place: a compacted history is the history from now on) and add fields to this request."""
        if self.stopped is not None or (stopped := self.budget.check()) is not None:
            self.stopped = self.stopped or stopped
            return None
        more: dict = {}
        if self.options.context is not None:
            mark = self.meter.mark()
            step = self.options.context.before_call(self.client, self.model, messages, self.trace, self.turn + 1)
            me = threading.get_ident()  # calls the strategy made for the run (a summary, say) are the run's too
            self.calls += [c for c in self.meter.calls[mark:] if c.thread == me]
            if isinstance(step, Stopped):  # the strategy ended the run: typed, with observed and limit
                self.stopped = step
                return None
            messages[:], more = step
        sent = with_cache_breakpoints(messages, ttl=self.options.cache)["messages"] if self.options.cache else messages
        request = _extended(self.request, more, sent)
        if (stopped := self.budget.before_call(request)) is not None:  # could cross max_usd: not sent
            self.stopped = stopped
            return None
        self.turn += 1
        self.trace.event("request", turn=self.turn, messages=len(sent))  # flushed first: a crash keeps it
        return request

    def refused(self, refused: Exception) -> None:
        """The session cap (``connect(max_usd=...)``) refused the call before sending it: the run ends typed."""
        self.stopped, self.turn = stopped_by(refused), self.turn - 1

    def after_call(self, reply: Any) -> list[dict]:
        """Read one reply: trace, context strategy, budgets. Returns its content as the history keeps it."""
        content, usage = as_json(reply)
        record = self.meter.record_of(reply.id)
        if record is None:
            raise LookupError(
                f"run_agent: the reply {reply.id!r} was not metered by the client's Meter; make the "
                "client with agentlab.connect()"
            )
        self.calls.append(record)
        batch = {"batch_id": record.batch} if record.batch else {}
        self.trace.event(
            "response",
            turn=self.turn,
            stop_reason=reply.stop_reason,
            content=content,
            usage=usage,
            **reply_details(reply),
            **batch,
        )
        if self.options.context is not None:
            self.options.context.after_call(reply, self.trace, self.turn)
        said = " ".join(b["text"] for b in content if b["type"] == "text").strip()
        self.text = said if reply.stop_reason == "refusal" else said or self.text
        self.budget.after_call(content, record.tokens, reply.model)  # the meter's reading of the usage
        self.last_stop = reply.stop_reason
        self._content = content
        return content

    def run_tools(self) -> list[dict]:
        """The last reply's ``tool_result`` blocks, one per ``tool_use``: from the executor, or, when a budget
        known only after the call (tokens, USD) has run out, answers saying why none ran (the run then stops)."""
        content = self._content
        late = self.budget.check(after_call=True)
        results = (
            not_run(content, late, self.lang) if late else self.executor(content, self.tools, self.trace, self.turn)
        )
        self.budget.after_tools(results)
        for block in content:  # a tool_use read with input null is re-sent with {} (the API requires an object)
            if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
                block["input"] = {}
        self.stopped = late
        return results

    def ending(self) -> tuple[StopReason, dict]:
        """Why the run ended, and what the trace's ``stop`` event records of it: the guard's reason and
        figures, else the model's last ``stop_reason`` (with a ``detail`` when it is one this harness does not know)."""
        return (self.stopped.reason, self.stopped.fields()) if self.stopped else model_stop(self.last_stop)

    def run(self, messages: list[dict]) -> Run:
        """The finished run: its turns are the meter's records of the replies held here (``calls``)."""
        stop, fields = self.ending()
        return Run.finish(
            kind="agent",
            model=self.model,
            meter=self.meter,
            since=self._since,
            started=self._t0,
            calls=self.calls,
            stop=stop,
            final_text=self.text,
            messages=messages,
            trace=self.options.trace,
            tool_results=_results(self.trace),
            detail=fields.get("detail", ""),
        )


def _extended(request: dict, more: dict, messages: list[dict]) -> dict:
    """``request`` (built once) with this turn's ``messages`` and a context strategy's fields ``more``; where both
    set ``output_config``, ``extra_body`` or ``extra_headers``, the two are merged (betas joined)."""
    out = {**request, **more, "messages": messages}
    for key in ("output_config", "extra_body"):
        if key in more and key in request:
            out[key] = {**more[key], **request[key]}
    if "extra_headers" in more and "extra_headers" in request:
        betas = [b.strip() for h in (more, request) for b in h["extra_headers"].get("anthropic-beta", "").split(",")]
        out["extra_headers"] = {
            **more["extra_headers"],
            **request["extra_headers"],
            "anthropic-beta": ",".join(dict.fromkeys(b for b in betas if b)),
        }
    return out


def model_stop(stop_reason: str | None) -> tuple[StopReason, dict]:
    """The typed stop reason for a model's ``stop_reason`` (``end_turn``, ``max_tokens`` even mid-``tool_use``,
    ``refusal``, ...), and ``UNKNOWN_STOP_REASON`` with a ``detail`` naming it for one this harness does
    not know (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons): never raises."""
    try:
        stop = StopReason(stop_reason)
    except ValueError:
        stop = None
    if stop is None or stop.value not in MODEL_STOPS:
        return StopReason.UNKNOWN_STOP_REASON, {"detail": f"stop_reason {stop_reason!r}"}
    return stop, {}


def call_model(
    client: Any, trace: Any, at: dict, note: dict | None = None, **request: Any
) -> tuple[Any, list[dict], dict]:
    """One metered, traced model call: ``client.messages.create(**request)`` (the client's Meter records it)
    between a ``request`` event (flushed first, so a crash keeps it) and a ``response`` event.

    ``trace`` is anything with ``event(kind, **fields)`` (a :class:`~agentlab.trace.Trace`, a workflow's
    ``Steps``); ``at`` names the call in both events (``{"turn": 3}``, ``{"step": "chaining/write"}``) and
    ``note`` adds fields to the request event. Returns the reply, its content and its usage as JSON.
    """
    trace.event("request", **at, messages=len(request["messages"]), **(note or {}))
    reply = client.messages.create(**request)
    content, usage = as_json(reply)
    trace.event("response", **at, stop_reason=reply.stop_reason, content=content, usage=usage, **reply_details(reply))
    return reply, content, usage


def reply_details(reply: Any) -> dict:
    """What the reply says besides its content and usage, as the API's JSON, for the trace's ``response`` event:
    ``stop_details`` (a refusal's category) and ``diagnostics`` (why the prompt cache missed, when asked), each
    only when the reply has it."""
    out = {}
    for name in ("stop_details", "diagnostics"):
        details = getattr(reply, name, None)
        if details is not None:
            out[name] = details if isinstance(details, dict) else details.model_dump(mode="json")
    return out


def as_json(reply: Any) -> tuple[list[dict], dict]:
    """A reply's content blocks and usage as the API's JSON (what the trace and the history keep)."""
    return (
        [b.model_dump(mode="json", exclude_none=True) for b in reply.content],
        reply.usage.model_dump(mode="json", exclude_none=True),
    )


def _results(trace: Trace) -> list[dict]:
    """The executed tools as ``{"name", "input", "content", "is_error"}``, read back from the trace."""
    calls = {e["id"]: e for e in trace.events if e.get("event") == "tool_call"}
    return [
        {
            "name": calls[e["id"]]["name"],
            "input": calls[e["id"]]["input"],
            "content": e["content"],
            "is_error": e["is_error"],
        }
        for e in trace.events
        if e.get("event") == "tool_result"
    ]
