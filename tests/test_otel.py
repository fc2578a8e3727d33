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
from agentlab.sim.policy import ScriptedModel
from agentlab.trace import Trace, read_trace

TASK = "Which is warmer today, Paris or London? Compare their temperatures, then save a note with the answer."


class Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1: keeps every ``/v1/traces`` request, decoded."""

    def __init__(self, port: int = 0) -> None:
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

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list:
        return [s for r in self.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]

    def wait(self, roots: int = 1) -> list:
        """The spans once ``roots`` runs' spans have come (the live path sends within half a second), up to 20 s."""
        for _ in range(200):  # bounded
            if sum(not s.parent_span_id for s in self.spans()) >= roots:
                break
            time.sleep(0.1)
        return self.spans()


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
    for span, call in zip(sorted(chats, key=lambda s: attrs(s)["agentlab.request.turn"]), calls):
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
            assert isinstance(span["kind"], int) and isinstance(span.get("status", {}).get("code", 0), int)
            for k in ("traceId", "spanId", "parentSpanId"):  # protobuf's own JSON has base64 ids
                if k in span:
                    span[k] = base64.b64encode(bytes.fromhex(span[k])).decode()
    assert ParseDict(doc, ExportTraceServiceRequest()) == receiver.requests[0]


def test_every_field_of_every_record_is_in_a_span():
    path = agentlab.__path__[0] + "/data/traces/agent.jsonl"
    spans = file_spans(path)
    seen = {str(v) for s in spans for v in s.attributes.values()}
    seen |= {str(v) for s in spans for e in s.events for v in e.attributes.values()}
    for record in read_trace(path):
        for k, v in record.items():
            if k not in ("event", "format", "version") and v is not None:
                as_attr = v if isinstance(v, (str, bool, int, float)) else json.dumps(v, ensure_ascii=False)
                assert str(as_attr) in seen, f"{record.get('event', 'header')}.{k} is in no span"


def test_each_export_is_a_trace_of_its_own_and_a_workflow_shows_what_its_code_chose():
    wf = agentlab.__path__[0] + "/data/traces/workflow.jsonl"
    a, b = file_spans(wf), file_spans(wf)
    assert {s.context.trace_id for s in a}.isdisjoint({s.context.trace_id for s in b}), "two identical files"
    root = a[-1]
    assert root.attributes["gen_ai.operation.name"] == "invoke_workflow" and root.name == "invoke_workflow city_compare"
    assert root.attributes["gen_ai.workflow.name"] == root.attributes["gen_ai.agent.name"] == "city_compare"
    steps = [s for s in a if s.attributes["gen_ai.operation.name"] == "execute_tool"]
    assert [s.attributes["agentlab.chosen_by"] for s in steps] == ["code", "code", "code"]


def _trace(tmp_path, write) -> dict:
    """The spans, by name (`` (root)`` after the run's), of a trace that ``write(trace)`` wrote."""
    path = tmp_path / "t.jsonl"
    t = Trace(path, kind="agent", model="claude-sonnet-5-5")
    write(t)
    t.close()
    return {s.name + ("" if s.parent else " (root)"): s for s in file_spans(path)}


def test_a_retried_call_that_answered_is_no_error_and_one_that_never_answered_is(tmp_path):
    def write(t):
        t.event("request", turn=1, messages=1)
        t.event("api_attempt", status=529, retry=False, error_type="overloaded_error")
        t.event("api_attempt", status=200, retry=True)
        t.event("response", turn=1, stop_reason="end_turn", content=[], usage={"input_tokens": 5, "output_tokens": 1})
        t.event("request", turn=2, messages=3)
        t.stop("error", error="OverloadedError")

    path = tmp_path / "t.jsonl"
    t = Trace(path, kind="agent", model="claude-sonnet-5-5")
    write(t)
    first, second, root = file_spans(path)
    assert first.status.status_code.name == "UNSET" and [e.name for e in first.events] == ["agentlab.api_attempt"] * 2
    assert second.status.status_code.name == "ERROR" and second.attributes["error.type"] == "no_reply"
    assert root.status.status_code.name == "ERROR" and root.attributes["agentlab.stop.error"] == "OverloadedError"


