"""Graded tests for exercises/ex06_errors.py. Run: make grade"""

import json
import re

import jsonschema
import pytest

import agentlab
from agentlab.grading import lazy_import
from agentlab.sim.models.reading import read_error

pytestmark = pytest.mark.forbids(
    "agentlab.tools._explain", why="Exercise 6.1 asks you to write the readable error yourself"
)

ex06 = lazy_import("exercises.ex06_errors")


@agentlab.tool
def book_room(room: str, nights: int, breakfast: bool = False) -> str:
    """Book a hotel room.

    Args:
        room: The room's name.
        nights: How many nights.
        breakfast: Add breakfast.
    """
    return "booked"


def _example(msg):
    m = re.search(r"^Example:\s*(\{.*\})\s*$", msg, re.M)
    assert m, f"end the message with a line 'Example: {{...}}'; got:\n{msg}"
    return json.loads(m.group(1))


@pytest.mark.exercise("6.1")
@pytest.mark.points(1)
def test_names_the_tool_the_missing_field_and_what_was_received():
    msg = ex06.readable_schema_error(book_room, {"room": "Blue"})
    assert "book_room" in msg and "'nights'" in msg, (
        f"name the tool and the missing field 'nights' (reread 'One mistake, two styles' in notebook 06): {msg}"
    )
    assert '{"room": "Blue"}' in msg, f"show what was received as JSON: {msg}"
    assert "Traceback" not in msg


@pytest.mark.exercise("6.1")
@pytest.mark.points(1)
def test_lists_every_valid_field_with_its_type():
    msg = ex06.readable_schema_error(book_room, {})
    for part in ("room (string)", "nights (integer)", "breakfast (boolean)"):
        assert part in msg, f"list the valid fields as 'name (type)'; {part!r} is missing in: {msg}"


@pytest.mark.exercise("6.1")
@pytest.mark.points(1)
def test_the_example_is_valid_and_a_careful_model_would_act_on_the_message():
    msg = ex06.readable_schema_error(book_room, {"nights": "two"})
    jsonschema.validate(_example(msg), book_room.input_schema)  # the example must pass the tool's own schema
    assert read_error(msg) == "fix", (
        f"a model should see what to fix: say which required field is missing ('missing required field ...'): {msg}"
    )


predicts_itself = pytest.mark.forbids(
    "agentlab.experiments.compounding.predicted", why="Exercise 6.2 asks you to predict the task's success yourself"
)


def _design(name, steps, p_step, retries=None):
    d = {"name": name, "steps": steps, "p_step": p_step}
    if retries is not None:
        d["retries"] = retries
    return d


@pytest.mark.exercise("6.2")
@pytest.mark.points(1)
@predicts_itself
def test_success_compounds_over_steps_so_a_reliable_step_can_make_an_unreliable_task():
    agent = [_design("agent", 30, 0.97)]  # 0.97 ** 30 is about 0.40
    assert ex06.simplest_design(agent, 0.5) is None, (
        "30 steps at 0.97 each succeed only ~40% of the time (reread 'Errors compound over steps' in notebook 06)"
    )
    assert ex06.simplest_design(agent, 0.35) == "agent", "0.97 ** 30 is about 0.40, which meets 0.35"
    single = [_design("one call", 1, 0.72), _design("chain", 4, 0.99)]  # 0.72 vs 0.99 ** 4 ~ 0.96
    assert ex06.simplest_design(single, 0.7) == "one call"
    assert ex06.simplest_design(single, 0.9) == "chain", "one call (0.72) misses 0.9; the 4-step chain (~0.96) meets it"


@pytest.mark.exercise("6.2")
@pytest.mark.points(1)
@predicts_itself
def test_a_retry_after_a_readable_error_raises_each_steps_chance():
    plain, retried = _design("agent", 12, 0.9), _design("agent", 12, 0.9, retries=1)
    assert ex06.simplest_design([plain], 0.85) is None, "0.9 ** 12 is about 0.28"
    assert ex06.simplest_design([retried], 0.85) == "agent", (
        "with one retry a step fails 1% of the time: 0.99 ** 12 ~ 0.89"
    )
    assert ex06.simplest_design([_design("agent", 12, 0.9, retries=2)], 0.985) == "agent", "0.999 ** 12 ~ 0.988"
    assert ex06.simplest_design([_design("agent", 12, 0.9, retries=0)], 0.3) is None, "retries=0 is no retry"


@pytest.mark.exercise("6.2")
@pytest.mark.points(1)
@predicts_itself
def test_the_fewest_steps_that_meet_the_target_win_ties_go_to_the_first_listed():
    designs = [
        _design("agent", 9, 0.995, retries=1),
        _design("workflow", 3, 0.96),
        _design("single call", 1, 0.6),
        _design("router", 3, 0.97),
    ]
    before = [dict(d) for d in designs]
    assert ex06.simplest_design(designs, 0.85) == "workflow", (
        "the single call (0.6) misses 0.85; of the 3-step designs (0.88, 0.91) the one listed first wins"
    )
    assert ex06.simplest_design(designs, 0.9) == "router", "0.96 ** 3 ~ 0.885 misses 0.9; 0.97 ** 3 ~ 0.913 meets it"
    assert ex06.simplest_design(designs, 0.99) == "agent", "only the agent with retries reaches 0.99 (~0.9998)"
    assert ex06.simplest_design(designs, 0.5) == "single call", "the simplest design that works, even listed late"
    assert ex06.simplest_design(designs, 0.99999) is None
    assert designs == before, "do not change the designs you were given"
