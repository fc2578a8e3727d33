"""Strict tool use: ``strict: true`` on a custom tool, and the tool inputs the model can then write.

Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use. With
``strict: true`` the API constrains the model's sampling to inputs valid for the tool's
``input_schema`` (grammar-constrained sampling), so a required field cannot be missing and a type
cannot be wrong (the page's example: ``passengers: "2"`` cannot happen, ``passengers: 2`` does).
Without it the model usually follows the schema but may omit a required field or send the wrong type,
and the API passes such an input on unchecked (notebook 06's missing-field case).

What the simulator does, since its policies are rule-based and write whatever they write:
``constrain`` takes a policy's input for a strict tool and returns one the schema allows. Which valid
input a real model would have written is unknowable; the rule here is a **modelling choice of this
simulator** (the docs guarantee only validity): properties the schema does not declare are dropped;
a value of the wrong type is converted when that loses nothing (``"2"`` to ``2``, a one-item list to its
item); a missing required property takes the value of a dropped property of the right type if there is
exactly one (the model meant it, the grammar forced the declared name), else a neutral value (``""``,
``0``, ``false``, the enum's first value). Not modelled: the JSON Schema subset strict mode accepts,
and the 400 a schema outside it gets.
"""

from __future__ import annotations

from typing import Any

from agentlab.sim.errors import invalid

_NEUTRAL = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}, "null": None}


def check_strict(where: str, tool: dict) -> None:
    """The 400 for a ``strict`` that is not a boolean (the installed SDK types it ``bool``; wording reconstructed)."""
    if "strict" in tool and not isinstance(tool["strict"], bool):
        raise invalid(f"{where}.strict: Input should be a valid boolean")


def strict_schemas(body: dict) -> dict[str, dict]:
    """Input schemas of the request's tools that set ``strict: true``, by tool name."""
    return {
        t["name"]: t.get("input_schema") or {}
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("strict") is True and isinstance(t.get("name"), str)
    }


def constrain(schema: dict, value: Any) -> Any:
    """``value`` made valid for ``schema`` by the rule in the module docstring (``value`` itself when already valid)."""
    kind = schema.get("type")
    enum = schema.get("enum")
    if enum:
        return value if value in enum else enum[0]
    if kind == "object" or "properties" in schema:
        return _object(schema, value if isinstance(value, dict) else {})
    if _fits(kind, value):
        return value
    if isinstance(value, list) and len(value) == 1 and _fits(kind, value[0]):
        return value[0]
    converted = _convert(kind, value)
    return converted if _fits(kind, converted) else _NEUTRAL.get(kind)


def _object(schema: dict, value: dict) -> dict:
    props = schema.get("properties") or {}
    out = {k: constrain(props[k], v) for k, v in value.items() if k in props}
    if schema.get("additionalProperties", True) is not False:
        out.update({k: v for k, v in value.items() if k not in props})
    extras = {k: v for k, v in value.items() if k not in props}
    for name in schema.get("required") or []:
        if name in out or name not in props:
            continue
        kind = props[name].get("type")
        fitting = [v for v in extras.values() if _fits(kind, v)]
        out[name] = fitting[0] if len(fitting) == 1 else constrain(props[name], None)
    return out


def _fits(kind: Any, value: Any) -> bool:
    if kind is None:
        return True
    if isinstance(kind, list):
        return any(_fits(k, value) for k in kind)
    return {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "null": value is None,
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }.get(kind, True)


def _convert(kind: Any, value: Any) -> Any:
    """A lossless conversion of ``value`` to ``kind``, or ``None``."""
    try:
        if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if kind == "integer" and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if kind == "number" and isinstance(value, str):
            return float(value)
    except ValueError:
        return None
    return None
