"""A run's trace as OpenTelemetry spans (agentlab/otel/): sent to a local OTLP receiver and decoded with
``opentelemetry-proto``, written as OTLP/JSON, and sent as the run goes."""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

import agentlab
from agentlab.cli import main
from agentlab.otel import export
from agentlab.otel.cli import file_spans
from agentlab.trace import Trace, read_trace

TASK = "Which is warmer today, Paris or London? Compare their temperatures, then save a note with the answer."


class Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1: keeps every ``/v1/traces`` request, decoded."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["content-length"]))
                if self.path == "/v1/traces" and self.headers["content-type"] == "application/x-protobuf":
                    outer.requests.append(ExportTraceServiceRequest.FromString(body))
                    self.send_response(200)
                else:
                    self.send_response(404)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list:
        return [s for r in self.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


def attrs(span) -> dict:
    """A decoded span's attributes as a plain dict."""
    out = {}
    for kv in span.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        out[kv.key] = list(v.string_value for v in value.values) if kind == "array_value" else value
    return out


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.server.shutdown()


@pytest.fixture(scope="module")
def cached_run(tmp_path_factory):
    """The city task as an agent with cache breakpoints (so cache reads and writes are in the usage): its trace
    file and the Meter's records of its calls."""
    path = tmp_path_factory.mktemp("otel") / "agent.jsonl"
    client = agentlab.connect("sim", quiet=True)
    tools = agentlab.task_tools(path.parent / "notes")
    system = "You compare the weather of cities for a travel desk. " * 200  # past the shortest prefix a cache keeps
    run = agentlab.run_agent(client, TASK, tools, trace=path, cache=True, system=system)
    return path, agentlab.meter_of(client).calls, run


def test_a_run_exported_to_otlp_has_every_model_call_and_tool_call_with_the_meters_tokens(cached_run, receiver):
    path, calls, run = cached_run
    assert main(["trace", "export", str(path), "--otlp", receiver.url]) == 0
    spans = receiver.spans()
    chats = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "chat"]
    tools = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "execute_tool"]
    (root,) = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "invoke_agent"]
    assert len(chats) == len(calls) == len(run.turns) >= 3
    assert sum(c.usage["cache_read_input_tokens"] for c in calls) > 0, "the run read from the cache"
    for span, call in zip(sorted(chats, key=lambda s: attrs(s)["agentlab.turn"]), calls):
        a, u = attrs(span), call.usage
        prompt = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        assert a["gen_ai.usage.input_tokens"] == prompt, "input tokens count cache reads and writes (the convention)"
        assert a["gen_ai.usage.output_tokens"] == u["output_tokens"]
        assert a["gen_ai.usage.cache_read.input_tokens"] == u["cache_read_input_tokens"]
        assert a["gen_ai.usage.cache_creation.input_tokens"] == u["cache_creation_input_tokens"]
        assert a["gen_ai.response.finish_reasons"] == [call.stop_reason]
        assert span.name == f"chat {call.model}" and span.kind == span.SPAN_KIND_CLIENT
    ran = [e for e in read_trace(path) if e.get("event") == "tool_call"]
    assert [(attrs(s)["gen_ai.tool.name"], attrs(s)["gen_ai.tool.call.id"]) for s in tools] == [
        (e["name"], e["id"]) for e in ran
    ]
    assert all(attrs(s)["agentlab.chosen_by"] == "model" for s in tools)
    assert {s.parent_span_id for s in chats + tools} == {root.span_id} and not root.parent_span_id
    assert len({s.trace_id for s in spans}) == 1
    assert attrs(root)["agentlab.clock"] == "order" and attrs(root)["agentlab.stop.reason"] == "end_turn"
    starts = [s.start_time_unix_nano for s in sorted(chats + tools, key=lambda s: s.start_time_unix_nano)]
    assert len(set(starts)) == len(starts), "records are laid out in their order, 1 ms apart"


