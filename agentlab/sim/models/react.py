"""``ReactWriter``: the simulated model prompted for ReAct writes Thought / Action / Action Input prose.

When a request has no ``tools`` and its system prompt asks for ``Action Input:`` lines, the model
reads the ReAct transcript (its own actions, the harness's ``Observation:`` and ``Format error``
messages) as the tool calls and results they stand for, decides the next step as ``CarefulAgent``
would, and writes that step as text. With ``malformed`` > 0 some actions come out malformed
(seeded, so runs repeat exactly): JSON with single quotes, a call written as ``name(arg=...)``, or a
missing ``Action Input`` line. After a format error it writes the next action correctly. With
``tools`` in the request it is ``CarefulAgent`` unchanged (native tool use).
"""

from __future__ import annotations

import hashlib
import json
import re

from agentlab.sim.models.city_task import city_steps
from agentlab.sim.models.reading import is_chinese, text_of
from agentlab.sim.models.roles import role_for
from agentlab.sim.policy import Reply

_ACTION = re.compile(r"Action:\s*(\S+)\s*\nAction Input:\s*(\{.*\})", re.S)
_TOOL_LINE = re.compile(r"^- (\w+): ", re.M)
FORMAT_ERROR = ("Format error", "格式错误")
"""How the harness's parse-error messages begin (English, Chinese)."""


def _is_zh(messages: list) -> bool:
    """True when the task (the first user message) is written in Chinese."""
    first = messages[0].get("content", "") if messages else ""
    return is_chinese(first if isinstance(first, str) else text_of(first))


MALFORMS = ("single_quotes", "call_syntax", "no_input_line")
"""The ways a seeded malformed action goes wrong."""


def is_react_request(request: dict) -> bool:
    """True for a request prompting ReAct: no ``tools``, and a system prompt asking for ``Action Input:``."""
    system = request.get("system") or ""
    system = system if isinstance(system, str) else text_of(system)
    return not request.get("tools") and "Action Input:" in system


class ReactWriter:
    """Writes ReAct prose for ReAct prompts, native tool calls otherwise (see the module docstring)."""

    def __init__(self, malformed: float = 0.0, seed: int = 0) -> None:
        if not 0.0 <= malformed <= 1.0:
            raise ValueError(f"ReactWriter(malformed={malformed!r}): give a fraction between 0 and 1")
        self.malformed, self.seed = malformed, seed

    def __call__(self, request: dict) -> Reply:
        if not is_react_request(request):
            return _native(request)
        system = request["system"] if isinstance(request["system"], str) else text_of(request["system"])
        tools = [{"name": n, "input_schema": {"type": "object"}} for n in _TOOL_LINE.findall(system)]
        messages, last_was_error = _as_native(request.get("messages", []))
        step = _native({**request, "system": None, "tools": tools, "messages": messages}).content
        use = next((b for b in step if b.get("type") == "tool_use"), None)
        said = " ".join(b["text"] for b in step if b.get("type") == "text").strip()
        zh = _is_zh(request.get("messages", []))  # a Chinese task gets Chinese thoughts, as its answer is Chinese
        if use is None:
            done = "我需要的信息都有了。" if zh else "I have what I need."
            return Reply([{"type": "text", "text": f"Thought: {done}\nFinal Answer: {said}"}])
        thought = said or (f"我应该调用 {use['name']}。" if zh else f"I should call {use['name']}.")
        args = json.dumps(use["input"], ensure_ascii=False)
        turn = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")
        if not last_was_error and self._draw(turn) < self.malformed:
            kind = MALFORMS[int(self._draw(turn, "kind") * len(MALFORMS))]
            if kind == "single_quotes":
                args = args.replace('"', "'")
            elif kind == "call_syntax":
                inner = ", ".join(f"{k}={v!r}" for k, v in use["input"].items())
                return Reply([{"type": "text", "text": f"Thought: {thought}\nAction: {use['name']}({inner})"}])
            else:
                return Reply([{"type": "text", "text": f"Thought: {thought}\nAction: {use['name']}"}])
        return Reply([{"type": "text", "text": f"Thought: {thought}\nAction: {use['name']}\nAction Input: {args}"}])

    def _draw(self, turn: int, salt: str = "") -> float:
        """A number in [0, 1) fixed by the seed, the turn and ``salt``."""
        h = hashlib.sha256(f"{self.seed}:{turn}:{salt}".encode()).digest()
        return int.from_bytes(h[:8], "big") / 2**64


def _native(request: dict) -> Reply:
    """What ``CarefulAgent`` writes for a request that does not prompt ReAct: a role's answer, or the city steps."""
    role = role_for(request)
    return role(request) if role is not None else city_steps(request)


def _as_native(messages: list[dict]) -> tuple[list[dict], bool]:
    """The ReAct transcript as native tool_use / tool_result messages; True if it ends with a format error."""
    out: list[dict] = []
    pending_id = None
    last_error = False
    for i, m in enumerate(messages):
        text = text_of(m.get("content", ""))
        if i == 0:
            out.append(m)
            continue
        if m.get("role") == "assistant":
            match = _ACTION.search(text)
            try:
                parsed = (match.group(1), json.loads(match.group(2))) if match else None
            except json.JSONDecodeError:
                parsed = None
            pending_id = f"react_{i}" if parsed else None
            if parsed:
                out.append(
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": pending_id, "name": parsed[0], "input": parsed[1]}],
                    }
                )
            continue
        last_error = text.startswith(FORMAT_ERROR)
        if pending_id and text.startswith("Observation:"):
            body = text[len("Observation:") :].strip()
            error = body.startswith("Error: ")
            out.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": pending_id,
                            "content": body[7:] if error else body,
                            "is_error": error,
                        }
                    ],
                }
            )
        pending_id = None
    return out, last_error
