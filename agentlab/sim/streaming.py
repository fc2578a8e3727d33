"""``stream: true``: a finished simulated message replayed as the API's server-sent events.

The order and shapes follow https://platform.claude.com/docs/en/build-with-claude/streaming (read
2026-11-30): ``message_start`` (the message with empty ``content`` and the input usage), then per
content block ``content_block_start``, its deltas (``text_delta``, ``input_json_delta``,
``thinking_delta`` then ``signature_delta``) and ``content_block_stop``, with one ``ping`` after the
first block starts; then ``message_delta`` (stop reason and final usage) and ``message_stop``.
Text is cut into small pieces at word boundaries and tool input JSON into short fragments, so a
client meets several deltas per block, as it does online.
"""

from __future__ import annotations

import json
import re

TEXT_PIECE = 3
"""Words per ``text_delta`` / ``thinking_delta``."""
JSON_PIECE = 16
"""Characters per ``input_json_delta``."""


def _event(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


def _pieces(text: str, words: int = TEXT_PIECE) -> list[str]:
    parts = re.findall(r"\S+\s*|\s+", text)
    return ["".join(parts[i : i + words]) for i in range(0, len(parts), words)] or [""]


def _block_events(index: int, block: dict) -> list[bytes]:
    kind = block["type"]
    out = []
    if kind == "text":
        out.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
        )
        deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"])]
    elif kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        if "caller" in block:  # recorded in the start event too, after input (respond.py)
            start["caller"] = block["caller"]
        out.append(
            _event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        raw = json.dumps(block.get("input", {}), ensure_ascii=False)
        deltas = [
            {"type": "input_json_delta", "partial_json": raw[i : i + JSON_PIECE]}
            for i in range(0, len(raw), JSON_PIECE)
        ]
    elif kind == "thinking":
        out.append(
            _event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
            )
        )
        deltas = (
            [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])] if block["thinking"] else []
        )
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:  # any other block arrives whole in its start event
        out.append(
            _event("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
        )
        deltas = []
    out += [_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    return out


def sse_body(message: dict) -> bytes:
    """The whole event stream for a finished ``message`` (the JSON ``POST /v1/messages`` would return)."""
    usage = message["usage"]
    start_usage = {k: v for k, v in usage.items() if k != "output_tokens_details"}  # recorded on message_delta only
    start_usage["output_tokens"] = 1
    head = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": start_usage,
    }
    events = [_event("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(message["content"]):
        block_events = _block_events(index, block)
        events += block_events[:1] + ([_event("ping", {"type": "ping"})] if index == 0 else []) + block_events[1:]
    if not message["content"]:
        events.append(_event("ping", {"type": "ping"}))
    events.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": message["stop_reason"],
                    "stop_sequence": message["stop_sequence"],
                    "stop_details": message.get("stop_details"),
                },
                "usage": usage,
            },
        )
    )
    events.append(_event("message_stop", {"type": "message_stop"}))
    return b"".join(events)
