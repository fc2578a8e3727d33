"""The simulator's token *estimator*: a stand-in for Claude's tokenizer, which is not public.

Every number it produces is an estimate, and the simulator's ``usage`` says so only through this
module's name: treat simulated token counts as "about this many", never as billing figures. Real
runs use the ``usage`` the API returns.

How it counts:
- text: one token per ASCII word (plus one per further 10 letters of a long word), per group of up
  to three digits, per run of punctuation, and per CJK character;
- a request: a fixed framing cost, the system prompt, every message and block, every tool
  definition (name, description, each property) and, when ``tools`` is non-empty, the hidden
  tool-use system prompt for that model and ``tool_choice`` (``data/tool_overhead.json``).

The framing constants below were set so that the two requests Anthropic publishes with their
counts come out right ("You are a scientist" + "Hello, Claude" = 14; the docs' ``get_weather`` tool
+ "What's the weather like in San Francisco?" = 403). They are therefore fitted on those two
points, and matching them is not evidence of accuracy elsewhere.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

_PIECE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W\d_]+|\d{1,3}|[^\w\s]+|_")

REQUEST_FRAME = 3
"""Tokens every request costs before any content (fitted, see the module docstring)."""
SYSTEM_FRAME = 1
"""Extra tokens for having a system prompt (fitted)."""
MESSAGE_FRAME = 3
"""Tokens per message for its role marker and separators (fitted)."""
BLOCK_FRAME = 3
"""Tokens per tool_use / tool_result block for its wrapper and id (assumed, not fitted)."""
TOOL_FRAME = 14
"""Tokens per tool definition for its wrapper (fitted on the get_weather example)."""


def text_tokens(text: str) -> int:
    """Estimated tokens in a piece of text."""
    n = 0
    for piece in _PIECE.findall(text):
        n += 1 + (len(piece) // 10 if piece.isascii() and piece.isalpha() else 0)
    return n


def _block_tokens(block: Any) -> int:
    if isinstance(block, str):
        return text_tokens(block)
    kind = block.get("type")
    if kind == "text":
        return text_tokens(block.get("text", ""))
    if kind == "tool_use":
        return BLOCK_FRAME + text_tokens(block.get("name", "")) + text_tokens(json.dumps(block.get("input", {}), ensure_ascii=False))
    if kind == "tool_result":
        return BLOCK_FRAME + content_tokens(block.get("content", ""))
    return text_tokens(json.dumps(block, ensure_ascii=False))  # other block types: count their JSON


def content_tokens(content: Any) -> int:
    """Estimated tokens in a message's ``content`` (a string or a list of blocks)."""
    if isinstance(content, str):
        return text_tokens(content)
    return sum(_block_tokens(b) for b in content or [])


def _schema_tokens(schema: dict) -> int:
    n = 0
    for name, prop in (schema.get("properties") or {}).items():
        n += text_tokens(name) + text_tokens(str(prop.get("type", ""))) + text_tokens(prop.get("description", ""))
        if "enum" in prop:
            n += text_tokens(" ".join(map(str, prop["enum"])))
        if isinstance(prop.get("items"), dict):
            n += _schema_tokens({"properties": {"item": prop["items"]}})
    return n + sum(text_tokens(r) for r in schema.get("required", []))


def tool_def_tokens(spec: dict) -> int:
    """Estimated tokens of one tool definition as the model sees it."""
    return TOOL_FRAME + text_tokens(spec.get("name", "")) + text_tokens(spec.get("description", "")) + _schema_tokens(spec.get("input_schema") or {})


@lru_cache(maxsize=1)
def _overhead_table() -> dict:
    return json.loads(resources.files("agentlab.sim").joinpath("data/tool_overhead.json").read_text("utf-8"))


def tool_prompt_overhead(model: str, tool_choice: dict | None) -> tuple[int, str]:
    """The hidden tool-use system prompt's tokens for ``model`` and ``tool_choice``, and whose figure it is."""
    table = _overhead_table()
    col = "any_tool" if (tool_choice or {}).get("type") in ("any", "tool") else "auto_none"
    for row in table["rows"]:
        if any(model.startswith(p) for p in row["prefixes"]):
            return row[col], row["family"]
    return table["fallback"][col], table["fallback"]["stands_in"]


COMPONENTS = ("tool_prompt", "tool_definitions", "system", "task", "history", "new")
"""The parts of a request's input, in the order a request lays them out (see :func:`input_parts`)."""

BREAKDOWN_HEADER = "agentlab-input-breakdown"
"""Response header in which the simulator reports :func:`input_parts` of the request, as JSON."""


def input_parts(body: dict) -> dict[str, int]:
    """Estimated input tokens of a Messages API request body, split by where they come from.

    - ``tool_prompt``: the hidden tool-use system prompt (only when ``tools`` is set);
    - ``tool_definitions``: the ``tools`` list (names, descriptions, schemas);
    - ``system``: the ``system`` prompt;
    - ``task``: the first message (the user's task) plus the request's own framing;
    - ``history``: every later message except the newest user message: earlier turns' assistant
      replies and tool results, re-sent;
    - ``new``: the newest user message when it follows earlier turns (e.g. the tool results just
      produced), i.e. content this call sends for the first time.

    The parts add up to :func:`estimate_input_tokens` exactly.
    """
    parts = dict.fromkeys(COMPONENTS, 0)
    system = body.get("system")
    if system:
        parts["system"] = SYSTEM_FRAME + content_tokens(system)
    msgs = body.get("messages") or []
    sizes = [MESSAGE_FRAME + content_tokens(m.get("content", "")) for m in msgs]
    parts["task"] = REQUEST_FRAME + (sizes[0] if sizes else 0)
    last_is_new = len(msgs) > 1 and msgs[-1].get("role") == "user"
    parts["new"] = sizes[-1] if last_is_new else 0
    parts["history"] = sum(sizes[1:-1] if last_is_new else sizes[1:])
    tools = body.get("tools") or []
    if tools:
        parts["tool_definitions"] = sum(tool_def_tokens(t) for t in tools)
        parts["tool_prompt"] = tool_prompt_overhead(body.get("model", ""), body.get("tool_choice"))[0]
    return parts


def estimate_input_tokens(body: dict) -> int:
    """Estimated ``usage.input_tokens`` for a Messages API request body (the sum of :func:`input_parts`)."""
    return sum(input_parts(body).values())


def estimate_output_tokens(blocks: list[dict]) -> int:
    """Estimated ``usage.output_tokens`` for the content blocks the simulated model wrote."""
    return max(1, content_tokens(blocks))
