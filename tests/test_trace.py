"""Traces: JSON Lines records of the kinds in agentlab.trace.EVENTS, each with its kind's fields."""

from pathlib import Path

import pytest

import agentlab
from agentlab import FunctionModel, read_trace, run_agent
from agentlab.trace import CHECK_TRACE_ENV, EVENTS, Trace, TraceFormatError, check_trace

ROOT = Path(__file__).resolve().parent.parent


def test_model_text_with_unicode_line_separators_reads_back(tmp_path):
    text = "line\u2028separator\u2029paragraph\u0085next\x1cfile"
    client = agentlab.connect("sim", policy=FunctionModel(lambda m, i: text), quiet=True)
    run = run_agent(client, "say it", [], trace=tmp_path / "t.jsonl")
    events = read_trace(run.trace_path)
    assert events[-1]["event"] == "stop" and events[-1]["final_text"] == text
    assert [e["event"] for e in events[1:]] == ["request", "response", "stop"]


def test_an_event_missing_a_required_field_is_refused_when_checking(monkeypatch):
    monkeypatch.setenv(CHECK_TRACE_ENV, "1")
    trace = Trace()
    with pytest.raises(
        TraceFormatError, match=r"'response' is missing the field 'content'.*turn, stop_reason, content, usage"
    ):
        trace.event("response", turn=1, stop_reason="end_turn", text="hi", usage={})
    assert len(trace.events) == 1, "a refused event is not written"


def test_an_event_of_an_unknown_kind_is_refused_when_checking(monkeypatch):
    monkeypatch.setenv(CHECK_TRACE_ENV, "1")
    with pytest.raises(TraceFormatError, match=r"unknown trace event kind 'code_result'.*agentlab.trace.EVENTS"):
        Trace().event("code_result", status="ok")


def test_without_the_variable_nothing_is_checked(monkeypatch):
    monkeypatch.delenv(CHECK_TRACE_ENV, raising=False)
    trace = Trace()
    trace.event("anything", at_all=True)
    assert trace.events[-1] == {"event": "anything", "at_all": True}


def test_the_test_suite_checks_every_trace_it_writes():
    import os

    assert os.environ.get(CHECK_TRACE_ENV), "tests/conftest.py sets AGENTLAB_CHECK_TRACE for every test and notebook"


def _runs(tmp: Path) -> dict[str, Path]:
    """One trace per kind of run in the course, between them writing every kind of event."""
    from agentlab.context import ClearToolResults, Compaction, ServerClearing, report_cities, report_task
    from agentlab.context.compare import MODEL
    from agentlab.experiments import capstone
    from agentlab.experiments.patterns import CITIES_SCHEMA, data_line
    from agentlab.injection import GUARD, MarkingExecutor, record_injected_run
    from agentlab.react import run_react
    from agentlab.sim.models.context_agent import ContextAgent
    from agentlab.sim.models.react import ReactWriter
    from agentlab.weather import make_get_weather
    from agentlab.workflows import Link, run_chain

    sim, tools, paths = agentlab.connect("sim", quiet=True), agentlab.task_tools(tmp), {}
    for name in ("agent", "workflow", "looper"):
        paths[name] = tmp / f"{name}.jsonl"
        capstone.RECORDERS[name](paths[name], notes=tmp)
    paths["blocked"] = tmp / "blocked.jsonl"
    record_injected_run(paths["blocked"], defence=GUARD)
    paths["marked"] = tmp / "marked.jsonl"
    run_agent(
        sim,
        agentlab.city_task(["Paris", "London"]),
        tools,
        trace=paths["marked"],
        executor=MarkingExecutor(untrusted=frozenset({"get_weather"})),
    )
    paths["faulted"] = tmp / "faulted.jsonl"  # a 429 on the first call, retried by the SDK
    run_agent(
        agentlab.connect("sim", faults="at=1:429,retry_after=0.01", quiet=True, max_retries=2),
        agentlab.city_task(["Paris", "London"]),
        tools,
        trace=paths["faulted"],
    )
    paths["react"] = tmp / "react.jsonl"
    run_react(
        agentlab.connect("sim", policy=ReactWriter(malformed=1.0, seed=0), quiet=True),
        agentlab.city_task(["Paris", "London"]),
        tools,
        trace=paths["react"],
    )
    gate = lambda v: "a gate that always says no"  # noqa: E731
    for name in ("chain", "gate"):
        paths[name] = tmp / f"{name}.jsonl"
        links = [
            Link(
                "extract",
                prompt="{input}",
                system="Extract the city names.",
                schema=CITIES_SCHEMA,
                gate=gate if name == "gate" else None,
            ),
            Link("fetch", code=lambda v: data_line(v["cities"])),
            Link("write", prompt="Compare. {input}", system="Write a short note."),
        ]
        run_chain(sim, "Which is warmer, Paris or Rome?", links, trace=paths[name])
    for name, strategy in (
        ("compaction", Compaction(threshold_tokens=4_000)),
        ("cleared", ClearToolResults(trigger_tokens=3_000, keep=2)),
        ("edited", ServerClearing(trigger_tokens=3_000, keep=2)),
    ):
        paths[name] = tmp / f"{name}.jsonl"
        run_agent(
            agentlab.connect("sim", model=MODEL, policy=ContextAgent(), quiet=True),
            report_task(report_cities(12)),
            [make_get_weather(7)],
            max_turns=30,
            context=strategy,
            trace=paths[name],
        )
    return paths


