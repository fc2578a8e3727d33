"""Checks on the ``tools`` and ``tool_choice`` fields of a Messages API request.

Part of the simulator's request validation (see ``validate.py``). Like the rest of it, this
module only rejects what the real API rejects, with the API's own wording where a public
source shows it. Messages marked *reconstructed* follow the pattern of the API's other
validation errors (``"<field path>: <pydantic-style message>"``) but were not found verbatim.
"""

from __future__ import annotations

import re

from agentlab.sim.errors import invalid
from agentlab.sim.strict import check_strict

#: Custom tool names the API accepts (the pattern is quoted in its error message).
NAME_PATTERN = "^[a-zA-Z0-9_-]{1,128}$"
_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,128}")  # used with fullmatch: "$" would allow a trailing "\n"

#: ``tool_choice.type`` values, listed sorted as the API lists expected tags.
TOOL_CHOICE_TYPES = ("any", "auto", "none", "tool")


def validate_tools(tools: object) -> list[object]:
    """Check the ``tools`` list; return the tool names it declares (``[]`` when absent)."""
    if tools is None:
        return []
    if not isinstance(tools, list):
        # Reconstructed, not quoted: pydantic's wording for a non-list field.
        raise invalid("tools: Input should be a valid list")
    names = []
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            # Reconstructed, not quoted: pydantic's wording for a non-object item.
            raise invalid(f"tools.{index}: Input should be a valid dictionary or object to extract fields from")
        # A tool without "type" is a custom tool; server tools (web_search_..., bash_...) have
        # fixed names and schemas, so only custom tools get the checks below.
        if tool.get("type", "custom") == "custom":
            _check_custom_tool(index, tool)
        names.append(tool.get("name"))
    if any(name in names[:index] for index, name in enumerate(names)):
        # Quoted: https://github.com/eclipse-theia/theia/issues/16122
        # and https://github.com/tailcallhq/forgecode/issues/892
        raise invalid("tools: Tool names must be unique.")
    return names


def _check_custom_tool(index: int, tool: dict) -> None:
    where = f"tools.{index}.custom"
    name = tool.get("name")
    if name is None:
        # Reconstructed, not quoted: same "Field required" form as the quoted input_schema.type error.
        raise invalid(f"{where}.name: Field required")
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        # Quoted: https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1345
        # and https://github.com/jedisct1/openapi-mcp/issues/9 (older API versions said {1,64}).
        raise invalid(f"{where}.name: String should match pattern '{NAME_PATTERN}'")
    _check_input_schema(where, tool.get("input_schema"))
    check_strict(where, tool)


def _check_input_schema(where: str, schema: object) -> None:
    if schema is None:
        # Reconstructed, not quoted: same "Field required" form as the quoted error below.
        raise invalid(f"{where}.input_schema: Field required")
    if not isinstance(schema, dict):
        # Reconstructed, not quoted: the API's wording for a non-object value, as quoted for
        # tool_use.input in https://github.com/anthropics/anthropic-sdk-typescript/issues/648
        raise invalid(f"{where}.input_schema: Input should be a valid dictionary")
    if "type" not in schema:
        # Quoted: https://github.com/lidge-jun/opencodex/issues/75
        raise invalid(f"{where}.input_schema.type: Field required")
    if schema["type"] != "object":
        # Reconstructed, not quoted: pydantic's wording for a literal field ("object" is the only value).
        raise invalid(f"{where}.input_schema.type: Input should be 'object'")


def validate_tool_choice(choice: object, tool_names: list[object]) -> None:
    """Check ``tool_choice`` against the allowed types and the declared tool names."""
    if choice is None:
        return
    if not isinstance(choice, dict):
        # Reconstructed, not quoted: pydantic's wording for a non-object value.
        raise invalid("tool_choice: Input should be a valid dictionary or object to extract fields from")
    kind = choice.get("type")
    if kind is None:
        # Reconstructed, not quoted: pydantic's wording when the "type" tag is missing.
        raise invalid("tool_choice: Unable to extract tag using discriminator 'type'")
    if kind not in TOOL_CHOICE_TYPES:
        # Reconstructed, not quoted, from the API's quoted error for an unknown tool type:
        # "tools.1: Input tag '...' found using 'type' does not match any of the expected tags: ..."
        # https://github.com/anthropics/anthropic-sdk-go/issues/235 ("none" since 2025-02, see
        # https://github.com/UKGovernmentBEIS/inspect_ai/issues/1617).
        expected = ", ".join(f"'{t}'" for t in TOOL_CHOICE_TYPES)
        raise invalid(
            f"tool_choice: Input tag '{kind}' found using 'type' does not match any of the expected tags: {expected}"
        )
    if kind == "tool":
        name = choice.get("name")
        if name is None:
            # Reconstructed, not quoted: "Field required" under the union tag, like "tools.N.custom.name".
            raise invalid("tool_choice.tool.name: Field required")
        if name not in tool_names:
            # Quoted: https://github.com/langchain-ai/langchainjs/pull/8928
            raise invalid(f"Tool '{name}' not found in provided tools")
