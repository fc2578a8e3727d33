"""A run's trace records turned into OpenTelemetry spans, one record at a time (see the package docstring).

:class:`Spans` is fed every record of one trace in order, each with the time it stands for, and hands back
the spans that record ended. The file export feeds a whole trace at once; the live sink feeds each record as
the run writes it. Both get the same spans.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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


class _Open:
    """A span begun and not yet ended."""

    def __init__(self, name: str, kind: SpanKind, span_id: int, parent: int | None, start: int, **attributes: Any):
        self.name, self.kind, self.span_id, self.parent, self.start = name, kind, span_id, parent, start
        self.attributes: dict[str, Any] = {k: v for k, v in attributes.items() if v is not None}
        self.events: list[Event] = []
        self.error: str | None = None


class Spans:
    """The spans of one trace, built as its records come (header first)."""

    def __init__(self, header: dict, trace_id: int, span_ids: Iterator[int], clock: str) -> None:
        """``span_ids`` gives each new span its id; ``clock`` says what the times are (``"wall"`` or ``"order"``)."""
        self.trace_id, self._ids = trace_id, span_ids
        self.model = header.get("model")
        operation = OPERATION.get(header.get("kind", "agent"), "invoke_agent")
        name = header.get("pattern") or f"agentlab {header.get('kind', 'agent')}"
        self.root: _Open | None = None
        self._root_args = (f"{operation} {name}", operation, name, clock, header)
        self.chats: dict[tuple, _Open] = {}  # (step, turn) -> its open chat span
        self.tools: dict[tuple, _Open] = {}  # (step, id or name) -> its open execute_tool span

    def add(self, record: dict, t: int) -> list[ReadableSpan]:
        """Take one record written at ``t`` (ns since the epoch); the spans it ended."""
        if self.root is None:  # the header
            title, operation, name, clock, header = self._root_args
            self.root = _Open(
                title,
                SpanKind.INTERNAL,
                next(self._ids),
                None,
                t,
                **{"gen_ai.operation.name": operation, "gen_ai.agent.name": name, "gen_ai.provider.name": PROVIDER},
                **{"gen_ai.request.model": self.model, "agentlab.clock": clock},
                **{f"agentlab.{k}": _value(v) for k, v in header.items() if k not in ("format", "version")},
            )
            return []
        kind, step = record.get("event"), record.get("step")
        if kind == "request":
            self.chats[(step, record.get("turn"))] = self._begin(
                f"chat {self.model}",
                SpanKind.CLIENT,
                t,
                **{"gen_ai.operation.name": "chat", "gen_ai.provider.name": PROVIDER},
                **{"gen_ai.request.model": self.model, "agentlab.messages": record.get("messages")},
                **{"agentlab.turn": record.get("turn"), "agentlab.step": step},
            )
            return []
        if kind == "response" and (span := self.chats.pop((step, record.get("turn")), None)) is not None:
            span.attributes.update(usage_attributes(record.get("usage") or {}))
            span.attributes["gen_ai.response.finish_reasons"] = [str(record.get("stop_reason"))]
            return [self._end(span, t)]
        if kind in ("tool_call", "code_step"):
            span = self._begin(
                f"execute_tool {record.get('name')}",
                SpanKind.INTERNAL,
                t,
                **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": record.get("name")},
                **{"gen_ai.tool.type": "function", "gen_ai.tool.call.id": record.get("id")},
                **{
                    "agentlab.turn": record.get("turn"),
                    "agentlab.step": step,
                    "agentlab.input": _value(record["input"]),
                },
                **{"agentlab.chosen_by": "model" if kind == "tool_call" else "code"},
            )
            if kind == "tool_call":
                self.tools[(step, record.get("id") or record.get("name"))] = span
                return []
            return [self._finish_tool(span, record, t)]
        if kind == "tool_result":
            key = (step, record.get("id") or next((k[1] for k in self.tools if k[0] == step), None))
            if (span := self.tools.pop(key, None)) is not None:
                return [self._finish_tool(span, record, t)]
        if kind == "stop":
            return self._stop(record, t)
        self._note(record, t)
        return []

    def _begin(self, name: str, kind: SpanKind, t: int, **attributes: Any) -> _Open:
        assert self.root is not None
        return _Open(name, kind, next(self._ids), self.root.span_id, t, **attributes)

    def _finish_tool(self, span: _Open, record: dict, t: int) -> ReadableSpan:
        span.attributes["agentlab.result"] = _value(record.get("content"))
        if record.get("is_error"):
            span.error = "tool_error"
        return self._end(span, t)

    def _note(self, record: dict, t: int) -> None:
        """Any other event: a span event on the open chat span of its turn (an event with no turn, as a failed
        attempt: on the call in flight, the latest when several are), else on the run's span."""
        fields = {k: _value(v) for k, v in record.items() if k != "event" and v is not None}
        if "turn" in record:
            span = self.chats.get((record.get("step"), record["turn"])) or self.root
        else:
            span = next(reversed(self.chats.values()), None) or self.root
        assert span is not None
        span.events.append(Event(f"agentlab.{record.get('event')}", fields, timestamp=t))
        if record.get("event") == "api_attempt" and record.get("status") and not record.get("retry"):
            span.error = str(record.get("error_type") or record.get("status"))

    def _stop(self, record: dict, t: int) -> list[ReadableSpan]:
        """The run's end: whatever is still open ends here (a call that never answered is an error)."""
        ended = []
        for span in [*self.chats.values(), *self.tools.values()]:
            span.error = span.error or "no_reply"
            ended.append(self._end(span, t))
        self.chats, self.tools = {}, {}
        root = self.root
        assert root is not None
        for k in ("reason", "turns", "guard", "observed", "limit", "error"):
            if record.get(k) is not None:
                root.attributes[f"agentlab.stop.{k}"] = _value(record[k])
        if record.get("reason") in ("error", "interrupted"):
            root.error = str(record.get("reason"))
        return [*ended, self._end(root, t)]

    def _end(self, span: _Open, t: int) -> ReadableSpan:
        status = Status(StatusCode.UNSET)
        if span.error is not None:
            span.attributes["error.type"] = span.error
            status = Status(StatusCode.ERROR, span.error)
        context = SpanContext(self.trace_id, span.span_id, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
        parent = None
        if span.parent is not None:
            parent = SpanContext(
                self.trace_id, span.parent, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED)
            )
        return ReadableSpan(
            span.name,
            context=context,
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
