"""The check exercise tests share: every tool_use answered by the next message, in the calls' order."""

from agentlab.grading import answered

USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]}
TWO = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "both"},
        {"type": "tool_use", "id": "a", "name": "t", "input": {}},
        {"type": "tool_use", "id": "b", "name": "t", "input": {}},
    ],
}


def _results(*ids):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]}


def test_a_conversation_with_every_tool_use_answered_in_order_passes():
    task = {"role": "user", "content": "go"}
    assert answered([task, TWO, _results("a", "b"), {"role": "assistant", "content": [{"type": "text", "text": "x"}]}])
    assert answered([task])


def test_a_missing_late_or_reordered_answer_fails():
    task = {"role": "user", "content": "go"}
    assert not answered([task, USE])  # the loop stopped before running the tool
    assert not answered([task, TWO, _results("b", "a")])  # answers out of order
    assert not answered([task, TWO, _results("a")])  # one call left unanswered
    assert not answered([task, USE, {"role": "user", "content": "the result, as text"}])
