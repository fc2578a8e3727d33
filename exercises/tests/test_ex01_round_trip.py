"""Graded tests for exercises/ex01_round_trip.py. Run: make grade"""

import anthropic
import pytest

import agentlab
from agentlab.grading import lazy_import

# Exercise 1.1 is what agentlab.execute_tools does: calling it (directly or through run_agent)
# fails the test, so the points go to the student's own code.
YOUR_OWN_RESULTS = pytest.mark.forbids(
    "agentlab.loop.execute_tools",
    "agentlab.loop.run_agent",
    why="Exercise 1.1 asks you to build the tool_result message yourself",
)

ex01 = lazy_import("exercises.ex01_round_trip")

CITIES = ["Paris", "London", "Madrid", "Lisbon", "Rome", "Berlin", "Oslo"]


def _use(i, city):
    return {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {"city": city}}


@pytest.fixture
def tools(tmp_path):
    return {t.name: t for t in agentlab.task_tools(tmp_path)}


@pytest.mark.exercise("1.1")
@YOUR_OWN_RESULTS
@pytest.mark.points(1)
def test_one_tool_use_gets_one_result_with_its_id(tools):
    msg = ex01.answer_tool_calls([_use(1, "Paris")], tools)
    assert isinstance(msg, dict) and msg.get("role") == "user", f"return a user message dict, got {msg!r}"
    ids = [b.get("tool_use_id") for b in msg["content"]]
    assert ids == ["toolu_1"], (
        f"expected one tool_result for toolu_1, got tool_use_ids {ids} (reread 'Your code runs the tool' in notebook 01)"
    )
    assert "18.5" in msg["content"][0]["content"], "the tool_result content should be get_weather's output"


@pytest.mark.exercise("1.1")
@YOUR_OWN_RESULTS
@pytest.mark.points(1)
def test_text_is_skipped_and_every_id_answered_in_order(tools):
    content = [{"type": "text", "text": "Checking both."}, _use(1, "Paris"), _use(2, "London")]
    msg = ex01.answer_tool_calls(content, tools)
    ids = [b.get("tool_use_id") for b in msg["content"]]
    assert ids == ["toolu_1", "toolu_2"], f"expected results for toolu_1 then toolu_2 (text blocks get none), got {ids}"
    assert all(b.get("type") == "tool_result" for b in msg["content"]), "every block must be a tool_result"


@pytest.mark.exercise("1.1")
@YOUR_OWN_RESULTS
@pytest.mark.points(1)
def test_failed_tool_is_marked_is_error(tools):
    msg = ex01.answer_tool_calls([_use(1, "Atlantis"), _use(2, "Paris")], tools)
    bad, good = msg["content"]
    assert bad.get("is_error") is True, f"an unknown city must come back with is_error: True, got {bad!r}"
    assert not good.get("is_error"), "a tool that worked must not be marked is_error"


@pytest.mark.exercise("1.1")
@YOUR_OWN_RESULTS
@pytest.mark.points(2)
def test_the_api_accepts_your_answer_and_the_model_finishes(tools):
    client = agentlab.connect("sim", quiet=True)
    model = agentlab.default_model()
    messages = [{"role": "user", "content": agentlab.city_task(["Paris", "London"])}]
    for _ in range(6):
        reply = client.messages.create(
            model=model, max_tokens=512, messages=messages, tools=[t.spec() for t in tools.values()]
        )
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        try:
            messages.append(ex01.answer_tool_calls(content, tools))
            client.messages.count_tokens(model=model, messages=messages, tools=[t.spec() for t in tools.values()])
        except anthropic.BadRequestError as e:
            pytest.fail(f"the (simulated) API rejected your message: {e.body['error']['message']}")
    assert reply.stop_reason == "end_turn", f"the model should finish the task, stop_reason was {reply.stop_reason}"


@pytest.mark.exercise("1.2")
@pytest.mark.points(1)
def test_error_names_tool_field_and_value():
    text = ex01.format_tool_error("get_weather", "city", "Pariss", list(CITIES))
    for part in ("get_weather", "city", "Pariss"):
        assert part in text, f"the message should mention {part!r}; it was: {text!r}"


@pytest.mark.exercise("1.2")
@pytest.mark.points(1)
def test_error_lists_closest_valid_values_first_at_most_five():
    text = ex01.format_tool_error("get_weather", "city", "Pariss", list(CITIES))
    rest = text.replace("Pariss", "")  # the bad value itself does not count as a listed value
    listed = [c for c in CITIES if c in rest]
    assert "Paris" in listed, (
        f"the closest valid value, Paris, should be listed; got {text!r} (reread 'When a tool fails: `is_error`' in notebook 01)"
    )
    assert len(listed) <= 5, f"list at most 5 valid values, found {len(listed)}: {listed}"
    others = [rest.index(c) for c in listed if c != "Paris"]
    assert not others or rest.index("Paris") < min(others), f"list the closest value (Paris) first; got {text!r}"


@pytest.mark.exercise("1.2")
@pytest.mark.points(1)
def test_error_says_what_to_do_and_is_short():
    text = ex01.format_tool_error("get_weather", "city", "Pariss", list(CITIES))
    assert "Call get_weather again with one of these." in text, f"end with what to do; got {text!r}"
    assert len(text) <= 300, f"keep it under 300 characters; it has {len(text)}"
    assert "Traceback" not in text
