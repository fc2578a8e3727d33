"""The simulator's token *estimator*: a stand-in for Claude's tokenizer, which is not public.

Every number it produces is an estimate, and the simulator's ``usage`` says so only through this
module's name: treat simulated token counts as "about this many", never as billing figures. Real
runs use the ``usage`` the API returns.

How it counts:
- text: one token per ASCII word (plus one per further 10 letters of a long word), per group of up
  to three digits, per run of punctuation, and per CJK character;
- a request: a fixed framing cost, the system prompt, every message and block, every tool
  definition (name, description, each property) and, when ``tools`` is non-empty, the hidden
  tool-use system prompt for that model and ``tool_choice`` (the model's profile, ``profiles.py``);
- per model: text counts (content, tool definitions) are multiplied by the profile's tokenizer factor
  (about 1.3 for Opus 4.7 and later and the 5.x models, whose newer tokenizer the docs say produces
  about 30% more tokens for the same text); framing and the documented tool-prompt figures are not;
- images: by the documented formula (width x height / 750 after the API's downscaling), ``images.py``.

The framing constants below were set so that the two requests Anthropic publishes with their
counts come out right with the older tokenizer ("You are a scientist" + "Hello, Claude" = 14; the
docs' ``get_weather`` tool + "What's the weather like in San Francisco?" = 403 with the 346-token
tool prompt of the table those counts were published with). They are therefore fitted on those two
points, and matching them is not evidence of accuracy elsewhere.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from agentlab.api.documents import CHARS_PER_TOKEN, document_parts
from agentlab.api.images import image_tokens
from agentlab.api.profiles import profile, profile_data

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


@lru_cache(maxsize=16384)  # the history is re-sent every turn: most texts were counted before
def text_tokens(text: str) -> int:
    """Estimated tokens in a piece of text."""
    n = 0
    for piece in _PIECE.findall(text):
        n += 1 + (len(piece) // 10 if piece.isascii() and piece.isalpha() else 0)
    return n


def tokenizer_factor(model: str | None) -> float:
    """The model's tokenizer factor against the reference tokenizer (1.0 for an unknown model)."""
    p = profile(model) if model else None
    return p.tokenizer if p else 1.0


def _scaled(n: int, model: str | None) -> int:
    factor = tokenizer_factor(model)
    return n if factor == 1.0 else round(n * factor)


def _block_tokens(block: Any) -> int:
    if isinstance(block, str):
        return text_tokens(block)
    if not isinstance(block, dict):
        return text_tokens(str(block))
    kind = block.get("type")
    if kind == "text":
        return text_tokens(str(block.get("text", "")))
    if kind == "image":
        return image_tokens(block)
    if kind == "tool_use":
        return (
            BLOCK_FRAME
            + text_tokens(str(block.get("name", "")))
            + text_tokens(json.dumps(block.get("input", {}), ensure_ascii=False))
        )
    if kind == "tool_result":
        return BLOCK_FRAME + content_tokens(block.get("content", ""))
    if kind == "thinking":  # the text shown, and what its signature says was left out
        return text_tokens(str(block.get("thinking", ""))) + left_out(block.get("signature"))
    if kind == "redacted_thinking":  # its data is opaque to the estimate
        return text_tokens(str(block.get("thinking", "")))
    return text_tokens(json.dumps(block, ensure_ascii=False))  # other block types: count their JSON


LEFT_OUT = re.compile(r"sim1[0-9a-f]{40}h([0-9]{1,9})")
"""A simulator signature of a thinking block whose text the reply left out (``display`` ``"omitted"``): it ends
in ``h`` and the number of tokens the model generated there (``sim/validate_model.signature``)."""


def left_out(signature: object) -> int:
    """Tokens of thinking the model generated but the reply did not show, as its ``signature`` carries them.

    The API decrypts its own signatures, so the model sees that thinking again when the block is sent back, and
    bills it as input; the simulator's signatures carry its size instead (a stand-in). The API's signatures are
    opaque here, so for them this is 0 and an estimate of a live request misses that thinking."""
    found = LEFT_OUT.fullmatch(signature) if isinstance(signature, str) else None
    return int(found.group(1)) if found else 0


def measured(model: str | None, name: str) -> int:
    """A figure measured on recorded real traffic for ``model`` (``profiles.json`` ``measured``; 0 when none)."""
    p = profile(model) if model else None
    return int(p.measured.get(name, 0)) if p else 0


