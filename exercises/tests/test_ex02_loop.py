"""Graded tests for exercises/ex02_loop.py. Run: make grade"""

import pytest

import agentlab
from agentlab.grading import lazy_import

# Exercise 2.1 is what agentlab.run_agent does (and execute_tools is its inner step): calling
# either from the student's code fails the test, so the points go to the student's own loop.
YOUR_OWN_LOOP = pytest.mark.forbids(
    "agentlab.loop.run_agent", "agentlab.loop.execute_tools", why="Exercise 2.1 asks you to write the loop yourself"
)
YOUR_OWN_COUNT = pytest.mark.forbids(
    "agentlab.meter.usage.Usage.reprefill_after",
    "agentlab.views.stepper.turn_frames",
    why="Exercise 2.2 asks you to count the re-prefill yourself",
)

ex02 = lazy_import("exercises.ex02_loop")
MODEL = "claude-haiku-4-5"


def _tool_uses(message):
    return [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]


@pytest.mark.exercise("2.1")
@YOUR_OWN_LOOP
@pytest.mark.points(2)
def test_loop_finishes_the_city_task(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    messages = ex02.run_loop(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), MODEL)
    assert isinstance(messages, list) and messages, f"return the messages list, got {messages!r}"
    last = messages[-1]
    assert last["role"] == "assistant" and not _tool_uses(last), "the conversation should end with the model's answer"
    assert (tmp_path / "notes.md").exists(), "the loop should have run save_note when the model asked for it"


@pytest.mark.exercise("2.1")
@YOUR_OWN_LOOP
@pytest.mark.points(1)
def test_every_tool_use_is_answered_in_the_next_message(tmp_path):
    client = agentlab.connect("sim", parallel=True, quiet=True)
    messages = ex02.run_loop(
        client, agentlab.city_task(["Paris", "London", "Oslo"]), agentlab.task_tools(tmp_path), MODEL
    )
    asked = sum(len(_tool_uses(m)) for m in messages if m["role"] == "assistant")
    assert asked >= 4, (
        f"the model asks for 3 get_weather calls and a save_note; your conversation holds {asked} tool_use blocks"
    )
    for i, msg in enumerate(messages[:-1]):
        ids = [b["id"] for b in _tool_uses(msg)] if msg["role"] == "assistant" else []
        if ids:
            answered = [b.get("tool_use_id") for b in messages[i + 1]["content"]]
            assert answered == ids, f"message {i + 1} should answer {ids} in one user message, it answers {answered}"


@pytest.mark.exercise("2.1")
@YOUR_OWN_LOOP
@pytest.mark.points(2)
def test_loop_is_bounded_by_max_turns(tmp_path):
    forever = agentlab.FunctionModel(
        lambda m, i: [{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}]
    )
    client = agentlab.connect("sim", policy=forever, quiet=True)
    ex02.run_loop(client, "keep going", agentlab.task_tools(tmp_path), MODEL, max_turns=3)
    calls = len(agentlab.meter_of(client).calls)
    assert calls == 3, (
        f"with max_turns=3 the loop must make exactly 3 model calls when the model never stops; it made {calls} (reread 'Who decides when to stop' in notebook 02)"
    )


@pytest.mark.exercise("2.1")
@YOUR_OWN_LOOP
@pytest.mark.points(1)
def test_tool_failures_go_back_as_is_error(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    messages = ex02.run_loop(
        client, "Which is warmer, Pariss or London? Save a note.", agentlab.task_tools(tmp_path), MODEL
    )
    results = [b for m in messages if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]]
    assert any(r.get("is_error") is True for r in results), (
        "the unknown city 'Pariss' should come back with is_error: True"
    )


@pytest.mark.exercise("2.2")
@pytest.mark.points(2)
@YOUR_OWN_COUNT
def test_reprefill_matches_the_meter_on_a_real_trace(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    run = agentlab.run_agent(
        client, agentlab.city_task(["Tokyo", "Seoul"]), agentlab.task_tools(tmp_path), trace=tmp_path / "t.jsonl"
    )
    got = ex02.reprefill_per_turn(agentlab.read_trace(tmp_path / "t.jsonl"))
    want = [t.reprefill_tokens for t in run.turns]
    assert got == want, (
        f"expected re-prefill per turn {want}, got {got} (reread 'Re-prefill: what each call sends again' in notebook 02b)"
    )


@pytest.mark.exercise("2.2")
@pytest.mark.points(1)
@YOUR_OWN_COUNT
def test_reprefill_never_exceeds_the_calls_own_input():
    events = [
        {"format": "agentlab-trace", "version": 1},
        {"event": "response", "usage": {"input_tokens": 100, "output_tokens": 50}},
        {"event": "tool_call"},
        {"event": "response", "usage": {"input_tokens": 120, "output_tokens": 5}},
    ]
    got = ex02.reprefill_per_turn(events)
    assert got == [0, 120], f"first call 0; second min(120, 100 + 50) = 120; got {got}"
