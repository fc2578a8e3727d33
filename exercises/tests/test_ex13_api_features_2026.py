"""Graded tests for exercises/ex13_api_features_2026.py. Run: make grade"""

import copy

import pytest

import agentlab
from agentlab.grading import lazy_import
from agentlab.run import turns_of

pytestmark = pytest.mark.forbids(
    "agentlab.caching.with_cache_breakpoints",
    why="Exercise 13 asks you to place the breakpoint yourself",
)

ex13 = lazy_import("exercises.ex13_api_features_2026")
MODEL = "claude-opus-5"  # its minimum cacheable prompt is 512 tokens: a long run's history passes it early


def _loop(client, task, tools, mark=None, max_turns=20):
    """A plain loop; with `mark`, the history is what mark() returns, every turn. Returns (run cost, markers per request)."""
    from agentlab.tools import run_tool, toolset

    by_name, specs, markers = toolset(tools), [t.spec() for t in tools], []
    meter = agentlab.meter_of(client)
    start = meter.mark()
    messages = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        if mark is not None:
            messages = mark(messages)
            markers.append(
                sum("cache_control" in b for m in messages if isinstance(m["content"], list) for b in m["content"])
            )
        reply = client.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=specs)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages = [*messages, {"role": "assistant", "content": content}]
        if reply.stop_reason != "tool_use":
            break
        results = [
            {"type": "tool_result", "tool_use_id": b["id"], "content": run_tool(by_name, b["name"], b["input"]).content}
            for b in content
            if b["type"] == "tool_use"
        ]
        messages = [*messages, {"role": "user", "content": results}]
    return sum(t.cost_usd for t in turns_of(meter, start)), markers


@pytest.mark.exercise("13.1")
@pytest.mark.points(3)
def test_one_breakpoint_halves_the_cost_of_a_long_run(tmp_path):
    task, tools = agentlab.city_task(agentlab.city_names()[:10]), agentlab.task_tools(tmp_path)
    # a long run: one lookup per turn (parallel=False), so the cached prefix is re-read on every one of 12 turns
    plain, _ = _loop(agentlab.connect("sim", model=MODEL, parallel=False, quiet=True), task, tools)
    cached, markers = _loop(
        agentlab.connect("sim", model=MODEL, parallel=False, quiet=True), task, tools, ex13.mark_for_caching
    )
    assert markers and all(n == 1 for n in markers), (
        f"each request should carry exactly one breakpoint; they carried {markers} (reread 'Prompt caching' in notebook 13)"
    )
    assert cached <= plain / 2, f"uncached run ${plain:.5f}; yours ${cached:.5f}: more than half"


@pytest.mark.exercise("13.1")
@pytest.mark.points(1)
def test_marking_leaves_the_input_alone():
    messages = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "1"}]},
    ]
    before = copy.deepcopy(messages)
    out = ex13.mark_for_caching(messages)
    assert messages == before, "mark_for_caching changed its input; build new lists and dicts instead"
    assert "cache_control" in out[-1]["content"][-1] and "cache_control" not in out[1]["content"][0]
