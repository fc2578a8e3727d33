"""What every workflow pattern shares: one metered, traced step at a time, named by its path.

    with Steps(client, "orchestrator", trace=path) as wf:
        plan = wf.ask("orchestrator/plan", prompt, schema=PLAN)    # one model call, parsed and checked
        ...                                                        # wf.code(...) runs a tool as a step
        return wf.finish(StopReason.COMPLETED, text)               # the same Run the agent returns

Each model call goes through the client (so its Meter records it, as for the agent) and is also
attributed to its step: the step's :class:`StepRecord` holds a ``Turn`` built from that reply's
``usage``. Steps may run in threads (parallel patterns): the records and the trace are guarded by a
lock, and a step that finishes after the workflow has stopped (a timed-out worker) is dropped.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agentlab.client import model_of
from agentlab.guards import Stopped, stopped_by
from agentlab.harness import call_model, model_stop
from agentlab.live.spend import SpendRefused
from agentlab.meter.middleware import meter_of
from agentlab.meter.usage import Usage
from agentlab.run import Run, StopReason, Turn
from agentlab.tools import Tool, run_tool
from agentlab.trace import Trace
from agentlab.views.i18n import tr
from agentlab.workflows.parsing import UnparseableOutput, check_bound, parse_json

__all__ = ["Steps", "StepRecord", "GuardStopped", "guarded", "UnparseableOutput", "check_bound", "parse_json"]


ANSWERS = ("end_turn", "max_tokens", "stop_sequence", "pause_turn", "tool_use")
"""Stop reasons after which a step's text is used (a pattern checks ``max_tokens`` itself, as city_compare
does); ``refusal`` and unknown ones end the workflow with their typed reason."""
MAX_PAUSES = 3
"""How often one step sends a ``pause_turn`` answer back to continue it (every loop is bounded)."""


class GuardStopped(Exception):
    """A guard of the workflow's :class:`~agentlab.guards.Limits` said stop before a model call."""

    def __init__(self, steps: "Steps", stopped: Any) -> None:
        super().__init__(f"{stopped.guard}: observed {stopped.observed}, limit {stopped.limit}")
        self.steps, self.stopped = steps, stopped


def guarded(pattern: Callable[..., Run]) -> Callable[..., Run]:
    """Make a pattern end with the guard's typed stop reason (a ``Run``, the trace's ``stop`` naming the
    guard, the observed value and the limit) when its ``limits`` stop it, as ``run_agent`` does."""

    @functools.wraps(pattern)
    def run(*args: Any, **kwargs: Any) -> Run:
        try:
            return pattern(*args, **kwargs)
        except GuardStopped as e:
            fields = {k: v for k, v in e.stopped.fields().items() if k != "detail"}
            return e.steps.finish(e.stopped.reason, "", f"stopped by the guard {e}", **fields)

    return run


@dataclass
class StepRecord:
    """One step of a workflow run."""

    path: str
    """Where the step sits, e.g. ``"orchestrator/worker[2]"``."""
    status: str = "ok"
    """``"ok"``, ``"failed"`` (an exception), ``"timeout"`` (too slow), ``"unparseable"`` or ``"rejected"`` (a gate said no)."""
    output: Any = None
    """What the step produced: text, parsed JSON, or a tool's content."""
    raw: str = ""
    """The model's raw text for a model step (kept even when it could not be parsed)."""
    turns: list[Turn] = field(default_factory=list)
    """The model calls of this step (empty for a code step)."""
    wall_s: float = 0.0
    """Seconds the step took."""
    error: str = ""
    """Why the step did not succeed, readable."""
    messages: list[dict] = field(default_factory=list)
    """A model step's conversation: the prompt sent and the reply's content (empty for a code step)."""

    @property
    def input_tokens(self) -> int:
        """Input tokens of this step's calls."""
        return sum(t.input_tokens for t in self.turns)

    @property
    def output_tokens(self) -> int:
        """Output tokens of this step's calls."""
        return sum(t.output_tokens for t in self.turns)