def content_tokens(content: Any, *, model: str | None = None) -> int:
    """Estimated tokens in a message's ``content`` (a string or a list of blocks), for ``model``'s tokenizer."""
    if isinstance(content, str):
        return _scaled(text_tokens(content), model)
    if not isinstance(content, list):
        return 0
    # scaled block by block, so a request counted whole and counted as blocks (the prompt cache) agree exactly;
    # a tool_use block also costs its model's measured wrapper (the recordings: about 60 tokens a round trip)
    wrapper = measured(model, "tool_use_block")
    return sum(
        image_tokens(b)
        if isinstance(b, dict) and b.get("type") == "image"
        else pdf_tokens(b, model)
        if _is_pdf(b)
        else _scaled(_block_tokens(b), model) + (wrapper if isinstance(b, dict) and b.get("type") == "tool_use" else 0)
        for b in content
    )


def _is_pdf(block: Any) -> bool:
    source = block.get("source") if isinstance(block, dict) and block.get("type") == "document" else None
    return isinstance(source, dict) and (
        source.get("type") in ("url", "file") or source.get("media_type") == "application/pdf"
    )


def pdf_tokens(block: dict, model: str | None = None) -> int:
    """Estimated tokens of a PDF ``document`` block: each page's image plus the text it shows (``documents.py``)."""
    images, text, glyphs = document_parts(block)
    return images + _scaled(BLOCK_FRAME + text_tokens(text) + -(-glyphs // CHARS_PER_TOKEN), model)


def _schema_tokens(schema: dict) -> int:
    n = 0
    props = schema.get("properties") if isinstance(schema, dict) else None
    for name, prop in (props if isinstance(props, dict) else {}).items():
        if not isinstance(prop, dict):
            n += text_tokens(str(name))
            continue
        n += (
            text_tokens(str(name))
            + text_tokens(str(prop.get("type", "")))
            + text_tokens(str(prop.get("description", "")))
        )
        if "enum" in prop:
            n += text_tokens(" ".join(map(str, prop["enum"])))
        if isinstance(prop.get("items"), dict):
            n += _schema_tokens({"properties": {"item": prop["items"]}})
    required = schema.get("required", []) if isinstance(schema, dict) else []
    return n + sum(text_tokens(str(r)) for r in (required if isinstance(required, list) else []))


def tool_def_tokens(spec: dict, *, model: str | None = None) -> int:
    """Estimated tokens of one tool definition as the model sees it (its text scaled by ``model``'s tokenizer)."""
    if not isinstance(spec, dict):
        return TOOL_FRAME
    text = text_tokens(str(spec.get("name", ""))) + text_tokens(str(spec.get("description", "")))
    return TOOL_FRAME + _scaled(text + _schema_tokens(spec.get("input_schema") or {}), model) + server_tool_prompt(spec)


def server_tool_prompt(spec: dict) -> int:
    """The hidden prompt of an Anthropic-defined tool (``web_search_...``, ``code_execution_...``), measured on
    recorded real traffic (``profiles.json`` ``measured.server_tools``); 0 for a custom or unmeasured tool."""
    kind = str(spec.get("type") or "custom")
    if kind == "custom":
        return 0
    table = profile_data()["measured"]["server_tools"]
    return next((int(v["tokens"]) for k, v in table.items() if not k.startswith("_") and kind.startswith(k)), 0)


def referenced_tools(body: dict) -> set[str]:
    """Names of the tools a ``tool_reference`` (tool search) or ``tool_addition`` block in the messages has loaded."""
    names = set()
    for m in body.get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            tool = b.get("tool") if isinstance(b, dict) and b.get("type") == "tool_addition" else None
            if isinstance(tool, dict):  # a system message's tool_addition (recorded on Opus 4.8, Fable 5)
                names.add(tool.get("name"))
            inner = b.get("content") if isinstance(b, dict) and b.get("type") == "tool_result" else None
            names |= (
                {r.get("tool_name") for r in inner if isinstance(r, dict) and r.get("type") == "tool_reference"}
                if isinstance(inner, list)
                else set()
            )
    return names


def loaded(spec: object, referenced: set[str]) -> bool:
    """Whether a tool definition is in the model's context: a ``defer_loading`` tool only once referenced
    (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool: deferred tools are not
    loaded into context until a search returns a reference to them)."""
    return not (isinstance(spec, dict) and spec.get("defer_loading") and spec.get("name") not in referenced)


def deferred(tools: list) -> bool:
    """Whether any tool definition is marked ``defer_loading`` (tool search, or a client's own deferred loading)."""
    return any(isinstance(t, dict) and t.get("defer_loading") for t in tools or [])


def tool_prompt_overhead(model: str, tool_choice: dict | None, *, deferred: bool = False) -> tuple[int, str]:
    """The hidden tool-use system prompt's tokens for ``model`` and ``tool_choice``, and whose figure it is.

    ``deferred``: some tool is marked ``defer_loading``, which adds the model's measured ``deferred_tools``
    figure (the recordings: real requests with a deferred tool carry about 165 tokens more on the 1.3-tokenizer
    models than the same tools without one; the docs give no figure). The second value names the figure: the
    model's own, or the named stand-in where the docs give none."""
    forced = isinstance(tool_choice, dict) and tool_choice.get("type") in ("any", "tool")
    p = profile(model)
    if p is None:
        fb = profile_data()["fallback_tool_prompt"]
        p = profile(fb["from"])
        assert p is not None, "profiles.json: fallback_tool_prompt names no profile"
        extra = measured(p.id, "tool_prompt_offset") + (measured(p.id, "deferred_tools") if deferred else 0)
        return p.tool_prompt[forced] + extra, f"{p.name} figure stands in: {model!r} has no profile"
    offset = measured(model, "tool_prompt_offset") + (measured(model, "deferred_tools") if deferred else 0)
    note = p.tool_prompt_note or f"{p.name} (published figure)"
    return p.tool_prompt[forced] + offset, note + (
        f", {offset:+d} measured on recorded traffic ({p.measured_note})" if offset else ""
    )


def hidden_prompt_tokens(body: dict) -> int:
    """Hidden system-prompt tokens besides the tool-use prompt: thinking on, JSON outputs (plus their schema),
    ``task_budget``; each figure measured on recorded real traffic for the model (``measured``)."""
    model = str(body.get("model", ""))
    n = 0
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        n += measured(model, f"thinking_{thinking['type']}")
    config = body.get("output_config")
    if isinstance(config, dict):
        fmt = config.get("format")
        if isinstance(fmt, dict):
            n += measured(model, "structured_output") + _scaled(_schema_tokens(fmt.get("schema") or {}), model)
        if config.get("task_budget"):
            n += measured(model, "task_budget")
    return n


COMPONENTS = ("tool_prompt", "tool_definitions", "system", "task", "history", "new")
"""The parts of a request's input, in the order a request lays them out (see :func:`input_parts`)."""


def input_parts(body: dict) -> dict[str, int]:
    """Estimated input tokens of a Messages API request body, split by where they come from.

    - ``tool_prompt``: the hidden tool-use system prompt (only when ``tools`` is set);
    - ``tool_definitions``: the ``tools`` list (names, descriptions, schemas);
    - ``system``: the ``system`` prompt and the hidden prompts of thinking, JSON outputs, ``task_budget``;
    - ``task``: the first message (the user's task) plus the request's own framing;
    - ``history``: every later message except the newest user message: earlier turns' assistant
      replies and tool results, re-sent;
    - ``new``: the newest user message when it follows earlier turns (e.g. the tool results just
      produced), i.e. content this call sends for the first time.

    The parts add up to :func:`estimate_input_tokens` exactly.
    """
    model = str(body.get("model", ""))
    parts = dict.fromkeys(COMPONENTS, 0)
    system = body.get("system")
    if system:
        parts["system"] = SYSTEM_FRAME + content_tokens(system, model=model)
    parts["system"] += hidden_prompt_tokens(body)
    msgs = body.get("messages") or []
    sizes = [MESSAGE_FRAME + content_tokens(m.get("content", ""), model=model) for m in msgs]
    parts["task"] = REQUEST_FRAME + (sizes[0] if sizes else 0)
    last_is_new = len(msgs) > 1 and msgs[-1].get("role") == "user"
    parts["new"] = sizes[-1] if last_is_new else 0
    parts["history"] = sum(sizes[1:-1] if last_is_new else sizes[1:])
    tools = body.get("tools") or []
    if tools:
        refs = referenced_tools(body)
        parts["tool_definitions"] = sum(tool_def_tokens(t, model=model) for t in tools if loaded(t, refs))
        parts["tool_prompt"] = tool_prompt_overhead(model, body.get("tool_choice"), deferred=deferred(tools))[0]
    return parts


def estimate_input_tokens(body: dict) -> int:
    """Estimated ``usage.input_tokens`` for a Messages API request body (the sum of :func:`input_parts`)."""
    return sum(input_parts(body).values())


def estimate_output_tokens(blocks: list[dict], *, model: str | None = None) -> int:
    """Estimated ``usage.output_tokens`` for the content blocks the simulated model wrote."""
    return max(1, content_tokens(blocks, model=model))
