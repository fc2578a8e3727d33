import threading

import pytest

import agentlab
from agentlab import StopReason
from agentlab.experiments.patterns import data_line
from agentlab.sim.models.slow import Latency
from agentlab.workflows import run_sections, run_vote


def test_sections_really_run_at_the_same_time(fake):
    barrier = threading.Barrier(3, timeout=5)  # passes only if all three calls are in flight together

    def model(prompt, info):
        barrier.wait()
        return f"part for {prompt}"

    run = run_sections(fake(model), {"a": "A", "b": "B", "c": "C"}, max_workers=3)
    assert run.stop_reason is StopReason.COMPLETED and run.final_text == "part for A\npart for B\npart for C"
    assert sorted(s.path for s in run.steps) == [
        "sectioning/section[a]",
        "sectioning/section[b]",
        "sectioning/section[c]",
    ]


def test_parallel_steps_are_metered_once_each(sim):
    run = run_sections(
        sim, {c: data_line([c]) for c in ["Paris", "Oslo", "Rome"]}, system="Write one sentence on the city's weather."
    )
    assert run.model_calls == 3 == len(agentlab.meter_of(sim).calls)
    assert sum(s.input_tokens for s in run.steps) == run.input_tokens


def test_failing_section_is_named_and_the_others_are_kept(fake):
    def model(prompt, info):
        if prompt == "B":
            raise RuntimeError("worker B broke")
        return prompt.lower()

    run = run_sections(fake(model), {"a": "A", "b": "B", "c": "C"})
    assert run.stop_reason is StopReason.WORKER_FAILED and run.final_text == "a\nc"
    assert "['b']" in run.detail and {s.path: s.status for s in run.steps}["sectioning/section[b]"] == "failed"


def test_a_worker_past_its_timeout_is_left_out_and_the_others_are_kept(fake, tmp_path):
    release = threading.Event()

    def model(prompt, info):
        if prompt == "slow":
            release.wait(5)
        return prompt

    try:
        run = run_sections(
            fake(model), {"fast": "fast", "slow": "slow"}, worker_timeout=0.2, trace=tmp_path / "t.jsonl"
        )
    finally:
        release.set()
    assert run.stop_reason is StopReason.WORKER_FAILED and run.final_text == "fast"
    assert {s.path: s.status for s in run.steps}["sectioning/section[slow]"] == "timeout"
    assert agentlab.read_trace(tmp_path / "t.jsonl")[-1]["event"] == "stop"


def test_vote_takes_the_majority_and_reports_the_tally(fake, as_json):
    votes = iter(["yes", "no", "yes"])
    lock = threading.Lock()

    def model(prompt, info):
        with lock:
            return as_json({"vote": next(votes)})

    run = run_vote(fake(model), "Is it urgent?", ["yes", "no"], voters=["r1", "r2", "r3"], max_workers=1)
    assert run.final_text == "yes" and "'yes': 2" in run.detail and run.stop_reason is StopReason.COMPLETED


def test_vote_tie_goes_to_the_first_listed_choice_and_says_so(fake, as_json):
    votes = iter(["no", "yes"])
    run = run_vote(
        fake(lambda p, i: as_json({"vote": next(votes)})), "Urgent?", ["yes", "no"], voters=["a", "b"], max_workers=1
    )
    assert run.final_text == "yes" and "tie" in run.detail


def test_simulated_voters_disagree_on_an_ambiguous_ticket(sim):
    run = run_vote(
        sim,
        "I was charged for an app that crashes on start.",
        ["billing", "technical", "other"],
        voters=[f"You are reviewer {i} of 5." for i in range(1, 6)],
    )
    tally = [s.output["vote"] for s in run.steps]
    assert len(set(tally)) == 2 and run.final_text in tally


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"max_workers": 0}, "max_workers=0"),
        ({"worker_timeout": -1}, "worker_timeout=-1"),
        ({"max_workers": 100}, "from 1 to 16"),
    ],
)
def test_nonsense_bounds_are_refused_with_the_value(sim, kw, msg):
    with pytest.raises(ValueError, match=msg):
        run_sections(sim, {"a": "A"}, **kw)


def test_latency_wrapper_waits_before_answering_without_sleeping_in_tests():
    waits = []
    slow = Latency(lambda request: agentlab.Reply([{"type": "text", "text": "hi"}]), 0.25, sleep=waits.append)
    client = agentlab.connect("sim", policy=slow, quiet=True)
    client.messages.create(model="claude-sonnet-5-5", max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert waits == [0.25]
    with pytest.raises(ValueError, match="seconds=-1"):
        Latency(seconds=-1)


def test_a_fault_in_a_parallel_worker_is_in_the_workflows_trace(tmp_path):
    client = agentlab.connect("sim", faults="at=1:429,retry_after=0.01", quiet=True, max_retries=2)
    path = tmp_path / "sections.jsonl"
    run = run_sections(client, {"a": "Say hi.", "b": "Say bye."}, max_workers=2, trace=path)
    assert run.stop_reason is StopReason.COMPLETED
    attempts = [e for e in agentlab.read_trace(path) if e.get("event") == "api_attempt"]
    assert [(a["status"], a["error_type"]) for a in attempts if not a["retry"]] == [(429, "rate_limit_error")]
    assert any(a["retry"] and a["status"] == 200 for a in attempts), attempts
