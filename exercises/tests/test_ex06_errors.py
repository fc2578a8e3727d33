"""Graded tests for exercises/ex06_errors.py. Run: make grade"""

import json
import re

import jsonschema
import pytest

import agentlab
from agentlab.grading import lazy_import
from agentlab.sim.models.reading import read_error

pytestmark = pytest.mark.forbids("agentlab.tools._explain",
                                  why="Exercise 6.1 asks you to write the readable error yourself")

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
    assert "book_room" in msg and "'nights'" in msg, f"name the tool and the missing field 'nights': {msg}"
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
    assert read_error(msg) == "fix", \
        f"a model should see what to fix: say which required field is missing ('missing required field ...'): {msg}"
