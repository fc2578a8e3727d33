"""Per-model rules: each model's profile (``profiles.py``) decides what the API accepts for it.

* a retired model (by its status, or from its ``retires`` day on the simulator's calendar, see
  ``clock.today``), or an id with no profile: ``404 not_found_error`` (as for any unknown model);
* ``max_tokens`` above the model's maximum output; input above its context window;
* forced ``tool_choice`` (``any``/``tool``) on a model that refuses it (Claude Sonnet 5.5:
  https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported);
* assistant prefill (a final ``assistant`` message) on a model that refuses it, unless it resumes a paused
  server-tool turn (it ends in a ``server_tool_use`` block still missing its result);
* a ``thinking.type`` the model does not take (Sonnet 5.5 takes ``adaptive`` and ``between_tools``);
* manual thinking (``enabled``) with ``budget_tokens`` under 1,024 or not below ``max_tokens``, or with
  a forced ``tool_choice`` (Messages only: not checked for count_tokens)
  (https://platform.claude.com/docs/en/build-with-claude/extended-thinking, "max tokens and context
  window size" and "extended thinking with tool use": only ``auto`` and ``none`` go with thinking);
* a ``thinking`` block whose signature this simulator did not issue for this model and conversation,
  on a model whose thinking blocks are tied to them (Sonnet 5.5).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date

from agentlab.api.profiles import Profile, profile, today
from agentlab.api.tokens import left_out
from agentlab.sim.errors import SimAPIError, invalid


def model_profile(model: object, day: date | None = None) -> Profile:
    """The profile of a model answered on ``day`` (default: today, UTC); the API's 404 for a retired or unknown one."""
    p = profile(model) if isinstance(model, str) else None
    if p is None or p.retired_on(day or today()):
        # Quoted: https://github.com/anthropics/claude-code/issues/5349 ("model: sonnet4")
        raise SimAPIError("not_found_error", f"model: {model}")
    return p


def check_model_rules(body: dict, p: Profile, *, count_tokens: bool = False) -> None:
    """Raise the API's 400 where ``body`` asks ``p`` for something it does not do."""
    if not count_tokens and body["max_tokens"] > p.max_output:
        # Reconstructed, not quoted: the form of the widely reported limit error.
        raise invalid(
            f"max_tokens: {body['max_tokens']} > {p.max_output}, which is the maximum allowed "
            f"number of output tokens for {body['model']}"
        )
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool") and not p.forced_tool_choice:
        # As quoted by a third-party client (https://docs.rs/crate/harn-vm/0.10.177/source/src/llm/helpers/options/tool_choice.rs);
        # not verified against the API. The rule itself: the Sonnet 5.5 page cited above.
        raise invalid('tool_choice: type "tool" and "any" are not supported for this model')
    if body["messages"][-1]["role"] == "assistant" and not p.prefill and not _resumes_paused_turn(body["messages"][-1]):
        # Quoted: https://github.com/langchain-ai/deepagents/issues/1585 and https://github.com/cortexkit/magic-context/issues/511
        raise invalid(
            "This model does not support assistant message prefill. The conversation must end with a user message."
        )
    _check_thinking(body.get("thinking"), p)
    if not count_tokens:  # recorded: count_tokens took adaptive thinking with a forced tool (pydantic-ai cassette)
        _check_thinking_limits(body)
    _check_signatures(body, p)


def _resumes_paused_turn(message: dict) -> bool:
    """True for a final assistant message ending in a ``server_tool_use`` still missing its result: a turn the
    API paused (``pause_turn``) and the client sent back as is to continue it, which every model accepts
    (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons: "Send the assistant content
    back to continue")."""
    content = message.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and isinstance(content[-1], dict)
        and content[-1].get("type") == "server_tool_use"
    )