@pytest.fixture(scope="module")
def course_traces(tmp_path_factory):
    return {name: read_trace(path) for name, path in _runs(tmp_path_factory.mktemp("traces")).items()}


def test_every_kind_written_by_a_full_run_is_in_the_table(course_traces):
    for name, events in course_traces.items():
        check_trace(events)  # known kinds, each with its fields; one stop, last
        for e in events[1:]:
            spec = EVENTS[e["event"]]
            undocumented = set(e) - {"event", *spec.fields, *spec.optional}
            assert not undocumented, f"{name}: {e['event']} writes {undocumented}, not in EVENTS[{e['event']!r}]"


def test_every_kind_in_the_table_is_written_by_some_run(course_traces):
    written = {e["event"] for events in course_traces.values() for e in events[1:]}
    assert written == set(EVENTS), f"in the table but never written: {set(EVENTS) - written}"


def test_a_response_has_one_shape_whoever_writes_it(course_traces):
    for name in ("agent", "workflow", "react", "chain"):
        for e in (e for e in course_traces[name] if e.get("event") == "response"):
            assert isinstance(e["turn"], int) and e["usage"]["input_tokens"] > 0, name
            assert [b["type"] for b in e["content"]] and all("type" in b for b in e["content"]), name


def test_a_code_step_is_one_event_with_its_input_and_result_whoever_writes_it(course_traces):
    workflow = [e for e in course_traces["workflow"] if e.get("event") == "code_step"]
    chain = [e for e in course_traces["chain"] if e.get("event") == "code_step"]
    assert [e["name"] for e in workflow] == ["get_weather", "get_weather", "save_note"]
    assert workflow[0]["input"] == {"city": "Paris"} and '"temp_c": 18.5' in workflow[0]["content"]
    assert len(chain) == 1 and chain[0]["step"] == "chain/fetch" and "Rome" in chain[0]["content"]
    assert not any(e["is_error"] for e in workflow + chain)


@pytest.mark.parametrize("name", ("agent", "workflow", "looper", "injected"))
def test_the_shipped_capstone_traces_keep_the_format(name):
    from agentlab.experiments import capstone

    check_trace(read_trace(capstone.trace_path(name)))


def _table() -> str:
    names = lambda fields: ", ".join(f"`{f}`" for f in fields)  # noqa: E731
    rows = ["| event | always carries | some writers add | what happened |", "|---|---|---|---|"]
    rows += [f"| `{k}` | {names(v.fields)} | {names(v.optional)} | {v.meaning} |" for k, v in EVENTS.items()]
    return "\n".join(rows) + "\n"


def test_the_readme_lists_the_event_kinds_as_the_table_has_them():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert _table() in readme, (
        "README.md's table of trace events differs from agentlab.trace.EVENTS; paste:\n" + _table()
    )


def test_a_fault_and_its_retry_are_in_the_trace(course_traces):
    attempts = [e for e in course_traces["faulted"] if e.get("event") == "api_attempt"]
    assert [(a["status"], a["retry"], a["error_type"]) for a in attempts] == [
        (429, False, "rate_limit_error"),
        (200, True, None),
    ]
    kinds = [e["event"] for e in course_traces["faulted"][1:]]
    assert kinds.index("request") < kinds.index("api_attempt") < kinds.index("response")


def test_a_lone_surrogate_is_escaped_in_the_file_and_reads_back(tmp_path):
    path = tmp_path / "t.jsonl"
    with Trace(path) as tr:
        tr.event("tool_result", turn=1, content="bad \ud800 text", is_error=False)
        tr.stop("end_turn")
    assert "\\ud800" in path.read_text("utf-8") and read_trace(path)[1]["content"] == "bad \ud800 text"


def test_a_refusals_stop_details_and_cache_diagnostics_reach_the_trace_typed_or_as_an_older_sdks_dict():
    from types import SimpleNamespace

    from anthropic.types import Diagnostics, RefusalStopDetails

    from agentlab.harness import reply_details

    shape = {"type": "refusal", "category": "cyber", "explanation": None}
    assert reply_details(SimpleNamespace(stop_details=RefusalStopDetails(**shape))) == {"stop_details": shape}
    assert reply_details(SimpleNamespace(stop_details=dict(shape))) == {"stop_details": shape}
    assert reply_details(SimpleNamespace(stop_details=None)) == {} == reply_details(SimpleNamespace())
    why = {"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 40}}
    assert reply_details(SimpleNamespace(stop_details=None, diagnostics=Diagnostics(**why))) == {"diagnostics": why}


def test_a_trace_makes_the_folders_of_its_path_and_writes_into_an_existing_one(tmp_path):
    for path in (tmp_path / "a" / "b" / "run.jsonl", tmp_path / "a" / "b" / "again.jsonl"):
        with Trace(path, kind="agent") as t:
            t.stop("end_turn")
        assert read_trace(path)[-1]["event"] == "stop"
