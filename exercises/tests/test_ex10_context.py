"""Graded tests for exercises/ex10_context.py. Run: make grade"""

import copy

import pytest

import agentlab
from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids("agentlab.context.compaction.should_compact",
                                  "agentlab.context.clearing.clear_tool_results",
                                  why="Exercise 10 asks you to write the compaction trigger and the clearing yourself")

ex10 = lazy_import("exercises.ex10_context")


@pytest.mark.exercise("10.1")
@pytest.mark.points(1)
def test_no_call_yet_means_no_compaction():
    assert ex10.compact_now([], [], 100) is False


@pytest.mark.exercise("10.1")
@pytest.mark.points(2)
def test_the_trigger_reads_the_last_call_prompt_plus_output():
    assert ex10.compact_now([500, 7_900], [50, 200], 8_000) is True
    assert ex10.compact_now([9_000, 7_000], [50, 200], 8_000) is False, "only the LAST call counts: the history was cut"
    assert ex10.compact_now([7_800], [200], 8_000) is False, "exactly at the threshold is not past it"


def _history(n):
    msgs = [{"role": "user", "content": "Report on these cities."}]
    for i in range(n):
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": f"Next {i}."},
                                                       {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {"city": f"C{i}"}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"result {i} " * 40}]})
    return msgs


@pytest.mark.exercise("10.2")
@pytest.mark.points(2)
def test_all_but_the_newest_results_are_cleared_and_the_input_is_untouched():
    msgs = _history(5)
    before = copy.deepcopy(msgs)
    out = ex10.clear_old_results(msgs, keep=2, placeholder="[gone]")
    assert msgs == before, "the history you were given changed: return a new list"
    results = [m["content"][0]["content"] for m in out[2::2]]
    assert results[:3] == ["[gone]"] * 3 and results[3:] == [before[8]["content"][0]["content"], before[10]["content"][0]["content"]]
    assert [m["content"] for m in out[1::2]] == [m["content"] for m in before[1::2]], "tool_use blocks must stay as they were"


@pytest.mark.exercise("10.2")
@pytest.mark.points(2)
def test_the_cleared_history_is_still_a_valid_request_and_costs_fewer_tokens(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    msgs = _history(6)
    out = ex10.clear_old_results(msgs, keep=1)
    tools = [agentlab.get_weather.spec()]
    model = agentlab.default_model()
    full = client.messages.count_tokens(model=model, messages=msgs, tools=tools).input_tokens
    cleared = client.messages.count_tokens(model=model, messages=out, tools=tools).input_tokens  # a 400 here: pairing broken
    assert cleared < full - 400, f"clearing 5 of 6 results should save over 400 tokens: {full} -> {cleared}"
    assert ex10.clear_old_results(msgs, keep=10) == msgs, "keep larger than the number of results clears nothing"
