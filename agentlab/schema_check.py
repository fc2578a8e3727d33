"""Check a tool's input against its JSON schema, without paying for ``jsonschema`` when it is not needed.

``import jsonschema`` costs seconds on a machine with the Jupyter stack installed (its format module
builds a URI grammar at import), which every notebook's first cell would pay. The schemas ``@tool``
writes use a small part of JSON Schema: an object with ``properties`` of type string, integer,
number, boolean, an ``enum``, or an array of those, plus ``required`` and
``additionalProperties: false``. This module checks exactly that part, with ``jsonschema``'s
semantics (an integer is a number, a bool is neither). A schema using anything else is checked by
``jsonschema`` itself (Draft 2020-12), imported on first use.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any

_SIMPLE_KEYS = {"type", "enum", "items", "description"}
_OBJECT_KEYS = {"type", "properties", "required", "additionalProperties", "description"}
_VALIDATORS: dict[int, tuple[dict, Any]] = {}
"""Compiled jsonschema validators by schema identity (each schema compiled once)."""
_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}
_IMPORTING = threading.Lock()
"""Held while jsonschema is imported (workflow steps check their JSON from several threads)."""


@dataclass(frozen=True)
class SchemaError:
    """The first violation found, with the attributes of a ``jsonschema.ValidationError`` that tools read."""

    validator: str
    """The JSON Schema keyword that failed: ``required``, ``additionalProperties``, ``enum``, ``type``..."""
    validator_value: Any
    """That keyword's value in the schema (e.g. the enum's values, the expected type)."""
    instance: Any
    """The value that failed."""
    message: str
    """One sentence saying what failed."""
    absolute_path: tuple = field(default=())
    """Where in the input the failure is (field names and list indexes)."""


def _is(kind: str, value: Any) -> bool:
    if kind == "integer":
        return (
            isinstance(value, int) and not isinstance(value, bool) or (isinstance(value, float) and value.is_integer())
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {"string": str, "boolean": bool, "array": list, "object": dict, "null": type(None)}[kind])


def _simple(schema: Any) -> bool:
    """True when the schema is one the small checker covers exactly."""
    if not isinstance(schema, dict) or not set(schema) <= _SIMPLE_KEYS:
        return False
    if "type" in schema and schema["type"] not in _TYPES - {"object"}:
        return False
    if "items" in schema and (schema.get("type") != "array" or not _simple(schema["items"])):
        return False
    return "enum" not in schema or isinstance(schema["enum"], list)


def covered(schema: Any) -> bool:
    """True when :func:`first_error` checks ``schema`` itself rather than handing it to jsonschema."""
    return (
        isinstance(schema, dict)
        and set(schema) <= _OBJECT_KEYS
        and schema.get("type") == "object"
        and isinstance(schema.get("properties", {}), dict)
        and all(_simple(p) for p in schema.get("properties", {}).values())
        and schema.get("additionalProperties", True) in (True, False)
    )


def _value_error(schema: dict, value: Any, path: tuple) -> SchemaError | None:
    kind = schema.get("type")
    if kind is not None and not _is(kind, value):
        return SchemaError("type", kind, value, f"{value!r} is not of type {kind!r}", path)
    if "enum" in schema and not any(
        value == v and isinstance(value, bool) == isinstance(v, bool) for v in schema["enum"]
    ):
        return SchemaError("enum", schema["enum"], value, f"{value!r} is not one of {schema['enum']!r}", path)
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            err = _value_error(schema["items"], item, path + (i,))
            if err:
                return err
    return None


def first_error(schema: dict, value: Any) -> SchemaError | None:
    """The first way ``value`` breaks ``schema``, or ``None`` when it is valid."""
    if not covered(schema):
        return _jsonschema_error(schema, value)
    if not isinstance(value, dict):
        return SchemaError("type", "object", value, f"{value!r} is not of type 'object'")
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return SchemaError("required", schema["required"], value, f"{name!r} is a required property")
    if schema.get("additionalProperties") is False:
        extra = [k for k in value if k not in props]
        if extra:
            return SchemaError(
                "additionalProperties",
                False,
                value,
                f"Additional properties are not allowed ({', '.join(map(repr, extra))} unexpected)",
            )
    for name, sub in props.items():
        if name in value:
            err = _value_error(sub, value[name], (name,))
            if err:
                return err
    return None


def import_jsonschema():
    """``import jsonschema`` in ~0.05 s instead of ~1.2 s: without the IRI grammar it never uses here.

    jsonschema's format module imports ``rfc3987_syntax`` when it is installed (the Jupyter stack's
    ``jsonschema[format-nongpl]`` brings it), and that builds 38 lark parsers at import. The validators
    here get no ``format_checker``, so ``format`` is an annotation and that grammar is never used; the
    module is hidden for this one import (jsonschema's ``with suppress(ImportError)`` then skips the
    ``iri`` checks; a process that imported jsonschema before keeps them).
    """
    with _IMPORTING:
        if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
            import jsonschema

            return jsonschema
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # None: "import fails", per importlib
        try:
            import jsonschema
        finally:
            del sys.modules["rfc3987_syntax"]
        return jsonschema


def _jsonschema_error(schema: dict, value: Any) -> SchemaError | None:
    held = _VALIDATORS.get(id(schema))
    if held is None or held[0] is not schema:
        jsonschema = import_jsonschema()  # only for schemas the small checker does not cover

        held = _VALIDATORS[id(schema)] = (schema, jsonschema.Draft202012Validator(schema))
    errors = sorted(held[1].iter_errors(value), key=str)
    if not errors:
        return None
    e = errors[0]
    return SchemaError(str(e.validator), e.validator_value, e.instance, e.message, tuple(e.absolute_path))