def test_the_json_file_is_the_same_request_in_otlp_json(cached_run, receiver):
    path, _, _ = cached_run
    spans = file_spans(path, start_ns=1_700_000_000_000_000_000)
    export.send(spans, receiver.url)
    out = export.write_json(spans, path.parent / "agent.otlp.json")
    doc = json.loads(out.read_text())
    for rs in doc["resourceSpans"]:
        for span in rs["scopeSpans"][0]["spans"]:
            assert all(len(span[k]) in (16, 32) and int(span[k], 16) for k in ("traceId", "spanId")), "hex ids"
            for k in ("traceId", "spanId", "parentSpanId"):  # protobuf's own JSON has base64 ids
                if k in span:
                    span[k] = base64.b64encode(bytes.fromhex(span[k])).decode()
    assert ParseDict(doc, ExportTraceServiceRequest()) == receiver.requests[0]


def test_the_same_file_exports_the_same_ids_and_a_workflow_shows_what_its_code_chose():
    wf = agentlab.__path__[0] + "/data/traces/workflow.jsonl"
    a, b = file_spans(wf), file_spans(wf)
    assert [s.context.span_id for s in a] == [s.context.span_id for s in b]
    assert {s.context.trace_id for s in a} == {b[0].context.trace_id}
    root = a[-1]
    assert root.attributes["gen_ai.operation.name"] == "invoke_workflow" and root.name == "invoke_workflow city_compare"
    steps = [s for s in a if s.attributes["gen_ai.operation.name"] == "execute_tool"]
    assert [s.attributes["agentlab.chosen_by"] for s in steps] == ["code", "code", "code"]


def test_events_between_spans_become_span_events_and_an_unanswered_call_is_an_error(tmp_path):
    path = tmp_path / "t.jsonl"
    with Trace(path, kind="agent", model="claude-sonnet-5-5") as t:
        t.event("request", turn=1, messages=1)
        t.event("api_attempt", status=529, retry=False, error_type="overloaded_error")
        t.event("blocked", turn=1, id="toolu_1", name="send_money", defence="gate", reason="not approved")
        t.stop("error", error="OverloadedError")
    spans = file_spans(path)
    chat, root = spans
    assert chat.status.status_code.name == "ERROR" and chat.attributes["error.type"] == "overloaded_error"
    assert [e.name for e in chat.events] == ["agentlab.api_attempt", "agentlab.blocked"]
    assert chat.events[1].attributes["reason"] == "not approved"
    assert root.status.status_code.name == "ERROR" and root.attributes["agentlab.stop.error"] == "OverloadedError"


def test_a_run_with_otlp_sends_its_spans_as_it_goes_on_the_wall_clock(cached_run, receiver, tmp_path):
    client = agentlab.connect("sim", quiet=True)
    run = agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path), otlp=receiver.url)
    spans = receiver.spans()  # flushed when the run's stop was written
    names = sorted(s.name for s in spans)
    file_names = sorted(s.name for s in file_spans(cached_run[0]))
    assert names == file_names and len(spans) == len(run.turns) + len(run.tool_results) + 1
    (root,) = [s for s in spans if not s.parent_span_id]
    assert attrs(root)["agentlab.clock"] == "wall"
    assert all(root.start_time_unix_nano <= s.start_time_unix_nano <= s.end_time_unix_nano for s in spans)


