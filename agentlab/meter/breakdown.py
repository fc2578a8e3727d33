"""Where a call's input tokens go: the hidden tool-use prompt, tool definitions, system, task, history, new.

Every request with ``tools`` pays, on every call, for the tool-use system prompt the API adds and for
the tool definitions (both are billed input: https://platform.claude.com/docs/en/docs/agents-and-tools/tool-use/overview#pricing),
then for the system prompt and the task, then for the conversation so far. Only the last parts grow.

Two sources for the split:

- **simulator**: the estimator's own parts (``agentlab.api.tokens.input_parts``), sent in a response
  header; they add up to the simulated ``input_tokens`` exactly (``residual == 0``).
- **count_tokens** (live): the free ``POST /v1/messages/count_tokens`` endpoint
  (https://platform.claude.com/docs/en/build-with-claude/token-counting) on growing prefixes of the
  request (task only; + system; + tools; + history; the whole request). Differences between those
  counts are the parts. The split of the tools' share into tool-use prompt and definitions uses the
  published tool-use prompt size (``tool_prompt`` in ``agentlab/api/data/profiles.json``). What the counts do not
  explain (the real ``usage`` minus the counted total) is kept as ``residual``, never hidden.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from agentlab.api.tokens import COMPONENTS, tool_prompt_overhead
from agentlab.api.wire import BREAKDOWN_HEADER

LABELS = {
    "tool_prompt": "tool-use system prompt",
    "tool_definitions": "tool definitions",
    "system": "system prompt",
    "task": "task",
    "history": "history (earlier turns)",
    "new": "new this turn",
}
"""Display names of the parts, in request order."""

_COUNT_KEYS = ("model", "system", "tools", "tool_choice", "thinking")
"""Request fields that ``count_tokens`` accepts and that change the count."""


@dataclass(frozen=True)
class InputBreakdown:
    """One call's input tokens split by where they come from (see the module docstring)."""

    tool_prompt: int
    """The hidden tool-use system prompt the API adds when ``tools`` is set."""
    tool_definitions: int
    """The ``tools`` list: names, descriptions, input schemas."""
    system: int
    """The ``system`` prompt."""
    task: int
    """The first message (the task) and the request's own framing."""
    history: int
    """Earlier turns re-sent: assistant replies and tool results after the task, except the newest user message."""
    new: int
    """The newest user message (e.g. the tool results just produced): sent for the first time."""
    residual: int = 0
    """The call's reported input (``input_tokens`` + cache reads + cache writes) minus the parts' sum."""
    source: str = "simulator"
    """``"simulator"`` (the estimator's parts) or ``"count_tokens"`` (live prefix counts)."""

    @property
    def fixed(self) -> int:
        """The part every call of the conversation sends again unchanged: tool prompt, definitions, system, task."""
        return self.tool_prompt + self.tool_definitions + self.system + self.task

    @property
    def parts_total(self) -> int:
        """Sum of the six parts (the reported input is this plus ``residual``)."""
        return self.fixed + self.history + self.new

    def parts(self) -> dict[str, int]:
        """The six parts by name, in request order."""
        return {k: getattr(self, k) for k in COMPONENTS}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)


def from_header(headers: Any, reported_input: int) -> InputBreakdown | None:
    """The simulator's breakdown from a response's headers, or ``None`` when there is none."""
    raw = headers.get(BREAKDOWN_HEADER)
    if not raw:
        return None
    parts = json.loads(raw)
    made = InputBreakdown(**{k: int(parts.get(k, 0)) for k in COMPONENTS})
    return InputBreakdown(**{**made.parts(), "residual": reported_input - made.parts_total, "source": "simulator"})


def count_prefixes(client: Any, body: dict, on_error: Any = None) -> dict[str, int] | None:
    """Live, before the paid call: ``count_tokens`` on ``body``'s prefixes (up to five free calls), or
    ``None`` when any count fails (a 429, a 400, no network). Counts are never retried (``max_retries=0``)
    and a failure never reaches the paid call: it is then sent, and metered, without a split.

    The prefix before the newest message would end in the assistant's turn; a model that refuses
    prefill (its profile's ``prefill``) rejects that, so for it the newest message is counted as a
    placeholder of the same shape (each ``tool_result`` with empty content, a text as ``"."``) and
    its framing is reported inside history. ``on_error(exception)`` hears of a failed count.
    """
    from anthropic import AnthropicError

    from agentlab.api.profiles import profiles

    msgs = list(body.get("messages") or [])
    base = {k: body[k] for k in _COUNT_KEYS if k in body and body[k] is not None}
    counter = client.with_options(max_retries=0)

    def count(messages: list, *keep: str) -> int:
        params = {k: v for k, v in base.items() if k == "model" or k in keep}
        if "tools" not in keep:
            params.pop("tool_choice", None)
        return counter.messages.count_tokens(messages=messages, **params).input_tokens

    everything = ("system", "tools", "tool_choice", "thinking")
    try:
        task = count(msgs[:1])
        with_system = count(msgs[:1], "system") if base.get("system") else task
        with_tools = count(msgs[:1], *everything) if base.get("tools") else with_system
        whole = count(msgs, *everything) if len(msgs) > 1 else with_tools
        before_new = whole
        if len(msgs) > 1 and msgs[-1].get("role") == "user":
            profile = profiles().get(str(body.get("model", "")))
            if len(msgs) == 2:
                before_new = with_tools
            elif profile is None or profile.prefill:
                before_new = count(msgs[:-1], *everything)
            else:
                before_new = count([*msgs[:-1], _placeholder(msgs[-1])], *everything)
    except AnthropicError as e:  # a local server without count_tokens, a 429, no network: no split, no retry
        if on_error is not None:
            on_error(e)
        return None
    return {
        "task": task,
        "with_system": with_system,
        "with_tools": with_tools,
        "before_new": before_new,
        "whole": whole,
    }


def _placeholder(message: dict) -> dict:
    """A user message of the same shape with (almost) no content: its tool_results answer the same ids."""
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": b["tool_use_id"], "content": ""}
                for b in content
                if isinstance(b, dict) and b.get("type") == "tool_result"
            ],
        }
    return {"role": "user", "content": "."}


def from_counts(counts: dict[str, int], body: dict, reported_input: int) -> InputBreakdown:
    """The split from :func:`count_prefixes`' counts; ``reported_input`` is the call's real input
    (``input_tokens`` + cache reads + cache writes)."""
    task, with_system, with_tools = counts["task"], counts["with_system"], counts["with_tools"]
    before_new, whole = min(counts["before_new"], counts["whole"]), counts["whole"]
    tools_share = with_tools - with_system
    prompt = (
        min(tools_share, tool_prompt_overhead(body.get("model", ""), body.get("tool_choice"))[0]) if tools_share else 0
    )
    made = InputBreakdown(
        tool_prompt=prompt,
        tool_definitions=tools_share - prompt,
        system=with_system - task,
        task=task,
        history=before_new - with_tools,
        new=whole - before_new,
        source="count_tokens",
    )
    return InputBreakdown(**{**made.parts(), "residual": reported_input - made.parts_total, "source": "count_tokens"})


def count_parts(client: Any, body: dict, reported_input: int) -> InputBreakdown | None:
    """Live: split ``body``'s input with ``count_tokens`` on its prefixes; ``None`` when a count failed."""
    counts = count_prefixes(client, body)
    return None if counts is None else from_counts(counts, body, reported_input)