def test_a_blocked_call_is_its_tool_spans_error_and_a_cut_off_trace_still_ends(tmp_path):
    def write(t):
        t.event("request", turn=1, messages=1)
        t.event("response", turn=1, stop_reason="tool_use", content=[], usage={"input_tokens": 5, "output_tokens": 9})
        t.event("tool_call", turn=1, id="toolu_1", name="send_money", input={"to": "x"})
        t.event("blocked", turn=1, id="toolu_1", name="send_money", defence="gate", reason="not approved")
        t.event("tool_result", turn=1, id="toolu_1", content="refused: not approved", is_error=True)
        t.event("request", turn=2, messages=3)  # and then the process was killed: no response, no stop

    spans = _trace(tmp_path, write)
    tool = spans["execute_tool send_money"]
    assert tool.attributes["error.type"] == "blocked" and [e.name for e in tool.events] == ["agentlab.blocked"]
    assert spans["invoke_agent agentlab agent (root)"].attributes["error.type"] == "no_stop"
    assert spans["chat claude-sonnet-5-5"].attributes["error.type"] == "no_reply", "the unanswered call ends too"


def test_parallel_steps_keep_their_own_events(tmp_path):
    def write(t):
        for step in ("s1", "s2"):
            t.event("request", step=step, turn=1, messages=1)
        t.event("step_failed", step="s2", status="timeout", error="worker timed out")
        t.event("api_attempt", status=529, retry=False, error_type="overloaded_error")  # whose? two calls open
        t.event("response", step="s1", turn=1, stop_reason="end_turn", content=[], usage={"output_tokens": 1})
        t.stop("completed")

    path = tmp_path / "t.jsonl"
    write(Trace(path, kind="agent", model="claude-sonnet-5-5"))
    spans = file_spans(path)
    s1 = next(s for s in spans if s.attributes.get("agentlab.request.step") == "s1")
    s2 = next(s for s in spans if s.attributes.get("agentlab.request.step") == "s2")
    root = spans[-1]
    assert not s1.events and [e.name for e in s2.events] == ["agentlab.step_failed"]
    assert [e.name for e in root.events] == ["agentlab.api_attempt"], "an attempt two calls could own goes on the run"


def test_a_run_with_otlp_sends_its_spans_while_it_goes_on_the_wall_clock(receiver):
    seen_during_run = []

    @agentlab.tool
    def probe() -> str:
        """Report how many spans the receiver has."""
        for _ in range(100):  # bounded: up to 10 s for the first call's span to arrive
            if receiver.spans():
                break
            time.sleep(0.1)
        seen_during_run.append(len(receiver.spans()))
        return "ok"

    script = ScriptedModel([[{"type": "tool_use", "name": "probe", "input": {}}], "done"])
    client = agentlab.connect("sim", quiet=True, policy=script)
    run = agentlab.run_agent(client, "probe once", [probe], otlp=receiver.url)
    assert seen_during_run and seen_during_run[0] >= 1, "the first call's span arrived before the run ended"
    spans = receiver.wait()
    assert len(spans) == len(run.turns) + len(run.tool_results) + 1
    (root,) = [s for s in spans if not s.parent_span_id]
    assert attrs(root)["agentlab.clock"] == "wall"
    assert all(root.start_time_unix_nano <= s.start_time_unix_nano <= s.end_time_unix_nano for s in spans)


def test_a_live_run_gives_the_spans_a_file_export_gives(receiver, tmp_path):
    client = agentlab.connect("sim", quiet=True)
    path = tmp_path / "t.jsonl"
    agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path), trace=path, otlp=receiver.url)
    live = sorted((s.name, s.kind, s.parent_span_id != b"") for s in receiver.wait())
    from_file = [(s.name, s.kind.value + 1, s.parent is not None) for s in file_spans(path)]  # proto kinds are +1
    assert live == sorted(from_file) and len(live) == 7


