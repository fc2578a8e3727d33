"""Reading a model's structured output, and checking a pattern's bounds: both fail with a clear error."""

from __future__ import annotations

import json
from typing import Any

from agentlab.schema_check import first_error


class UnparseableOutput(ValueError):
    """A model's output that is not valid JSON for the schema it was asked to follow."""

    def __init__(self, step: str, raw: str, problem: str) -> None:
        self.step, self.raw, self.problem = step, raw, problem
        shown = raw if len(raw) <= 200 else raw[:200] + "..."
        super().__init__(
            f"step {step!r}: the model's output is not valid for its schema ({problem}); raw text: {shown!r}"
        )


def check_bound(name: str, value: Any, low: float, high: float, *, whole: bool = True) -> None:
    """A clear ValueError for a bound outside ``[low, high]`` (named, with the value and the fix)."""
    kind = int if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:
        what = "a whole number" if whole else "a number"
        raise ValueError(f"{name}={value!r}: must be {what} from {low:g} to {high:g}")


def parse_json(step: str, text: str, schema: dict) -> dict:
    """``text`` as a JSON object valid for ``schema``, or :class:`UnparseableOutput` with the raw text."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise UnparseableOutput(step, text, f"not JSON: {e.msg} at position {e.pos}") from None
    error = first_error(schema, value)  # jsonschema itself only for schemas the small checker does not cover
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the top level"
        raise UnparseableOutput(step, text, f"at {where}: {error.message}")
    return value