def check_context(input_tokens: int, p: Profile) -> None:
    """The API's 400 when the (estimated) prompt is longer than the model's context window."""
    if input_tokens > p.context_window:
        # Quoted: "prompt is too long: 219898 tokens > 200000 maximum" (https://github.com/earendil-works/pi/issues/102)
        raise invalid(f"prompt is too long: {input_tokens} tokens > {p.context_window} maximum")


def _check_thinking(thinking: object, p: Profile) -> None:
    if thinking is None:
        return
    if not isinstance(thinking, dict) or not isinstance(thinking.get("type"), str):
        # Reconstructed, not quoted: pydantic's wording when the "type" tag is missing.
        raise invalid("thinking: Unable to extract tag using discriminator 'type'")
    kind = thinking["type"]
    if kind in p.thinking_types:
        return
    if kind == "disabled" and "between_tools" in p.thinking_types:
        # Reconstructed, not quoted: the page says the message points to between_tools
        # (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#turn-off-up-front-thinking).
        raise invalid(
            'thinking.type: "disabled" is not supported for this model; use "between_tools" to turn off up-front thinking'
        )
    accepted = ", ".join(f"'{t}'" for t in p.thinking_types) or "none"
    # Reconstructed, not quoted.
    raise invalid(f"thinking.type: '{kind}' is not supported for {p.id}; it accepts {accepted}")


def _check_thinking_limits(body: dict) -> None:
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1024:
            # Quoted: https://github.com/danny-avila/LibreChat/issues/8346 and https://github.com/themaximalist/llm.js/issues/30
            raise invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if budget >= body["max_tokens"]:
            # Quoted: https://github.com/anthropics/claude-code/issues/8756. Not modelled: the interleaved-thinking
            # beta, under which the docs let the budget exceed max_tokens.
            raise invalid(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
                "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
            )
    choice = body.get("tool_choice")
    if kind == "enabled" and isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        # Quoted: https://github.com/run-llama/llama_index/issues/19641. Manual thinking only: the docs state it
        # for extended thinking; for adaptive thinking neither the docs nor the recordings say.
        raise invalid("Thinking may not be enabled when tool_choice forces tool use.")


def signature(model: str, conversation_key: str, thinking: str, left_out: int = 0) -> str:
    """The signature the simulator puts on a thinking block: tied to the model, the conversation and the text,
    and carrying ``left_out``, the tokens of thinking the reply did not show (``api.tokens.left_out`` reads it)."""
    said = f"|{left_out}" if left_out else ""
    digest = hashlib.sha256(f"agentlab-sim|{model}|{conversation_key}|{thinking}{said}".encode()).hexdigest()
    return f"sim1{digest[:40]}" + (f"h{left_out}" if left_out else "")


def conversation_key(messages: list[dict]) -> str:
    """What ties a conversation: its first message, as JSON, in one form (a string or its one text block,
    with or without a ``cache_control`` breakpoint, which a harness moves from turn to turn)."""
    first = messages[0]
    content = first.get("content") if isinstance(first, dict) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b for b in content]
        first = {**first, "content": content}
    return hashlib.sha256(json.dumps(first, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _check_signatures(body: dict, p: Profile) -> None:
    """A model whose thinking blocks are tied to it and the conversation checks every one an assistant sent back; every
    model checks a signature that carries a size (``api.tokens.left_out``), wherever it is, so no one can make a block
    count for thinking the simulator never generated (a stand-in: the API decrypts its own signatures)."""
    key = conversation_key(body["messages"])
    for i, message in enumerate(body["messages"]):
        if isinstance(message["content"], str):
            continue
        tied = p.thinking_between_tools and message["role"] == "assistant"
        for j, block in enumerate(message["content"]):
            size = left_out(block["signature"]) if block.get("type") == "thinking" else 0
            if block.get("type") != "thinking" or not (tied or size):
                continue
            if block["signature"] != signature(body["model"], key, block["thinking"], size):
                # Quoted: https://github.com/ding113/claude-code-hub/issues/518 ("messages.1.content.0: Invalid `signature` in `thinking` block")
                raise invalid(f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block")
