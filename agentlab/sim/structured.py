"""Structured output ("JSON outputs") in the simulated Messages API.

The API takes a JSON schema in ``output_config.format`` and answers with one text block whose text
is JSON valid for that schema (constrained decoding):

    client.messages.create(..., output_config={"format": {"type": "json_schema", "schema": {...}}})

Sources: https://platform.claude.com/docs/en/build-with-claude/structured-outputs (the ``output_format``
parameter moved to ``output_config.format``; the reply is JSON in ``content[0].text``), and the
installed SDK (``anthropic/types/output_config_param.py``, ``json_output_format_param.py``).
agentlab uses this rather than a forced ``tool_choice``, which the default model refuses.

What the simulator does: it checks the field's shape (``check_output_config``), and the default
policy's roles (``models/roles.py``) write JSON that fits the schema (``fit``). A policy you write yourself
(``FunctionModel``) may still return anything: the real API would not, except when a reply is cut
off by ``max_tokens`` or refused, and that is why agentlab's workflows validate every structured
reply anyway. The schema's own tokens are not added to the input estimate (no published figure).
"""

from __future__ import annotations

import json
from typing import Any

from agentlab.sim.errors import invalid


def output_schema(request: dict) -> dict | None:
    """The JSON schema a request asks its answer to follow, or ``None``."""
    config = request.get("output_config") or {}
    fmt = config.get("format") if isinstance(config, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
        return fmt["schema"]
    return None


def check_output_config(config: object) -> None:
    """Raise the API's 400 for a malformed ``output_config`` (wording reconstructed in the API's
    ``"<field path>: <message>"`` form; not quoted from a source)."""
    if config is None:
        return
    if not isinstance(config, dict):
        raise invalid("output_config: Input should be a valid dictionary or object to extract fields from")
    fmt = config.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise invalid("output_config.format: Input should be a valid dictionary or object to extract fields from")
    if fmt.get("type") != "json_schema":
        raise invalid("output_config.format.type: Input should be 'json_schema'")
    if "schema" not in fmt:
        raise invalid("output_config.format.schema: Field required")
    if not isinstance(fmt["schema"], dict):
        raise invalid("output_config.format.schema: Input should be a valid dictionary")


def fit(schema: dict, values: dict[str, Any]) -> str:
    """JSON text for an object ``schema``: ``values`` where given, a neutral value for every other
    property (so every ``required`` field is present), enum values kept inside their enum."""
    out: dict[str, Any] = {}
    for name, spec in (schema.get("properties") or {}).items():
        value = values.get(name, _neutral(spec))
        enum = spec.get("enum") if isinstance(spec, dict) else None
        if enum and value not in enum:
            value = enum[-1]
        out[name] = value
    return json.dumps(out, ensure_ascii=False)


def _neutral(spec: Any) -> Any:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(spec, dict) and spec.get("enum"):
        return spec["enum"][0]
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}.get(kind, None)
