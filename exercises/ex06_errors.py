"""Graded exercises for notebook 06 (error recovery). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

import json
from typing import Any

from agentlab.tools import Tool


def readable_schema_error(tool: Tool, tool_input: Any) -> str:
    """Exercise 6.1: write the readable error for an input that breaks the tool's schema.

    `tool.input_schema` is a JSON schema with "properties" (each with a "type") and "required". The
    message must: name the tool; name each required field that is missing (in single quotes, e.g.
    'city'); show what was received (the input as JSON); list every valid field with its type, as
    `name (type)`; and end with a line `Example: {...}`, a JSON object with every required field
    set to a value of the right type (strings "example", integers 1, numbers 1.0, booleans true).
    Do not include a Python traceback.
    """
    ### BEGIN SOLUTION
    props = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    got = tool_input if isinstance(tool_input, dict) else {}
    missing = [f"'{f}'" for f in required if f not in got]
    samples = {"string": "example", "integer": 1, "number": 1.0, "boolean": True}
    example = {f: samples.get(props.get(f, {}).get("type"), "example") for f in required}
    fields = ", ".join(f"{n} ({p.get('type', 'any')})" for n, p in props.items())
    head = (
        f"Invalid input for {tool.name}: missing required field {', '.join(missing)}."
        if missing
        else f"Invalid input for {tool.name}."
    )
    return (
        f"{head} Received: {json.dumps(tool_input, ensure_ascii=False)}. Valid fields: {fields}. "
        f"Send the fields the tool needs and try again.\nExample: {json.dumps(example, ensure_ascii=False)}"
    )
    ### END SOLUTION


def simplest_design(designs: list[dict], target: float) -> str | None:
    """Exercise 6.2: choose the simplest design whose predicted task success meets the target.

    Each design is a dict with "name", "steps" (how many dependent steps the task takes: every one
    must succeed), "p_step" (the chance one attempt of a step succeeds) and, optionally, "retries"
    (how many more attempts a failed step gets, because its error is readable; 0 when absent).
    Predict each design's task success assuming independent attempts: a step succeeds unless all of
    its 1 + retries attempts fail, and the task succeeds only if every step does. The simplest design
    is the one with the fewest steps; among designs with as many steps, the one listed first.
    Return the name of the simplest design whose predicted success is at least `target`, or None
    when no design reaches it. Do not change `designs`.
    """

    ### BEGIN SOLUTION
    def success(design: dict) -> float:
        fail_all = (1 - design["p_step"]) ** (1 + design.get("retries", 0))
        return (1 - fail_all) ** design["steps"]

    good = [(d["steps"], i, d["name"]) for i, d in enumerate(designs) if success(d) >= target]
    return min(good)[2] if good else None
    ### END SOLUTION
