"""Building the simulated ``Message``: ids, the API's guarantees, stop sequences, ``max_tokens``, usage.

Deterministic: ids come from the simulator's counter and a hash of the request; no wall-clock time.

The message carries the fields real 2026 traffic carries, as public recordings show them: every
message has ``stop_details`` (``null`` unless it is a refusal) and ``usage.inference_geo``; in
anomalyco/opencode's recordings (MIT; packages/llm/test/fixtures/recordings/anthropic-messages/,
``claude-opus-4-7-drives-a-tool-loop.json`` at 039c0506, 2026-05-03, and ``streams-text.json`` at ca8d700a)
claude-opus-4-7 answers ``"global"`` and claude-haiku-4-5 ``"not_available"``. A refusal's
``stop_details`` is the installed SDK's ``RefusalStopDetails`` shape; our scripted refusals name no
policy category (``category: null``, which the SDK documents for a refusal outside its named categories):
a stand-in, since no public recording of a real refusal was found.

Every ``tool_use`` block ends with ``"caller": {"type": "direct"}`` (the SDK: "Tool invocation directly from the
model"), in the JSON and in its stream's ``content_block_start``: every ``tool_use`` of every model in the public
recordings from April 2026 on carries it (opencode's, above; simonw/llm-anthropic's
``tests/cassettes/test_anthropic/test_fixed_version_tool_chain_regression.yaml`` at 3ae428f3, Apache-2.0;
Arize-ai/openinference's ``python/instrumentation/openinference-instrumentation-anthropic/tests/openinference/
anthropic/cassettes/test_instrumentor/test_anthropic_instrumentation_multiple_tool_calling_streaming.yaml`` at
1fe497f1, Apache-2.0), and none from before February 2026 does. A call a server tool makes on the model's behalf
(programmatic tool calling) would name that tool instead; the simulator makes none.

``usage.output_tokens_details`` (``{"thinking_tokens": N}``: "output tokens the model generated as internal
reasoning", the SDK) is there when the model thinks: the request turns thinking on, or sends no ``thinking`` to a
model that thinks by default; absent otherwise, and in a stream only on ``message_delta``, never ``message_start``.
So the public recordings from late May 2026 on (pydantic-ai's ``tests/models/cassettes/test_anthropic/``, e.g. its
``..._across_models[claude-*].yaml`` of 2026-07-30, at 4fda3898, MIT; llm-anthropic's
``test_fixed_version_tool_chain_with_thinking_display_regression.yaml``, 2026-05-28): with ``0`` when no thinking
came back; absent on claude-haiku-4-5, claude-sonnet-4-5 and claude-sonnet-4-6 asked without ``thinking``, but
present on claude-opus-4-8 asked without it (``THINKS_UNASKED``). Stand-in: ``thinking: {"type": "disabled"}`` (no recording)
leaves it out. N counts the thinking the model generated, shown or not: the docs say thinking tokens "are billed as
output tokens, even when the thinking text isn't returned to you, and they count toward max_tokens"
(https://platform.claude.com/docs/en/build-with-claude/thinking), and the SDK that N reflects "the raw reasoning the
model produced, not the (possibly shorter) summarized thinking text returned". So a thinking block whose display is ``omitted`` (the
default model's default) comes back empty, and its text (``shape.HIDDEN``, what the policy wrote) is counted into
``output_tokens`` and ``thinking_tokens`` and against ``max_tokens`` (``_cap``). The simulator's summarized thinking
is the text itself, so there the shown and the billed thinking are the same (a stand-in: the API's summary is shorter).
Sent back (a tool-use loop must send it back), the block counts as input at its generated size too: the API restores
the thinking from its encrypted signature, so the model reads it again; the simulator's signature carries the size
instead (``api.tokens.left_out``, a stand-in). So the display changes what a reply shows, never what is billed.
"""

from __future__ import annotations

from agentlab.api.profiles import Profile
from agentlab.api.tokens import content_tokens, estimate_input_tokens, estimate_output_tokens, text_tokens
from agentlab.sim.policy import Policy, as_reply
from agentlab.sim.shape import HIDDEN, shape
from agentlab.sim.strict import constrain, strict_schemas
from agentlab.sim.validate_model import conversation_key, signature

DIRECT = {"type": "direct"}
"""The ``caller`` of a tool call the model made itself, last key of every ``tool_use`` block (see the module docstring)."""
THINKS_UNASKED = frozenset({"claude-opus-4-8"})
"""Beyond the models whose profile thinks by default: recorded with ``output_tokens_details`` on a request that sent
no ``thinking`` (pydantic-ai, 2026-07-30; see the module docstring)."""
NO_INFERENCE_GEO = frozenset({"claude-haiku-4-5"})
"""Models recorded answering ``usage.inference_geo: "not_available"`` (see the module docstring); every other
model answers the request's ``inference_geo``, else ``"global"``, the docs' default (recorded for opus-4-7)."""


def usage(input_tokens: int, output_tokens: int, inference_geo: str = "global", thinking: int | None = None) -> dict:
    """The ``usage`` object with the fields the API returns (cache parts 0 here; ``caching.py`` fills them);
    ``thinking``: the thinking tokens, for ``output_tokens_details`` right after ``output_tokens`` (``None``: none)."""
    details = {} if thinking is None else {"output_tokens_details": {"thinking_tokens": thinking}}
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        **details,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
        "inference_geo": inference_geo,
    }


