"""The small validator agrees with jsonschema on @tool schemas, and keeps jsonschema out of start-up.

That connecting and running an agent, or ``agentlab compare`` (every workflow pattern), imports no jsonschema is
held by tests/test_lazy_imports.py, with the other slow imports."""

import subprocess
import sys
from typing import Literal

import jsonschema
import pytest

from agentlab import tool
from agentlab.schema_check import covered, first_error


@tool
def sample(
    city: str, days: int, unit: Literal["c", "f"] = "c", tags: list[str] = [], ratio: float = 1.0, loud: bool = False
) -> str:
    """A tool with every type @tool writes."""
    return "ok"


INPUTS = [
    {"city": "Paris", "days": 3},
    {"city": "Paris", "days": 3.0},
    {"city": "Paris", "days": 3.5},
    {"city": "Paris", "days": True},
    {"city": 5, "days": 1},
    {"days": 1},
    {"city": "x", "days": 1, "extra": 1},
    {"city": "x", "days": 1, "unit": "k"},
    {"city": "x", "days": 1, "unit": "c"},
    {"city": "x", "days": 1, "tags": ["a", 2]},
    {"city": "x", "days": 1, "tags": "a"},
    {"city": "x", "days": 1, "ratio": 2},
    {"city": "x", "days": 1, "loud": 1},
    None,
    [],
    "Paris",
]


@pytest.mark.parametrize("value", INPUTS, ids=[repr(v) for v in INPUTS])
def test_small_checker_agrees_with_jsonschema(value):
    assert covered(sample.input_schema)
    expected = next(iter(jsonschema.Draft202012Validator(sample.input_schema).iter_errors(value)), None)
    got = first_error(sample.input_schema, value)
    assert (got is None) == (expected is None), (value, got, expected)


def test_other_schemas_go_to_jsonschema():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    assert not covered(schema)
    assert first_error(schema, {"n": 0}).validator == "minimum"
    assert first_error(schema, {"n": 2}) is None


def test_a_schema_beyond_the_small_checker_imports_jsonschema_without_the_iri_grammar(tmp_path):
    """jsonschema's format module would build rfc3987_syntax's 38 parsers (~1 s); no check here uses them."""
    code = (
        "import sys; from agentlab.schema_check import first_error; "
        "e = first_error({'type': 'object', 'properties': {'n': {'type': 'integer', 'minimum': 1}}}, {'n': 0}); "
        "print(e.validator, 'jsonschema' in sys.modules, 'rfc3987_syntax' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["minimum", "True", "False"]
