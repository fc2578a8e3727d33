"""The trace stepper's tokens are the meter's: re-prefill per turn, with cache reads and writes counted."""

from __future__ import annotations

import agentlab
from agentlab.context import Compaction
from agentlab.views.stepper import turn_frames


def _run(tmp_path, name, **kw):
    client = agentlab.connect("sim", quiet=True)
    return agentlab.run_agent(
        client,
        agentlab.city_task(agentlab.city_names()[:6]),
        agentlab.task_tools(tmp_path),
        max_turns=20,
        trace=tmp_path / f"{name}.jsonl",
        **kw,
    )


def _in_order(frames, turns) -> bool:
    """Each frame's (input, re-prefill) is a metered turn's, in the run's order (summary calls skipped)."""
    pairs = iter((t.prompt_tokens, t.reprefill_tokens) for t in turns)
    return all(any(p == (f.input_tokens, f.reprefill_tokens) for p in pairs) for f in frames)


def test_a_cached_runs_stepper_shows_the_meters_reprefill_each_turn(tmp_path):
    run = _run(tmp_path, "cached", cache=True, model="claude-opus-5")
    assert any(t.cache_read_tokens for t in run.turns), "the run should read from the cache, or this test shows nothing"
    meter = [t.reprefill_tokens for t in run.turns]
    assert [f.reprefill_tokens for f in turn_frames(run)] == meter
    assert [f.reprefill_tokens for f in turn_frames(run.trace_path)] == meter


def test_a_cached_runs_frames_count_cache_reads_and_writes_as_input(tmp_path):
    run = _run(tmp_path, "cached", cache=True, model="claude-opus-5")
    for frame in (*turn_frames(run), *turn_frames(run.trace_path)):
        turn = run.turns[frame.turn - 1]
        assert frame.input_tokens == turn.prompt_tokens >= frame.reprefill_tokens
    assert turn_frames(run.trace_path)[-1].cum_input == sum(t.prompt_tokens for t in run.turns)


def test_after_a_compaction_the_stepper_starts_a_new_conversation_as_the_meter_does(tmp_path):
    run = _run(tmp_path, "compaction", context=Compaction(threshold_tokens=700))
    events = agentlab.read_trace(run.trace_path)
    restarts = [e["turn"] for e in events if e.get("event") == "compaction"]
    from_run, from_file = turn_frames(run), turn_frames(run.trace_path)
    assert restarts and len(from_run) == sum(e.get("event") == "response" for e in events) < len(run.turns)
    assert [f.reprefill_tokens for f in from_file] == [f.reprefill_tokens for f in from_run]
    assert all(from_file[k - 1].reprefill_tokens == 0 for k in restarts)
    assert _in_order(from_run, run.turns)
