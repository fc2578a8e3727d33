"""Agent runs driven through the Message Batches API on the simulator: ordinary run_agent runs, one batch a round."""

import signal

import pytest

import agentlab
from agentlab.experiments.batching import BatchResultError, run_batched
from agentlab.run import StopReason
from agentlab.sim.clock import SimClock
from agentlab.trace import read_trace

MODEL = "claude-opus-5"
TASKS = [
    agentlab.city_task(["Paris", "London"]),
    agentlab.city_task(["Paris", "London", "Madrid"]),
    "What is the temperature in Oslo today? Look it up, then save a note with it.",
]


def _client(**kw):
    client = agentlab.connect("sim", model=MODEL, quiet=True, **kw)
    client.agentlab_simulator.clock = SimClock()
    return client


def _direct(task, tools, **kw):
    return agentlab.run_agent(_client(), task, tools, **kw)


def _batched(tasks, tools, batch_client=None, traces=None, **kw):
    runs = []
    for i, task in enumerate(tasks):
        runs.append((_client(), _agent(task, tools, trace=traces[i] if traces else None, **kw)))
    return run_batched(batch_client or _client(), runs)


def _agent(task, tools, **kw):
    return lambda client: agentlab.run_agent(client, task, tools, **kw)


def _kinds(path):
    return [e.get("event") for e in read_trace(path)[1:]]


def test_batched_runs_have_the_direct_runs_turns_and_tokens_at_half_the_cost(tools):
    direct = [_direct(t, tools) for t in TASKS]
    batched = _batched(TASKS, tools)
    for d, b in zip(direct, batched):
        assert [t.tool_calls for t in b.turns] == [t.tool_calls for t in d.turns]
        assert [t.tokens for t in b.turns] == [t.tokens for t in d.turns]
        assert b.final_text == d.final_text and b.stop_reason is StopReason.END_TURN
        assert all(t.batch for t in b.turns) and not any(t.batch for t in d.turns)
        assert b.cost_usd == pytest.approx(d.cost_usd / 2)


def test_each_round_is_one_batch_and_the_trace_names_it(tools, tmp_path):
    paths = [tmp_path / f"run{i}.jsonl" for i in range(len(TASKS))]
    batch_client = _client()
    batched = _batched(TASKS, tools, batch_client, paths)
    batches = batch_client.agentlab_simulator.batches.batches
    assert len(batches) == max(r.model_calls for r in batched)  # one batch per round
    assert [len(b.results) for b in batches.values()][0] == len(TASKS)  # the first holds every run's first request
    direct = tmp_path / "direct.jsonl"
    _direct(TASKS[0], tools, trace=direct)
    assert _kinds(paths[0]) == _kinds(direct)  # the same events as a direct run
    responses = [e for e in read_trace(paths[0]) if e.get("event") == "response"]
    assert [e["batch_id"] for e in responses] == list(batches)[: len(responses)]


def test_a_request_the_batch_errors_ends_that_run_only(tools, tmp_path):
    runs = [
        (_client(), _agent(TASKS[0], tools)),
        (_client(), _agent(TASKS[1], tools, max_tokens=0, trace=tmp_path / "bad.jsonl")),
    ]
    ok, bad = run_batched(_client(), runs)
    assert ok.stop_reason is StopReason.END_TURN
    assert isinstance(bad, BatchResultError) and bad.result_type == "errored" and "pre-warming" in str(bad)
    assert read_trace(tmp_path / "bad.jsonl")[-1]["reason"] == "error"


def test_a_batch_that_could_cross_the_session_cap_is_not_sent(tools):
    batch_client = _client(max_usd=0.001)
    batched = _batched(TASKS, tools, batch_client)
    assert all(r.stop_reason is StopReason.USD_BUDGET and r.model_calls == 0 for r in batched)
    assert batch_client.agentlab_simulator.batches.batches == {} and batch_client.agentlab_cap.refused == 1


def test_runs_sharing_one_client_are_refused_before_anything_is_sent(tools):
    shared = _client()
    with pytest.raises(ValueError, match="client of its own"):
        run_batched(_client(), [(shared, _agent(t, tools)) for t in TASKS[:2]])


def test_the_sigterm_handler_is_the_one_before_the_batches(tools):
    before = signal.getsignal(signal.SIGTERM)
    _batched(TASKS, tools)
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_failed_batch_call_ends_every_run_trace_then_is_raised(tools, tmp_path):
    paths = [tmp_path / f"run{i}.jsonl" for i in range(2)]
    sender = _client(faults="500=1.0,seed=1", max_retries=0)
    with pytest.raises(Exception) as e:
        _batched(TASKS[:2], tools, sender, paths)
    assert getattr(e.value, "status_code", None) == 500
    assert [read_trace(p)[-1]["reason"] for p in paths] == ["error", "error"]
