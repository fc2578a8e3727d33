"""A run's trace records turned into OpenTelemetry spans, one record at a time (see the package docstring).

:class:`Spans` is fed every record of one trace in order, each with the time it stands for, and hands back
the spans that record ended. The file export feeds a whole trace at once; the live sink feeds each record as
the run writes it. Both get the same spans. Every field of every record lands in an attribute
(``agentlab.<kind>.<field>``) or a span event, so nothing of the trace is left out.
"""

from __future__ import annotations

import json
import random
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

PROVIDER = "anthropic"
"""``gen_ai.provider.name``: the API the calls went to (the simulator speaks it too)."""
OPERATION = {"agent": "invoke_agent", "react": "invoke_agent", "workflow": "invoke_workflow"}
"""The run span's ``gen_ai.operation.name`` by the trace header's ``kind``."""
SCOPE = InstrumentationScope("agentlab")
RESOURCE = Resource({"service.name": "agentlab"})
_ids = random.Random()  # its own generator: a student's random.seed() neither moves nor repeats span ids


def usage_attributes(usage: dict) -> dict[str, int]:
    """The API's ``usage`` under the GenAI names. ``gen_ai.usage.input_tokens`` counts every input token, cache
    reads and writes included (the convention's rule; the API's ``input_tokens`` leaves them out)."""
    read = int(usage.get("cache_read_input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    return {
        "gen_ai.usage.input_tokens": int(usage.get("input_tokens") or 0) + read + written,
        "gen_ai.usage.output_tokens": int(usage.get("output_tokens") or 0),
        "gen_ai.usage.cache_read.input_tokens": read,
        "gen_ai.usage.cache_creation.input_tokens": written,
    }


def _value(v: Any) -> Any:
    """An attribute value: a string, number or bool as itself, anything else as its JSON."""
    return v if isinstance(v, (str, bool, int, float)) else json.dumps(v, ensure_ascii=False, default=str)


def _fields(prefix: str, record: dict) -> dict[str, Any]:
    """Every field of ``record`` but its kind, as ``agentlab.<prefix>.<field>`` attributes."""
    return {f"agentlab.{prefix}.{k}": _value(v) for k, v in record.items() if k != "event" and v is not None}


class _Open:
    """A span begun and not yet ended."""

    def __init__(self, name: str, kind: SpanKind, parent: int | None, start: int, attributes: dict[str, Any]):
        self.name, self.kind, self.parent, self.start = name, kind, parent, start
        self.span_id = _ids.getrandbits(64) or 1
        self.attributes = {k: v for k, v in attributes.items() if v is not None}
        self.events: list[Event] = []
        self.error: str | None = None


class Spans:
    """The spans of one trace, built as its records come (header first)."""

    def __init__(self, clock: str) -> None:
        """``clock`` says what the times are: ``"wall"`` (sent as the run goes) or ``"order"`` (from a file)."""
        self.clock, self.trace_id = clock, _ids.getrandbits(128) or 1
        self.model: str | None = None
        self.root: _Open | None = None
        self.chats: dict[tuple, _Open] = {}  # (step, turn) -> its open chat span
        self.tools: dict[tuple, _Open] = {}  # (step, id or name) -> its open execute_tool span
        self.ended = False

    def add(self, record: dict, t: int) -> list[ReadableSpan]:
        """Take one record written at ``t`` (ns since the epoch); the spans it ended."""
        if self.root is None:
            self._header(record, t)
            return []
        kind, step = record.get("event"), record.get("step")
        if kind == "request":
            self.chats[(step, record.get("turn"))] = self._child(
                f"chat {self.model}",
                SpanKind.CLIENT,
                t,
                {"gen_ai.operation.name": "chat", "gen_ai.provider.name": PROVIDER, "gen_ai.request.model": self.model}
                | _fields("request", record),
            )
            return []
        if kind == "response" and (span := self.chats.pop((step, record.get("turn")), None)) is not None:
            span.attributes |= usage_attributes(record.get("usage") or {}) | _fields("response", record)
            span.attributes["gen_ai.response.finish_reasons"] = [str(record.get("stop_reason"))]
            return [self._end(span, t)]
        if kind in ("tool_call", "code_step"):
            span = self._child(
                f"execute_tool {record.get('name')}",
                SpanKind.INTERNAL,
                t,
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": record.get("name")}
                | {"gen_ai.tool.type": "function", "gen_ai.tool.call.id": record.get("id")}
                | {"gen_ai.tool.call.arguments": _value(record.get("input"))}
                | {"agentlab.chosen_by": "model" if kind == "tool_call" else "code"}
                | _fields("call", record),
            )
            if kind == "tool_call":
                self.tools[(step, record.get("id") or record.get("name"))] = span
                return []
            return [self._finish_tool(span, record, t)]
        if kind == "tool_result" and (span := self._open_tool(record)) is not None:
            self.tools = {k: v for k, v in self.tools.items() if v is not span}
            return [self._finish_tool(span, record, t)]
        if kind == "stop":
            return self._close(t, record)
        self._note(record, t)
        return []

    def finish(self, t: int) -> list[ReadableSpan]:
        """A trace that ends without ``stop`` (a killed run): what is still open ends here, as an error."""
        return self._close(t, None) if self.root is not None and not self.ended else []

    def _header(self, header: dict, t: int) -> None:
        self.model = header.get("model")
        operation = OPERATION.get(header.get("kind", "agent"), "invoke_agent")
        name = header.get("pattern") or f"agentlab {header.get('kind', 'agent')}"
        attributes = {"gen_ai.operation.name": operation, "gen_ai.agent.name": name, "gen_ai.provider.name": PROVIDER}
        if operation == "invoke_workflow":
            attributes["gen_ai.workflow.name"] = name  # the name semconv 1.41 gives it; newer drafts use agent.name
        attributes |= {"gen_ai.request.model": self.model, "agentlab.clock": self.clock}
        attributes |= {f"agentlab.{k}": _value(v) for k, v in header.items() if k not in ("format", "version")}
        self.root = _Open(f"{operation} {name}", SpanKind.INTERNAL, None, t, attributes)

    def _child(self, name: str, kind: SpanKind, t: int, attributes: dict[str, Any]) -> _Open:
        assert self.root is not None
        return _Open(name, kind, self.root.span_id, t, attributes)

    def _open_tool(self, record: dict) -> _Open | None:
        """The open tool span a record is about: by its id, else (a ReAct action has none) its step's first."""
        step, id_ = record.get("step"), record.get("id")
        if id_ is not None:
            return self.tools.get((step, id_))
        return next((s for (st, _), s in self.tools.items() if st == step), None)

    def _finish_tool(self, span: _Open, record: dict, t: int) -> ReadableSpan:
        span.attributes["gen_ai.tool.call.result"] = _value(record.get("content"))
        span.attributes |= _fields("result", record)
        if record.get("is_error"):
            span.error = span.error or "tool_error"
        return self._end(span, t)

    def _note(self, record: dict, t: int) -> None:
        """Any other event, as a span event: on the tool span its ``id`` names, else the chat span of its step and
        turn, else the one chat span open (a failed attempt has no turn), else the run's span."""
        step, open_chats = record.get("step"), list(self.chats.values())
        if "id" in record and (tool := self._open_tool(record)) is not None:
            span = tool
            if record.get("event") == "blocked":
                span.error = "blocked"  # refused before it ran: its tool_result is the refusal
        elif "turn" in record and (step, record["turn"]) in self.chats:
            span = self.chats[(step, record["turn"])]
        elif "step" in record and len(mine := [s for (st, _), s in self.chats.items() if st == step]) == 1:
            span = mine[0]
        elif "turn" not in record and "step" not in record and len(open_chats) == 1:
            span = open_chats[0]
        else:
            span = self.root
        assert span is not None
        attributes = {k: _value(v) for k, v in record.items() if k != "event" and v is not None}
        span.events.append(Event(f"agentlab.{record.get('event')}", attributes, timestamp=t))

    def _close(self, t: int, stop: dict | None) -> list[ReadableSpan]:
        """The run's end (``stop``: its stop record; ``None``: the trace stops short): what is still open ends
        here, a call that never answered as an error."""
        ended = []
        for span in [*self.chats.values(), *self.tools.values()]:
            span.error = span.error or "no_reply"
            ended.append(self._end(span, t))
        self.chats, self.tools = {}, {}
        root = self.root
        assert root is not None
        if stop is None:
            root.error = "no_stop"  # the trace has no stop event: the run was killed, or is still going
        else:
            root.attributes |= _fields("stop", stop)
            if stop.get("reason") in ("error", "interrupted"):
                root.error = str(stop["reason"])
        self.ended = True
        return [*ended, self._end(root, t)]

    def _end(self, span: _Open, t: int) -> ReadableSpan:
        status = Status(StatusCode.UNSET)
        if span.error is not None:
            span.attributes["error.type"] = span.error
            status = Status(StatusCode.ERROR, span.error)
        flags = TraceFlags(TraceFlags.SAMPLED)
        parent = None if span.parent is None else SpanContext(self.trace_id, span.parent, False, flags)
        return ReadableSpan(
            span.name,
            context=SpanContext(self.trace_id, span.span_id, False, flags),
            parent=parent,
            resource=RESOURCE,
            attributes=span.attributes,
            events=span.events,
            kind=span.kind,
            status=status,
            start_time=span.start,
            end_time=max(t, span.start),
            instrumentation_scope=SCOPE,
        )