class Steps:
    """One workflow run: its trace, its step records, its meter mark (see the module docstring)."""

    def __init__(
        self,
        client: Any,
        pattern: str,
        *,
        model: str | None = None,
        trace: str | Path | None = None,
        max_tokens: int = 512,
        limits: Any = None,
        **header: Any,
    ) -> None:
        check_bound("max_tokens", max_tokens, 1, 64000)
        self.client, self.pattern, self.max_tokens = client, pattern, max_tokens
        self.model = model or model_of(client)
        self.meter = meter_of(client)
        self.start, self.t0 = self.meter.mark(), time.perf_counter()
        self.trace_path = str(trace) if trace else None
        self.trace = Trace(trace, kind="workflow", pattern=pattern, model=self.model, **header)
        self.records: list[StepRecord] = []
        self.tool_results: list[dict] = []
        self._lock = threading.Lock()
        self._calls = 0
        self._requests = 0
        self.budget = limits.start() if limits is not None else None
        """The run's guards (``Limits.start()``), checked before every model call; ``None``: no guards."""

    def __enter__(self) -> "Steps":
        self.trace.__enter__()  # the current trace of this thread: failed and retried attempts are written to it
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if isinstance(exc, GuardStopped):  # @guarded writes the stop event with the guard's figures
            return self.trace.leave()
        self.trace.__exit__(exc_type, exc, tb)

    def event(self, kind: str, **fields: Any) -> None:
        """Append a trace event, unless the run has already stopped (a late worker)."""
        with self._lock:
            if not self.trace.stopped:
                self.trace.event(kind, **fields)

    def record(self, rec: StepRecord) -> StepRecord:
        """Keep a step's record (dropped if the run already stopped)."""
        with self._lock:
            if not self.trace.stopped:
                self.records.append(rec)
        return rec

    def ask(
        self,
        path: str,
        prompt: str,
        *,
        system: str | None = None,
        schema: dict | None = None,
        max_tokens: int | None = None,
        check: dict | None = None,
    ) -> Any:
        """One model call as step ``path``: its text, or with ``schema`` its parsed JSON (JSON outputs,
        ``output_config.format``). Raises :class:`UnparseableOutput` (recorded first) when it does not parse;
        ``check``: validate with this (looser) schema instead, e.g. so a router handles an off-list label itself."""
        extra: dict[str, Any] = {"system": system} if system else {}
        if schema is not None:
            extra["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        if self.budget is not None:
            with self._lock:
                stopped = self.budget.check()
            if stopped is not None:
                self.fail(path, "stopped", f"{stopped.guard}: observed {stopped.observed}, limit {stopped.limit}")
                raise GuardStopped(self, stopped)
        with self._lock:  # the run's call number, as the agent's turn: request and response both carry it
            self._requests += 1
            call = self._requests
        t0 = time.perf_counter()
        request = {
            "model": self.model,
            "max_tokens": max_tokens or self.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
            **extra,
        }
        if self.budget is not None:
            with self._lock:
                stopped = self.budget.before_call(request)  # could cross max_usd: not sent
            if stopped is not None:
                self.fail(path, "stopped", f"{stopped.guard}: observed {stopped.observed}, limit {stopped.limit}")
                raise GuardStopped(self, stopped)
        try:
            reply, content, usage = call_model(
                self.client, self, {"turn": call, "step": path}, {"structured": schema is not None}, **request
            )
            for _ in range(MAX_PAUSES):  # a paused server-side turn: send it back as is to continue it
                if reply.stop_reason != "pause_turn":
                    break
                more = [*request["messages"], {"role": "assistant", "content": content}]
                reply, content, usage = call_model(
                    self.client,
                    self,
                    {"turn": call, "step": path},
                    {"continues": "pause_turn"},
                    **{**request, "messages": more},
                )
        except SpendRefused as refused:  # the session cap refused the call before sending it
            self.fail(path, "stopped", str(refused))
            raise GuardStopped(self, stopped_by(refused)) from None
        wall = time.perf_counter() - t0
        with self._lock:
            if self.budget is not None:
                self.budget.after_call(content, usage, reply.model)
            self._calls += 1
            index = self._calls
        if reply.stop_reason not in ANSWERS:  # refused, or a stop reason this harness does not know: end typed
            stop, _ = model_stop(reply.stop_reason)
            self.fail(path, "stopped", f"the model stopped with stop_reason {reply.stop_reason!r}")
            raise GuardStopped(self, Stopped(stop, "stop_reason", reply.stop_reason, "one of " + ", ".join(ANSWERS)))
        tokens = Usage.from_api(reply.usage)
        turn = Turn(
            index=index,
            input_tokens=tokens.input_tokens,
            output_tokens=tokens.output_tokens,
            reprefill_tokens=0,
            stop_reason=reply.stop_reason,
            wall_s=wall,
            model=reply.model,
            cache_read_tokens=tokens.cache_read_tokens,
            cache_write_tokens=tokens.cache_write_tokens,
            cache_write_1h_tokens=tokens.cache_write_1h_tokens,
        )
        text = " ".join(b["text"] for b in content if b["type"] == "text").strip()
        rec = StepRecord(
            path,
            output=text,
            raw=text,
            turns=[turn],
            wall_s=wall,
            messages=[*request["messages"], {"role": "assistant", "content": content}],
        )
        if schema is not None:
            try:
                rec.output = parse_json(path, text, check or schema)
            except UnparseableOutput as e:
                rec.status, rec.error = "unparseable", str(e)
                self.record(rec)
                raise
        self.record(rec)
        return rec.output

    def code(self, path: str, fn: Callable[..., Any], *args: Any) -> StepRecord:
        """Run ``fn(*args)`` as a code step (a tool, a lookup); failures are recorded, not raised."""
        name = getattr(fn, "name", getattr(fn, "__name__", "code"))
        t0 = time.perf_counter()
        try:
            rec = StepRecord(path, output=fn(*args))
        except Exception as e:  # a code step's failure is data for the workflow to act on
            rec = StepRecord(path, status="failed", error=f"{type(e).__name__}: {e}")
        rec.wall_s = time.perf_counter() - t0
        failed = rec.status != "ok"
        self.event(
            "code_step",
            step=path,
            name=name,
            input=list(map(_jsonable, args)),
            content=rec.error if failed else _jsonable(rec.output),
            is_error=failed,
        )
        return self.record(rec)

    def tool(self, path: str, tool: Tool, tool_input: dict) -> StepRecord:
        """Run an agentlab tool as a code step; its outcome also goes to ``Run.tool_results``."""
        t0 = time.perf_counter()
        out = run_tool({tool.name: tool}, tool.name, tool_input)
        self.event("code_step", step=path, name=tool.name, input=tool_input, content=out.content, is_error=out.is_error)
        with self._lock:
            self.tool_results.append(
                {"name": tool.name, "input": tool_input, "content": out.content, "is_error": out.is_error}
            )
        rec = StepRecord(
            path,
            status="failed" if out.is_error else "ok",
            output=out.content,
            wall_s=time.perf_counter() - t0,
            error=out.content if out.is_error else "",
        )
        return self.record(rec)

    def fail(self, path: str, status: str, error: str, raw: str = "") -> StepRecord:
        """Record a step that did not succeed (a rejected gate, a timed-out worker) in records and trace."""
        self.event("step_failed", step=path, status=status, error=error)
        return self.record(StepRecord(path, status=status, error=error, raw=raw))

    def concurrently(
        self, jobs: list[tuple[str, Callable[[], Any]]], *, max_workers: int, timeout: float
    ) -> dict[str, StepRecord | None]:
        """Run ``(path, fn)`` jobs in threads; each returns its fn's value in a record, or a failed/timeout
        record. The stage waits at most ``timeout`` seconds per wave of ``max_workers`` jobs."""
        outcomes: dict[str, StepRecord | None] = {}
        pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=f"agentlab-{self.pattern}")
        futures = {pool.submit(self.trace.carried(fn)): path for path, fn in jobs}
        waves = -(-len(jobs) // max_workers)
        done, late = wait(futures, timeout=timeout * waves)
        pool.shutdown(wait=False, cancel_futures=True)  # never wait for a straggler
        for fut, path in futures.items():
            if fut in late:
                outcomes[path] = self.fail(path, "timeout", f"no result within {timeout:g} s (per_worker_timeout)")
            elif fut.exception() is not None:
                e = fut.exception()
                outcomes[path] = self.fail(
                    path,
                    "unparseable" if isinstance(e, UnparseableOutput) else "failed",
                    f"{type(e).__name__}: {e}",
                    getattr(e, "raw", ""),
                )
            else:
                outcomes[path] = StepRecord(path, output=fut.result())
        stops = [fut.exception() for fut in done if isinstance(fut.exception(), GuardStopped)]
        if stops:  # a guard stopped a worker: the whole workflow stops, as the agent would
            raise stops[0]
        return outcomes

    def finish(self, stop: StopReason, text: str, detail: str = "", **stop_fields: Any) -> Run:
        """Write the ``stop`` event as the agent's reads (``turns``: the model calls made; ``detail`` only when
        there is one) and return the run as the agent's :class:`Run`. ``detail`` is written in the notebook's
        language (:func:`agentlab.views.i18n.tr`: the zh-CN edition prints why a workflow stopped in Chinese)."""
        detail = tr(detail)
        with self._lock:
            self.trace.stop(
                stop.value,
                turns=self._calls,
                final_text=text,
                **({"detail": detail} if detail else {}),
                steps=[{"path": r.path, "status": r.status} for r in self.records],
                **stop_fields,
            )
        # no messages: a workflow has no single conversation, each step had its own (see steps and the trace)
        return Run.finish(
            kind="workflow",
            model=self.model,
            meter=self.meter,
            since=self.start,
            started=self.t0,
            stop=stop,
            final_text=text,
            trace=self.trace_path,
            tool_results=self.tool_results,
            steps=self.records,
            pattern=self.pattern,
            detail=detail,
        )


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)
