from typing import Literal

import pytest

from agentlab.tools import ToolError, run_tool, tool, toolset


@tool
def convert(amount: float, unit: Literal["c", "f"] = "c", tags: list[str] = []) -> str:  # noqa: B006
    """Convert a temperature.

    Args:
        amount: The temperature to convert.
        unit: The unit to convert to.
        tags: Labels to attach.
    """
    return f"{amount}{unit}"


def test_schema_is_built_from_signature_and_docstring():
    s = convert.spec()
    assert s["name"] == "convert"
    assert s["description"] == "Convert a temperature."
    props = s["input_schema"]["properties"]
    assert props["amount"] == {"type": "number", "description": "The temperature to convert."}
    assert props["unit"]["enum"] == ["c", "f"]
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert s["input_schema"]["required"] == ["amount"]


def test_missing_field_is_reported_without_running_the_function():
    out = run_tool({"convert": convert}, "convert", {})
    assert out.is_error and "missing required field 'amount'" in out.content
    assert "Traceback" not in out.content


def test_enum_violation_names_field_and_valid_values():
    out = run_tool({"convert": convert}, "convert", {"amount": 3, "unit": "k"})
    assert out.is_error
    assert "field 'unit' must be one of ['c', 'f'], got \"k\"" in out.content


def test_wrong_type_names_field_and_expected_type():
    out = run_tool({"convert": convert}, "convert", {"amount": "hot"})
    assert out.is_error and "field 'amount' must be of type number" in out.content


def test_unexpected_field_lists_the_valid_fields():
    out = run_tool({"convert": convert}, "convert", {"amount": 1, "colour": "red"})
    assert out.is_error and "valid fields are: amount, unit, tags" in out.content


def test_unknown_tool_is_refused_and_lists_offered_tools():
    out = run_tool({"convert": convert}, "delete_everything", {})
    assert out.is_error
    assert out.content == "Unknown tool 'delete_everything'. Available tools: convert."


def test_tool_that_raises_becomes_an_error_result_without_traceback():
    @tool
    def boom(x: int) -> str:
        """Fail."""
        raise ZeroDivisionError("division by zero")

    out = run_tool({"boom": boom}, "boom", {"x": 1})
    assert out.is_error and out.content == "boom failed: ZeroDivisionError: division by zero"


def test_tool_error_message_reaches_the_model_verbatim():
    @tool
    def picky(x: int) -> str:
        """Refuse."""
        raise ToolError("x must be even; try 2")

    assert run_tool({"picky": picky}, "picky", {"x": 1}).content == "x must be even; try 2"


def test_non_string_results_are_sent_as_json():
    @tool
    def data(x: int) -> dict:
        """Data."""
        return {"x": x, "城市": "上海"}

    assert run_tool({"data": data}, "data", {"x": 2}).content == '{"x": 2, "城市": "上海"}'


def test_tool_without_docstring_is_rejected_with_a_reason():
    with pytest.raises(ValueError, match="add a docstring"):
        tool(lambda x: x)


def test_unsupported_type_hint_is_rejected_naming_the_type():
    def f(x: dict) -> str:
        """Doc."""

    with pytest.raises(TypeError, match="cannot describe the type"):
        tool(f)


def test_duplicate_tool_names_are_refused():
    with pytest.raises(ValueError, match="two tools are named 'convert'"):
        toolset([convert, convert])
