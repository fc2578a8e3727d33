"""Checks on content blocks, the system prompt and ``cache_control``, as the API makes them.

Part of the simulator's request validation (``validate.py`` calls ``validate_blocks``). The shapes
checked here are only those the API's schema requires of the blocks the simulator reads (a ``text``
block's ``text``, a ``tool_use``'s ``id``/``name``/``input``, a ``tool_result``'s ``tool_use_id``, an
image's ``source``); other block types pass through. Wording is quoted where a public source shows it,
else *reconstructed* in pydantic's ``"<path>: <message>"`` form.
"""

from __future__ import annotations

from agentlab.api.images import MEDIA_TYPES
from agentlab.sim.errors import invalid

MAX_CACHE_BREAKPOINTS = 4
"""Blocks with ``cache_control`` one request may carry (https://platform.claude.com/docs/en/build-with-claude/prompt-caching)."""


def validate_blocks(body: dict) -> None:
    """Raise the API's 400 for a malformed system prompt or content block, blank text, or too many breakpoints."""
    _check_system(body.get("system"))
    messages = body["messages"]
    for i, message in enumerate(messages):
        content = message["content"]
        if isinstance(content, str):
            if content:  # an empty string is the non-empty-content rule's (validate.py), which allows a final prefill
                _check_text(content)
            continue
        for j, block in enumerate(content):
            _check_block(f"messages.{i}.content.{j}", block)
    _check_final_assistant(messages)
    _check_cache_breakpoints(body)


def _check_system(system: object) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        # Reconstructed, not quoted: pydantic's first error for the str | list union.
        raise invalid("system: Input should be a valid string")
    for k, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            # Reconstructed, not quoted: system blocks are text blocks.
            raise invalid(f"system.{k}: Input should be a valid text block with a string `text`")
        _check_text(block["text"])


def _check_text(text: str) -> None:
    if text == "":
        # Quoted: https://github.com/anthropics/claude-code/issues/59812 and https://github.com/stackblitz/bolt.new/issues/4701
        raise invalid("messages: text content blocks must be non-empty")
    if not text.strip():
        # Quoted: https://github.com/anthropics/claude-code/issues/23440
        raise invalid("messages: text content blocks must contain non-whitespace text")


def _check_block(where: str, block: object) -> None:
    if not isinstance(block, dict):
        # Reconstructed, not quoted: pydantic's wording for a non-object item.
        raise invalid(f"{where}: Input should be a valid dictionary or object to extract fields from")
    kind = block.get("type")
    if not isinstance(kind, str):
        # Reconstructed, not quoted: pydantic's wording when the "type" tag is missing.
        raise invalid(f"{where}: Unable to extract tag using discriminator 'type'")
    required = {
        "text": {"text": str},
        "tool_use": {"id": str, "name": str, "input": dict},
        "tool_result": {"tool_use_id": str},
        "image": {"source": dict},
        "thinking": {"thinking": str, "signature": str},
    }.get(kind, {})
    for field, typ in required.items():
        if field not in block:
            # Reconstructed, not quoted: same "Field required" form as the quoted "max_tokens: Field required".
            raise invalid(f"{where}.{kind}.{field}: Field required")
        if not isinstance(block[field], typ):
            # Reconstructed, not quoted: pydantic's wording for a wrong type.
            raise invalid(f"{where}.{kind}.{field}: Input should be a valid {'string' if typ is str else 'dictionary'}")
    if kind == "text":
        _check_text(block["text"])
    elif kind == "image":
        _check_image(where, block["source"])
    elif kind == "tool_result":
        _check_tool_result(where, block.get("content"))


def _check_image(where: str, source: dict) -> None:
    kind = source.get("type")
    if kind == "base64":
        if source.get("media_type") not in MEDIA_TYPES:
            # Reconstructed, not quoted: pydantic's wording for a literal field, with the accepted types
            # listed in https://platform.claude.com/docs/en/build-with-claude/vision
            listed = ", ".join(f"'{m}'" for m in MEDIA_TYPES[:-1]) + f" or '{MEDIA_TYPES[-1]}'"
            raise invalid(f"{where}.image.source.base64.media_type: Input should be {listed}")
        if not isinstance(source.get("data"), str):
            raise invalid(f"{where}.image.source.base64.data: Field required")
    elif kind not in ("url", "file"):
        # Reconstructed, not quoted: same form as the quoted tag error for tools.
        raise invalid(
            f"{where}.image.source: Input tag '{kind}' found using 'type' does not match any of the "
            "expected tags: 'base64', 'file', 'url'"
        )


def _check_tool_result(where: str, content: object) -> None:
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        # Reconstructed, not quoted: pydantic's first error for the str | list union.
        raise invalid(f"{where}.tool_result.content: Input should be a valid string")
    for k, inner in enumerate(content):
        if not isinstance(inner, dict) or not isinstance(inner.get("type"), str):
            raise invalid(
                f"{where}.tool_result.content.{k}: Input should be a valid dictionary or object to extract fields from"
            )
        if inner["type"] == "text" and not isinstance(inner.get("text"), str):
            raise invalid(f"{where}.tool_result.content.{k}.text.text: Field required")


def _check_final_assistant(messages: list[dict]) -> None:
    last = messages[-1]
    if last["role"] != "assistant":
        return
    content = last["content"]
    texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content if b.get("type") == "text"]
    if texts and content and isinstance(texts[-1], str) and texts[-1] != texts[-1].rstrip():
        # Quoted: https://github.com/tailcallhq/forgecode/issues/1872 and https://github.com/anomalyco/opencode/issues/1295
        raise invalid("messages: final assistant content cannot end with trailing whitespace")


def _cache_marks(items: object) -> int:
    if not isinstance(items, list):
        return 0
    n = 0
    for item in items:
        if isinstance(item, dict):
            n += item.get("cache_control") is not None
            if item.get("type") == "tool_result":
                n += _cache_marks(item.get("content"))
    return n


def _check_cache_breakpoints(body: dict) -> None:
    found = _cache_marks(body.get("system")) + _cache_marks(body.get("tools"))
    found += sum(_cache_marks(m["content"]) for m in body["messages"])
    if found > MAX_CACHE_BREAKPOINTS:
        # Quoted: https://github.com/tghamm/Anthropic.SDK/issues/50 and https://github.com/Wei-Shaw/sub2api/issues/176
        raise invalid(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {found}.")