def stop_details(stop_reason: str) -> dict | None:
    """``stop_details`` for a message that stopped with ``stop_reason``: ``None`` but for a refusal."""
    return {"type": "refusal", "category": None, "explanation": None} if stop_reason == "refusal" else None


def build_message(
    policy: Policy, body: dict, profile: Profile, counter: int, seed: str, input_tokens: int | None = None
) -> dict:
    """The full ``Message`` the simulated model answers ``body`` with."""
    reply = as_reply(policy(body))
    content = []
    strict = strict_schemas(body)  # strict: true: the input is sampled under the schema's grammar (strict.py)
    for i, block in enumerate(reply.content):
        block = dict(block)
        if block["type"] == "tool_use":
            given = block.get("input", {})
            given = constrain(strict[block["name"]], given) if block["name"] in strict else given
            block = {"type": "tool_use", "name": block["name"], "input": given}
        content.append(block)
    content, stop = shape(content, reply.stop_reason, body, profile)
    for i, block in enumerate(content):  # ids after shaping, so a call written for a forced tool_choice has one too
        if block["type"] == "tool_use":
            content[i] = {"type": "tool_use", "id": f"toolu_sim_{seed[:16]}{i:02d}", **block, "caller": DIRECT}
    stop = stop or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
    content, stop, sequence = _stop_at_sequence(content, stop, body.get("stop_sequences") or [])
    content, stop = _cap(content, stop, body["max_tokens"], profile.id)
    content = [_on_the_wire(b, body) for b in content]  # an omitted thinking block: empty, its size in its signature
    thought = content_tokens([b for b in content if b["type"] == "thinking"], model=profile.id)  # shown or not
    return {
        "id": f"msg_sim_{counter:06d}{seed[:14]}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": sequence,
        "stop_details": stop_details(stop),
        "usage": usage(
            estimate_input_tokens(body) if input_tokens is None else input_tokens,
            estimate_output_tokens(content, model=profile.id),
            "not_available" if profile.id in NO_INFERENCE_GEO else body.get("inference_geo") or "global",
            thought if _thinks(body, profile) else None,
        ),
    }


def _thinks(body: dict, profile: Profile) -> bool:
    """Whether the model thinks on this request: asked to, or not told and thinking by default (module docstring)."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        return thinking.get("type") != "disabled"
    return profile.thinking in ("adaptive_default", "adaptive_always") or profile.id in THINKS_UNASKED


def _stop_at_sequence(content: list[dict], stop: str, stops: list[str]) -> tuple[list[dict], str, str | None]:
    """Cut the reply at the first of ``stop_sequences`` it writes, as the API does."""
    for i, block in enumerate(content):
        if block["type"] != "text":
            continue
        hits = [(block["text"].find(s), s) for s in stops if isinstance(s, str) and s and s in block["text"]]
        if hits:
            at, seq = min(hits)
            return content[:i] + [{"type": "text", "text": block["text"][:at]}], "stop_sequence", seq
    return content, stop, None


def _generated(block: dict) -> dict:
    """``block`` as the model generated it, for counting: a thinking block with its omitted text put back."""
    return {"type": "thinking", "thinking": block[HIDDEN]} if HIDDEN in block else block


def _on_the_wire(block: dict, body: dict) -> dict:
    """``block`` as the reply carries it: a thinking block signed for the model and the conversation; one the display
    omits is empty, and its signature carries the tokens generated there (``api.tokens.left_out``), which count
    whenever the block is counted, sent back included."""
    if block["type"] != "thinking" or "signature" in block:
        return block
    size = text_tokens(block[HIDDEN]) if HIDDEN in block else 0
    key = conversation_key(body["messages"])
    return {
        "type": "thinking",
        "thinking": block["thinking"],
        "signature": signature(body["model"], key, block["thinking"], size),
    }


def _cap(content: list[dict], stop: str, max_tokens: int, model: str) -> tuple[list[dict], str]:
    """Apply ``max_tokens`` (cut the text, drop unfinished tool calls) as the API would end the turn. Thinking comes
    first and counts, shown or not: one the budget cannot hold is cut like text (an omitted one stays empty on the
    wire, its signature carrying what is left)."""
    if estimate_output_tokens([_generated(b) for b in content], model=model) <= max_tokens:
        return content, stop
    kept, budget = [], max_tokens
    for block in content:
        if block["type"] == "thinking":
            written = block.get(HIDDEN, block["thinking"])
            said = _cut(written, budget, model)
            kept.append({**block, HIDDEN: said} if HIDDEN in block else {**block, "thinking": said})
        elif block["type"] == "text":
            written = block["text"]
            said = _cut(written, budget, model)
            if said:
                kept.append({"type": "text", "text": said})
        else:
            break
        budget -= content_tokens([_generated(kept[-1])], model=model) if said else 0
        if budget <= 0 or said != written:
            break
    return kept, "max_tokens"


def _cut(text: str, budget: int, model: str) -> str:
    """The longest run of ``text``'s first words whose text block fits in ``budget`` tokens."""
    words = text.split(" ")
    cut: list[str] = []
    for w in words:  # bounded by the words
        if estimate_output_tokens([{"type": "text", "text": " ".join(cut + [w])}], model=model) > budget:
            break
        cut.append(w)
    return " ".join(cut)
