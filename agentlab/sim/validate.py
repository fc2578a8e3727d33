"""Request validation for the simulated Messages API.

The simulator answers a malformed request the way the real API does: with a
``400 invalid_request_error`` (or ``404 not_found_error`` for an unknown model) whose message
uses the API's own wording, so a student's agent loop meets the errors it would meet online.

This module enforces ONLY rules the real API enforces. Each rule carries a comment citing a
public source for its wording; where no source shows the exact text, the comment says the
wording is *reconstructed* (written in the same ``"<field path>: <message>"`` form as the
API's other validation errors). Some rules that people often assume are deliberately absent,
because the real API no longer enforces them:

* the first message may use the ``assistant`` role
  (https://github.com/anthropics/anthropic-sdk-typescript/issues/622);
* consecutive ``user`` or ``assistant`` messages are merged, not rejected (the ``messages``
  parameter docs: https://platform.claude.com/docs/en/api/csharp/beta/messages/create, and the
  SDK's ``MessageCreateParams`` docstring);
* ``max_tokens`` may be ``0`` (pre-warms the prompt cache; ``minimum: 0`` in
  https://platform.claude.com/docs/en/api/csharp/messages/create and in the SDK's docstring).

The API reports one error at a time; when a request breaks several rules, which one it
reports first is not documented, so the order of the checks below is our choice.
"""

from __future__ import annotations

from collections.abc import Collection

from agentlab.api.profiles import profile
from agentlab.sim.errors import SimAPIError, invalid
from agentlab.sim.structured import check_output_config
from agentlab.sim.validate_blocks import validate_blocks
from agentlab.sim.validate_tools import validate_tool_choice, validate_tools

ROLES = ("user", "assistant")


def validate_messages_request(
    body: object,
    *,
    known_models: Collection[str] | None = None,
    count_tokens: bool = False,
) -> None:
    """Raise SimAPIError exactly as the real API would for this POST /v1/messages body (or /v1/messages/count_tokens when count_tokens=True: max_tokens not required there)."""
    if not isinstance(body, dict):
        # Reconstructed, not quoted: pydantic's wording for a body that is not a JSON object.
        raise invalid("Input should be a valid dictionary or object to extract fields from")
    _check_required_fields(body, count_tokens)
    if not isinstance(body["model"], str):
        # Reconstructed, not quoted: pydantic's wording for a non-string field.
        raise invalid("model: Input should be a valid string")
    if not count_tokens:
        _check_max_tokens(body["max_tokens"])
    messages = body["messages"]
    _check_message_shapes(messages, _takes_system_messages(body["model"]))
    tool_names = validate_tools(body.get("tools"))
    validate_tool_choice(body.get("tool_choice"), tool_names)
    check_output_config(body.get("output_config"))  # JSON outputs: see structured.py
    _check_non_empty_content(messages)
    validate_blocks(body)
    _check_tool_use_pairing(messages)
    if known_models is not None and body["model"] not in known_models:
        # Quoted: https://github.com/anthropics/claude-code/issues/5349 ("model: sonnet4"),
        # https://github.com/continuedev/continue/issues/11538
        raise SimAPIError("not_found_error", f"model: {body['model']}")


def _check_required_fields(body: dict, count_tokens: bool) -> None:
    required = ("messages", "model") if count_tokens else ("max_tokens", "messages", "model")
    for field in required:
        if field not in body:
            # Quoted: "max_tokens: Field required" https://github.com/tickernelz/opencode-mem/issues/50
            # and "messages: Field required" https://github.com/sourcegraph/sourcegraph-public-snapshot/pull/61586
            raise invalid(f"{field}: Field required")


def _check_max_tokens(max_tokens: object) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        # Quoted: https://github.com/strands-agents/harness-sdk/pull/588
        raise invalid("max_tokens: Input should be a valid integer")
    if max_tokens < 0:
        # Reconstructed, not quoted: pydantic's wording for the documented "minimum: 0".
        raise invalid("max_tokens: Input should be greater than or equal to 0")


def _takes_system_messages(model: str) -> bool:
    """Whether ``model``'s profile accepts ``system`` messages mid-conversation (recorded: Opus 4.8, Fable 5)."""
    p = profile(model)
    return bool(p and p.system_messages)


def _check_message_shapes(messages: object, system_ok: bool = False) -> None:
    if not isinstance(messages, list):
        # Reconstructed, not quoted: pydantic's wording for a non-list field.
        raise invalid("messages: Input should be a valid list")
    if not messages:
        # Quoted: https://github.com/devoxx/DevoxxGenieIDEAPlugin/issues/567
        raise invalid("messages: at least one message is required")
    for index, message in enumerate(messages):
        _check_message_shape(index, message, system_ok)


