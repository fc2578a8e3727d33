import agentlab
from agentlab import StopReason
from agentlab.experiments.patterns import data_line
from agentlab.workflows import run_orchestrator

KW = dict(
    worker_system="Write one sentence on the city's weather.", synth_system="Combine the parts into one short note."
)


def test_orchestrator_plans_runs_workers_and_synthesises(sim, tmp_path):
    run = run_orchestrator(
        sim,
        "Which is warmer, Paris, Madrid or Oslo?",
        context=lambda s: data_line([s["title"]]),
        trace=tmp_path / "o.jsonl",
        **KW,
    )
    assert run.stop_reason is StopReason.COMPLETED and "Madrid is the warmest" in run.final_text
    paths = [s.path for s in run.steps]
    assert paths[0] == "orchestrator/plan" and paths[-1] == "orchestrator/synthesise"
    assert sorted(paths[1:-1]) == [f"orchestrator/worker[{i}]" for i in (1, 2, 3)]
    steps_in_trace = {e.get("step") for e in agentlab.read_trace(tmp_path / "o.jsonl") if e.get("event") == "request"}
    assert "orchestrator/worker[2]" in steps_in_trace


def test_unparseable_plan_ends_the_run_with_the_raw_text(fake):
    run = run_orchestrator(fake(lambda p, i: "1. Paris 2. Oslo"), "Paris or Oslo?", **KW)
    assert run.stop_reason is StopReason.UNPARSEABLE_OUTPUT and "the plan could not be read" in run.detail
    assert run.steps[0].raw == "1. Paris 2. Oslo" and run.model_calls == 1


def test_plan_longer_than_max_subtasks_is_rejected(sim):
    run = run_orchestrator(
        sim,
        "Compare Paris, Rome, Oslo, Cairo and Lisbon.",
        max_subtasks=3,
        context=lambda s: data_line([s["title"]]),
        **KW,
    )
    assert run.stop_reason is StopReason.UNPARSEABLE_OUTPUT and "5 subtasks, max_subtasks=3" in run.detail


def test_failing_worker_is_left_out_and_the_rest_are_synthesised(sim):
    run = run_orchestrator(
        sim, "Which is warmer, Paris, Atlantis or Oslo?", context=lambda s: data_line([s["title"]]), **KW
    )
    assert run.stop_reason is StopReason.WORKER_FAILED and "['Atlantis']" in run.detail
    assert "Paris" in run.final_text and "Oslo" in run.final_text
    failed = [s for s in run.steps if s.status == "failed"]
    assert len(failed) == 1 and "Unknown city 'Atlantis'" in failed[0].error


def test_run_with_steps_serialises_to_json(sim):
    import json

    run = run_orchestrator(sim, "Which is warmer, Paris or Oslo?", context=lambda s: data_line([s["title"]]), **KW)
    d = json.loads(json.dumps(run.to_dict()))
    assert d["pattern"] == "orchestrator" and d["steps"][0]["path"] == "orchestrator/plan"
    assert sum(t["input_tokens"] for s in d["steps"] for t in s["turns"]) == run.input_tokens
