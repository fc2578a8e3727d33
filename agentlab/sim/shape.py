"""What the API guarantees about a reply, applied to whatever a policy wrote.

Every policy (``CarefulAgent``, a student's ``FunctionModel``, a ``ScriptedModel``) gets the same
guarantees the API gives:

* ``tool_choice`` ``any``/``tool``: the reply starts with a ``tool_use`` (of the named tool for
  ``tool``), with no text before it (the API prefills the assistant turn to force the call:
  https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use).
  A policy that wrote no such call gets one written for it, its input filled from the schema's
  required fields with placeholder values (``""``, ``0``, ``false``, ``[]``, ``{}``);
* ``tool_choice`` ``none``: no ``tool_use`` (text only);
* ``disable_parallel_tool_use``: at most one ``tool_use``;
* models that return text between tool calls in ``thinking`` blocks (Claude Sonnet 5.5 with its
  default adaptive thinking, or ``between_tools``: https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#text-between-tool-calls):
  text written before a ``tool_use`` comes back as a ``thinking`` block, its text empty under the
  default ``display`` ``"omitted"`` (the text with ``"summarized"``), signed for this model and
  conversation. A turn without a tool call keeps its text.

Recorded, not documented (``profiles.json`` source ``recorded_reply_shapes``): Sonnet 5 and Fable 5
write no text before a ``tool_use`` (text a policy wrote there is dropped), and Sonnet 5 puts an empty
signed ``thinking`` block before a server tool call when the request asked for no ``thinking``.
"""

from __future__ import annotations

from agentlab.api.profiles import Profile
from agentlab.sim.validate_model import conversation_key, signature

HIDDEN = "_generated"
"""Key of a ``thinking`` block whose display is omitted: the text the model generated there, which the API bills as
output tokens and counts toward ``max_tokens`` though the block comes back empty. ``respond.py`` cuts it to
``max_tokens``, puts its size in the block's signature and removes the key: it never reaches the wire."""
_PLACEHOLDER = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}


def shape(content: list[dict], stop: str | None, body: dict, profile: Profile) -> tuple[list[dict], str | None]:
    """``content`` and stop reason after the API's guarantees for ``body`` on ``profile``."""
    choice = body.get("tool_choice") if isinstance(body.get("tool_choice"), dict) else {}
    kind = choice.get("type")
    if body.get("tools") and kind in ("any", "tool"):
        content, stop = _forced(content, choice, body["tools"]), "tool_use"
    elif kind == "none" or not body.get("tools"):
        kept = [b for b in content if b.get("type") != "tool_use"]
        if len(kept) < len(content):
            content, stop = kept or [{"type": "text", "text": "(no tool call: tool_choice is none)"}], "end_turn"
    if choice.get("disable_parallel_tool_use"):
        uses = [i for i, b in enumerate(content) if b.get("type") == "tool_use"]
        content = [b for i, b in enumerate(content) if b.get("type") != "tool_use" or i == (uses or [0])[0]]
    if profile.thinking_between_tools and _thinking_on(body):
        content = _thinking_between_tools(content, body)
    if not profile.text_before_tool_use:
        first = next((i for i, b in enumerate(content) if b.get("type") == "tool_use"), None)
        if first:
            content = [b for i, b in enumerate(content) if i >= first or b.get("type") != "text"]
    if profile.thinks_before_server_tools and body.get("thinking") is None:
        content = _thinking_before_server_tools(content, body)
    return content, stop


def _forced(content: list[dict], choice: dict, tools: list[dict]) -> list[dict]:
    wanted = choice.get("name") if choice.get("type") == "tool" else None
    uses = [b for b in content if b.get("type") == "tool_use" and (wanted is None or b.get("name") == wanted)]
    if not uses:
        spec = next((t for t in tools if t.get("name") == wanted), None) if wanted else tools[0]
        uses = [{"type": "tool_use", "name": spec.get("name"), "input": _placeholder_input(spec.get("input_schema"))}]
    return uses[:1] if choice.get("disable_parallel_tool_use") else uses


def _placeholder_input(schema: object) -> dict:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}
    props = schema["properties"]
    return {
        name: _PLACEHOLDER.get(props.get(name, {}).get("type") if isinstance(props.get(name), dict) else None, "")
        for name in schema.get("required") or []
        if isinstance(name, str)
    }


def _thinking_on(body: dict) -> bool:
    thinking = body.get("thinking")
    return thinking is None or (isinstance(thinking, dict) and thinking.get("type") in ("adaptive", "between_tools"))


def _thinking_between_tools(content: list[dict], body: dict) -> list[dict]:
    if not any(b.get("type") == "tool_use" for b in content):
        return content
    shown = (body.get("thinking") or {}).get("display") == "summarized"
    out, before_tool = [], True
    for block in content:
        if block.get("type") == "tool_use":
            before_tool = False
        if block.get("type") == "text" and before_tool:  # billed and under max_tokens shown or not: respond.py
            written = block["text"]  # cuts it to max_tokens, then signs it for the model and the conversation
            block = (
                {"type": "thinking", "thinking": written}
                if shown
                else {"type": "thinking", "thinking": "", HIDDEN: written}
            )
        out.append(block)
    return out


def _thinking_before_server_tools(content: list[dict], body: dict) -> list[dict]:
    """An empty signed thinking block before each server tool call and the text leading up to it (as recorded)."""
    out: list[dict] = []
    for block in content:
        if block.get("type") == "server_tool_use":
            at = len(out)
            while at and out[at - 1].get("type") == "text":
                at -= 1
            if not (at and out[at - 1].get("type") == "thinking"):
                out.insert(
                    at,
                    {
                        "type": "thinking",
                        "thinking": "",
                        "signature": signature(body["model"], conversation_key(body["messages"]), ""),
                    },
                )
        out.append(block)
    return out