def test_agentlab_otlp_sends_every_runs_spans_and_no_throwaway_traces(receiver, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTLAB_OTLP", receiver.url)
    Trace().stop("end_turn")  # a throwaway trace (an executor's own): no kind, nothing sent
    client = agentlab.connect("sim", quiet=True)
    agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path))
    roots = [s for s in receiver.wait() if not s.parent_span_id]
    assert [attrs(r)["gen_ai.operation.name"] for r in roots] == ["invoke_agent"]


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_a_receiver_that_is_down_costs_one_line_never_the_runs_time_and_a_late_one_gets_later_runs(
    monkeypatch, capsys, tmp_path
):
    monkeypatch.setattr(export, "TIMEOUT_S", 1.0)
    monkeypatch.setattr(export, "COOL_DOWN_S", 0.5)
    senders = []
    real = export._Receiver.export
    monkeypatch.setattr(
        export._Receiver, "export", lambda self, s: senders.append(threading.get_ident()) or real(self, s)
    )
    url = _closed_port()
    client = agentlab.connect("sim", quiet=True)
    for i in range(2):
        path = tmp_path / f"t{i}.jsonl"
        run = agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path / f"n{i}"), trace=path, otlp=url)
        assert run.stop_reason.value == "end_turn" and read_trace(path)[-1]["event"] == "stop"
    err = ""
    for _ in range(100):  # bounded: the line comes from the sender's thread once its send has failed
        err += capsys.readouterr().err
        if err:
            break
        time.sleep(0.1)
    time.sleep(1.5)  # and no second line follows
    lines = (err + capsys.readouterr().err).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agentlab: could not send spans to "), lines
    assert senders and threading.get_ident() not in senders, "no send ever ran in the run's thread"
    late = Receiver(port=int(url.rsplit(":", 1)[1]))  # a receiver comes up where the runs were sending
    try:
        time.sleep(0.6)  # past the rest after the failure
        agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path / "n3"), otlp=url)
        assert [s for s in late.wait() if not s.parent_span_id], "the next run's spans reach it"
    finally:
        late.server.shutdown()
    assert main(["trace", "export", str(tmp_path / "t0.jsonl"), "--otlp", _closed_port()]) == 1
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


def test_without_the_extra_otlp_says_how_to_install_it_and_agentlab_otlp_says_it_once(monkeypatch, capsys, tmp_path):
    import agentlab.otel as otel

    for name in [m for m in sys.modules if m.startswith("opentelemetry.sdk") or m == "agentlab.otel.export"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)  # as if not installed
    monkeypatch.setattr(otel, "_said", False)
    with pytest.raises(ImportError, match=r"pip install 'agentlab\[otel\]'"):
        Trace(otlp="http://localhost:4318")
    Trace(tmp_path / "t.jsonl").stop("end_turn")  # without otlp, traces never need it
    assert main(["trace", "export", str(tmp_path / "t.jsonl"), "--json", str(tmp_path / "x.json")]) == 2
    assert "pip install 'agentlab[otel]'" in capsys.readouterr().err
    monkeypatch.setenv("AGENTLAB_OTLP", "http://localhost:4318")
    client = agentlab.connect("sim", quiet=True)
    for i in range(2):
        assert agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path / f"n{i}")).final_text
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("agentlab: AGENTLAB_OTLP='http://localhost:4318'") and "runs go on without spans" in line


def test_a_malformed_agentlab_otlp_is_said_once_and_runs_go_on(monkeypatch, capsys, tmp_path):
    import agentlab.otel as otel

    monkeypatch.setattr(otel, "_said", False)
    monkeypatch.setenv("AGENTLAB_OTLP", "localhost:6006")
    client = agentlab.connect("sim", quiet=True)
    for i in range(2):
        assert agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path / f"n{i}")).final_text
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "give the receiver's http(s) address" in line


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