def test_agentlab_otlp_sends_every_runs_spans_and_no_throwaway_traces(receiver, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTLAB_OTLP", receiver.url)
    Trace().stop("end_turn")  # a throwaway trace (an executor's own): no kind, nothing sent
    client = agentlab.connect("sim", quiet=True)
    agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path))
    roots = [s for s in receiver.spans() if not s.parent_span_id]
    assert [attrs(r)["gen_ai.operation.name"] for r in roots] == ["invoke_agent"]


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_a_receiver_that_is_down_costs_one_line_and_the_run_goes_on(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(export, "TIMEOUT_S", 1.0)
    client = agentlab.connect("sim", quiet=True)
    tools = agentlab.task_tools(tmp_path / "notes")
    run = agentlab.run_agent(client, TASK, tools, trace=tmp_path / "t.jsonl", otlp=_closed_port())
    assert run.stop_reason.value == "end_turn"
    assert read_trace(tmp_path / "t.jsonl")[-1]["event"] == "stop", "the trace file is whole"
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("agentlab: could not send spans to "), err
    assert main(["trace", "export", str(tmp_path / "t.jsonl"), "--otlp", _closed_port()]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_spans_that_fail_to_build_stop_with_one_line_and_the_run_goes_on(receiver, monkeypatch, capsys, tmp_path):
    from agentlab.otel import spans

    def broken(self, record, t):
        raise KeyError("input")

    monkeypatch.setattr(spans.Spans, "add", broken)
    client = agentlab.connect("sim", quiet=True)
    run = agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path), trace=tmp_path / "t.jsonl", otlp=receiver.url)
    assert run.stop_reason.value == "end_turn" and read_trace(tmp_path / "t.jsonl")[-1]["event"] == "stop"
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("agentlab: no more spans for this run (KeyError"), err


def test_bad_input_is_refused_in_one_line(tmp_path, capsys):
    assert main(["trace", "export", str(tmp_path / "none.jsonl"), "--json", str(tmp_path / "x.json")]) == 1
    assert "none.jsonl" in capsys.readouterr().err
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n')
    assert main(["trace", "export", str(tmp_path / "bad.jsonl"), "--json", str(tmp_path / "x.json")]) == 1
    assert "not an agentlab trace header" in capsys.readouterr().err
    assert main(["trace", "export", str(tmp_path / "bad.jsonl"), "--otlp", "localhost:4318"]) == 1
    assert "give the receiver's http(s) address" in capsys.readouterr().err
    with pytest.raises(ValueError, match="http://localhost:4318"):
        agentlab.run_agent(agentlab.connect("sim", quiet=True), TASK, [], otlp="4318")


def test_without_the_extra_a_trace_with_otlp_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    for name in [m for m in sys.modules if m.startswith("opentelemetry.sdk") or m == "agentlab.otel.export"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'agentlab\[otel\]'"):
        Trace(otlp="http://localhost:4318")
    Trace(tmp_path / "t.jsonl").stop("end_turn")  # without otlp, traces never need it
    assert main(["trace", "export", str(tmp_path / "t.jsonl"), "--json", str(tmp_path / "x.json")]) == 2
    assert "pip install 'agentlab[otel]'" in capsys.readouterr().err


PHOENIX = os.environ.get("AGENTLAB_TEST_PHOENIX")
"""A running Phoenix's address (``phoenix serve``: http://localhost:6006); Phoenix is not in the lock."""


@pytest.mark.skipif(not PHOENIX, reason="set AGENTLAB_TEST_PHOENIX to a running Phoenix (docs/en/traces.md)")
def test_phoenix_lists_an_exported_run_with_every_span(cached_run):
    import urllib.request

    path, calls, _ = cached_run
    spans = file_spans(path)
    export.send(spans, PHOENIX)
    trace_id = f"{spans[0].context.trace_id:032x}"
    for _ in range(50):  # Phoenix writes what it received in the background: up to 10 s
        with urllib.request.urlopen(f"{PHOENIX}/v1/projects/default/spans?limit=1000") as r:
            listed = [s for s in json.load(r)["data"] if s["context"]["trace_id"] == trace_id]
        if len(listed) == len(spans):
            break
        time.sleep(0.2)
    assert sorted(s["name"] for s in listed) == sorted(s.name for s in spans)
    chats = [s for s in listed if s["name"].startswith("chat ")]
    assert sorted(s["attributes"]["gen_ai.usage.output_tokens"] for s in chats) == sorted(
        c.usage["output_tokens"] for c in calls
    )
