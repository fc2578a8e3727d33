"""Every claim of notebooks/07_parallel_vs_serial.ipynb's walk-through, checked by running the same code.

The walk-through runs the course's city task one tool call per turn and reads its trace step by step;
each test names the sentence it checks. Token counts are the simulator's estimates, so the prose (and
these tests) state shares and orderings, never the counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agentlab
from agentlab.experiments import walkthrough
from agentlab.views.swimlane import LANES, plot_swimlane

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = {
    "en": ROOT / "notebooks" / "07_parallel_vs_serial.ipynb",
    "zh": ROOT / "notebooks" / "zh-CN" / "07_parallel_vs_serial.ipynb",
}
MARKER = {"en": "**[scripted model]**", "zh": "**[脚本模型]**"}
HOST, MODEL, CODE, TOOLS = LANES[1], LANES[0], LANES[2], LANES[3]


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """The notebook's run: ``walkthrough.walk_city(["Paris", "London"], workdir)`` on the simulator."""
    return walkthrough.walk_city(
        ["Paris", "London"], tmp_path_factory.mktemp("walk"), client=agentlab.connect("sim", quiet=True)
    )


def _cells(lang: str) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(NOTEBOOKS[lang].read_text("utf-8"))["cells"]]


def test_four_model_calls_as_the_course_tells_it_ending_with_end_turn(walk):
    assert walk.model_calls == 4 and walk.stop_reason.value == "end_turn"
    assert [t.tool_calls for t in walk.turns] == [["get_weather"], ["get_weather"], ["save_note"], []]


def test_without_the_flag_the_default_model_asks_for_both_cities_at_once_and_the_flag_holds_it_back(tmp_path):
    plain = walkthrough.walk_city(
        ["Paris", "London"],
        tmp_path,
        client=agentlab.connect("sim", quiet=True),
        one_per_turn=False,
        name="plain.jsonl",
    )
    assert [t.tool_calls for t in plain.turns] == [["get_weather", "get_weather"], ["save_note"], []]
    held = walkthrough.walk_city(
        ["Paris", "London"], tmp_path, client=agentlab.connect("sim", quiet=True), name="held.jsonl"
    )
    assert held.model_calls == 4 and all(len(t.tool_calls) <= 1 for t in held.turns)


def test_every_tool_turn_is_the_same_five_steps_and_requests_carry_1_3_5_7_messages(walk):
    steps = walkthrough.walk_steps(walk)
    assert len(steps) == 18
    five = [(HOST, MODEL), (MODEL, HOST), (HOST, CODE), (CODE, TOOLS), (TOOLS, HOST)]
    for turn in (1, 2, 3):
        assert [(s.lane, s.to) for s in steps if s.turn == turn] == five, turn
    requests = [s.crosses for s in steps if (s.lane, s.to) == (HOST, MODEL)]
    assert requests[0] == "the task and 2 tool definitions (1 message)"
    assert requests[1:] == [f"the whole history again: {n} messages and 2 tool definitions" for n in (3, 5, 7)]
    tool_use = [s for s in steps if s.lane == MODEL][:3]
    assert all(s.crosses.startswith("tool_use ") and "tool_use" in s.decides for s in tool_use)


def test_step_17_is_text_and_the_host_leaves_the_loop_model_4_steps_host_8(walk):
    steps = walkthrough.walk_steps(walk)
    last = steps[16]
    assert (last.step, last.lane, last.to) == (17, MODEL, HOST) and last.crosses.startswith("final text: ")
    assert last.decides == "stop_reason is end_turn: leave the loop"
    counts = walkthrough.per_lane(walk)
    assert counts[MODEL] == 4 and counts[HOST] == 8


def test_between_two_blue_arrows_the_model_lane_is_empty(walk):
    steps = walkthrough.walk_steps(walk)
    touching = [s.step for s in steps if MODEL in (s.lane, s.to)]
    for a, b in zip(touching, touching[1:]):
        assert all(MODEL not in (s.lane, s.to) for s in steps[a : b - 1])
    assert touching == [1, 2, 6, 7, 11, 12, 16, 17]  # request and reply of each call, nothing between


def test_at_step_4_your_code_calls_the_tool_and_the_model_last_acted_at_step_2(walk):
    steps = walkthrough.walk_steps(walk)
    four = steps[3]
    assert (four.lane, four.to, four.crosses) == (CODE, TOOLS, 'get_weather(city="Paris")')
    assert max(s.step for s in steps[:4] if s.lane == MODEL) == 2
    fig = plot_swimlane(walk, upto=4)
    assert fig.axes[0].get_title() == "agent: step 4 of 18, your code to tools"


def test_input_grows_and_from_call_2_over_nine_tenths_was_in_the_call_before(walk):
    rows = walkthrough.resent_rows(walk)
    inputs = [r["input_tokens"] for r in rows]
    assert inputs == sorted(inputs) and len(set(inputs)) == len(inputs)
    assert rows[0]["resent_tokens"] == 0
    assert all(r["resent_tokens"] > 0.9 * r["input_tokens"] for r in rows[1:])


def test_both_cities_in_one_reply_three_calls_and_both_results_in_one_message(tmp_path, walk):
    both = walkthrough.walk_city(
        ["Paris", "London"], tmp_path, client=agentlab.connect("sim", quiet=True), one_per_turn=False, name="both.jsonl"
    )
    assert (walk.model_calls, both.model_calls) == (4, 3)
    assert both.turns[0].tool_calls == ["get_weather", "get_weather"]
    assert [b["type"] for b in both.messages[2]["content"]] == ["tool_result", "tool_result"]


def test_answer_07_three_cities_take_5_calls_23_steps_and_the_last_request_9_messages(tmp_path, walk):
    three = walkthrough.walk_city(
        ["Paris", "London", "Oslo"], tmp_path, client=agentlab.connect("sim", quiet=True), name="three.jsonl"
    )
    steps = walkthrough.walk_steps(three)
    assert (three.model_calls, len(steps)) == (5, 23)
    assert [s.crosses for s in steps if (s.lane, s.to) == (HOST, MODEL)][-1].startswith(
        "the whole history again: 9 messages"
    )
    walked = walkthrough.walk_steps(walk)  # recall 3: step 6 re-sends 3 messages, steps 3-5 leave the model out
    assert walked[5].crosses.startswith("the whole history again: 3 messages")
    assert all(MODEL not in (s.lane, s.to) for s in walked[2:5])


@pytest.mark.parametrize(
    "snippet", ["without it the default simulated model asks for both", "Three calls instead of four"]
)
def test_the_scripted_results_carry_the_marker_in_both_editions(snippet):
    en = [i for i, c in enumerate(_cells("en")) if snippet in c]
    assert en and all(MARKER["en"] in _cells("en")[i] for i in en)
    assert all(MARKER["zh"] in _cells("zh")[i] for i in en)


def test_the_walk_refuses_a_workflow_trace_and_bad_arguments(tmp_path, walk):
    with pytest.raises(ValueError, match="upto=0"):
        plot_swimlane(walk, upto=0)
    with pytest.raises(ValueError, match="tool_choice"):
        agentlab.run_agent(agentlab.connect("sim", quiet=True), "hi", agentlab.task_tools(tmp_path), tool_choice="auto")
    header = {"format": "agentlab-trace", "version": 1, "kind": "workflow"}
    with pytest.raises(ValueError, match="agent run"):
        walkthrough.walk_steps([header, {"event": "stop", "reason": "done"}])