def _check_message_shape(index: int, message: object, system_ok: bool = False) -> None:
    where = f"messages.{index}"
    if not isinstance(message, dict):
        # Reconstructed, not quoted: pydantic's wording for a non-object item.
        raise invalid(f"{where}: Input should be a valid dictionary or object to extract fields from")
    for field in ("role", "content"):
        if field not in message:
            # Reconstructed, not quoted: same form as the quoted "max_tokens: Field required".
            raise invalid(f"{where}.{field}: Field required")
    if message["role"] == "system" and not system_ok:
        # Quoted: https://github.com/aaronrussell/anthropix/issues/2
        # and https://github.com/CherryHQ/cherry-studio/issues/12316
        raise invalid(
            'messages: Unexpected role "system". The Messages API accepts a top-level '
            '`system` parameter, not "system" as an input message role.'
        )
    if message["role"] not in ROLES and message["role"] != "system":
        # Reconstructed, not quoted: pydantic's wording for a literal field.
        raise invalid(f"{where}.role: Input should be 'user' or 'assistant'")
    if not isinstance(message["content"], (str, list)):
        # Reconstructed, not quoted: pydantic's first error for the str | list union.
        raise invalid(f"{where}.content: Input should be a valid string")


def _check_non_empty_content(messages: list[dict]) -> None:
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if message["content"] in ("", []) and not (index == last and message["role"] == "assistant"):
            # Quoted: https://github.com/anthropics/claude-code/issues/4416
            # and https://github.com/danny-avila/LibreChat/issues/3372
            raise invalid(
                f"messages.{index}: all messages must have non-empty content "
                "except for the optional final assistant message"
            )


def _blocks(message: dict) -> list[tuple[int, dict]]:
    """The (position, block) pairs of a message's content; a string content has no blocks."""
    content = message["content"]
    if isinstance(content, str):
        return []
    return [(position, block) for position, block in enumerate(content) if isinstance(block, dict)]


def _tool_use_ids(message: dict) -> list[str]:
    return [str(block.get("id")) for _, block in _blocks(message) if block.get("type") == "tool_use"]


def _check_tool_use_pairing(messages: list[dict]) -> None:
    """Every tool_use is answered by a tool_result at the start of the very next message, and
    every tool_result answers a tool_use of the message just before it.

    Checked on the conversation as the API reads it: ``system`` messages set aside, and consecutive
    messages of one role merged into one (recorded: two assistant messages in a row, the first's
    ``tool_use`` answered after the second, answered 200 -- pydantic/pydantic-ai's
    test_cross_provider_capability_replay cassettes). Errors name the first merged message's index."""
    messages = _merged(messages)
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and index + 1 < len(messages):
            _check_tool_uses_answered(message["index"], message, messages[index + 1])
        if message["role"] == "user":
            previous = messages[index - 1] if index > 0 else None
            _check_tool_results_expected(message["index"], message, previous)


def _merged(messages: list[dict]) -> list[dict]:
    """Consecutive same-role messages as one (content as blocks), ``system`` messages left out; keeps the index."""
    out: list[dict] = []
    for i, message in enumerate(messages):
        if message["role"] == "system":
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"] = out[-1]["content"] + blocks
        else:
            out.append({"role": message["role"], "content": blocks, "index": i})
    return out


def _check_tool_uses_answered(index: int, assistant: dict, following: dict) -> None:
    # Only the tool_result blocks that come FIRST in the next message count as answers:
    # text placed before them makes the API report the tool_use ids as unanswered
    # (https://github.com/shareAI-lab/learn-claude-code/pull/210; the ordering rule is in
    # https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls).
    answered = set()
    if following["role"] == "user":
        for _, block in _blocks(following):
            if block.get("type") != "tool_result":
                break
            answered.add(str(block.get("tool_use_id")))
    # A tool_use with text after it in its own turn is not "immediately" answered either: recorded
    # 400 for [tool_use, text] and 200 for [text, tool_use], same results (anomalyco/opencode, MIT,
    # packages/llm/test/fixtures/recordings/anthropic-messages/*-malformed-assistant-tool-order-*.json at
    # 678c4058, 2026-05-05). That recording names the next message (messages.1 for a tool_use at
    # messages.0); we keep naming the assistant message, as the quoted issues below cannot settle which.
    blocks = [block for _, block in _blocks(assistant)]
    cut_off = {
        str(b.get("id"))
        for i, b in enumerate(blocks)
        if b.get("type") == "tool_use" and any(later.get("type") == "text" for later in blocks[i + 1 :])
    }
    missing = [tool_id for tool_id in _tool_use_ids(assistant) if tool_id not in answered or tool_id in cut_off]
    if missing:
        # Quoted (several ids are joined by ", "): https://github.com/anthropics/claude-code/issues/5989
        # and https://github.com/Kilo-Org/kilocode/issues/5163
        raise invalid(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )


def _check_tool_results_expected(index: int, user: dict, previous: dict | None) -> None:
    expected = set()
    if previous is not None and previous["role"] == "assistant":
        expected = set(_tool_use_ids(previous))
    for position, block in _blocks(user):
        tool_use_id = block.get("tool_use_id")
        if block.get("type") == "tool_result" and str(tool_use_id) not in expected:
            # Quoted: https://github.com/anthropics/claude-code/issues/13460
            # and https://github.com/continuedev/continue/issues/4751
            raise invalid(
                f"messages.{index}.content.{position}: unexpected `tool_use_id` found in "
                f"`tool_result` blocks: {tool_use_id}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
