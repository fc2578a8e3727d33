"""Simulated models that misbehave, each in one named way, so each guard has something to catch.

- ``Looper``: asks for the same tool with the same input every turn (caught by ``max_repeats``).
- ``Wanderer``: asks with new input every turn, each failing, so nothing new is learnt
  (caught by ``max_idle_turns``; ``max_repeats`` never sees a repeat).
- ``SlowModel``: another policy whose every reply takes ``latency_s`` on a ``FakeClock``
  (caught by ``max_wall_s``; nothing really sleeps).
- ``ToolOutsideList``: asks for a tool it was not given, every turn (the harness refuses to run it;
  ``max_repeats`` ends the run).
- ``CarelessModel``: does the task like ``CarefulAgent`` but gets its first tool call wrong in one
  named way (``CARELESS_CASES``), and corrects itself only if the error says what to fix.

Every one of them is deterministic.
"""

from __future__ import annotations

import json

from agentlab.sim.clock import SimClock
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.reading import CJK, cities_in, exchanges, read_error, retry_limit, text_of, why_failed
from agentlab.sim.policy import Policy, Reply

FakeClock = SimClock
"""The clock the slow model runs on: moves only when told (``advance``); the same class as ``SimClock``."""


class Looper:
    """Asks for ``tool`` with ``tool_input`` every turn, forever."""

    def __init__(self, tool: str = "get_weather", tool_input: dict | None = None) -> None:
        self.tool, self.input = tool, tool_input if tool_input is not None else {"city": "Paris"}

    def __call__(self, request: dict) -> Reply:
        return Reply(
            [
                {"type": "text", "text": "Let me check that once more."},
                {"type": "tool_use", "name": self.tool, "input": dict(self.input)},
            ]
        )


class Wanderer:
    """Asks for ``tool`` with a new made-up ``field`` value every turn ("Place 1", "Place 2", ...)."""

    def __init__(self, tool: str = "get_weather", field: str = "city") -> None:
        self.tool, self.field = tool, field

    def __call__(self, request: dict) -> Reply:
        n = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant") + 1
        return Reply(
            [
                {"type": "text", "text": "Let me try another place."},
                {"type": "tool_use", "name": self.tool, "input": {self.field: f"Place {n}"}},
            ]
        )


class SlowModel:
    """Wraps ``policy``; each reply first moves ``clock`` on by ``latency_s`` seconds."""

    def __init__(self, clock: FakeClock, latency_s: float = 3.0, policy: Policy | None = None) -> None:
        self.clock, self.latency_s = clock, latency_s
        self.policy = policy if policy is not None else CarefulAgent()

    def __call__(self, request: dict) -> Reply:
        self.clock.advance(self.latency_s)
        return self.policy(request)


class ToolOutsideList:
    """Asks for a tool that is not in the request's ``tools`` (default ``delete_files``), every turn."""

    def __init__(self, tool: str = "delete_files", tool_input: dict | None = None) -> None:
        self.tool, self.input = tool, tool_input if tool_input is not None else {"path": "/"}

    def __call__(self, request: dict) -> Reply:
        offered = [t.get("name") for t in request.get("tools") or []]
        if self.tool in offered:
            raise ValueError(f"ToolOutsideList: {self.tool!r} is in the request's tools; pick a tool it was not given")
        return Reply([{"type": "tool_use", "name": self.tool, "input": dict(self.input)}])


def _careless(case: str, city: str) -> dict:
    """The wrong first call for ``case``, instead of ``get_weather(city=city)``."""
    return {
        "unknown_tool": {"name": "get_wether", "input": {"city": city}},
        "missing_field": {"name": "get_weather", "input": {"location": city}},
        "wrong_type": {"name": "get_weather", "input": {"city": [city]}},
        "exception": {"name": "get_weather", "input": {"city": city + city[-1]}},
        "oversized": {"name": "get_weather_report", "input": {"city": city}},
        "timeout": {"name": "get_weather", "input": {"city": city}},
    }[case]  # timeout: the tool is at fault


CARELESS_CASES = ("unknown_tool", "missing_field", "wrong_type", "exception", "timeout", "oversized")
"""How ``CarelessModel`` gets its first call wrong: a misspelt tool name, a missing required field,
a wrong type, a misspelt city (the tool raises), a tool that times out on its first call (the model is
fine, the tool is not), and a tool whose output is too big (cut by the harness)."""


class CarelessModel:
    """``CarefulAgent`` whose first ``get_weather`` call is wrong in the way ``case`` names.

    After the wrong call it reads the answer with ``read_error``: an error that says what to fix
    makes it hand over to ``CarefulAgent`` (which then makes the right call); a raw traceback, or
    output it cannot read, gets a blind retry of the same call (``retry_limit("traceback")``, one); anything else makes it give up and
    say why. The ``timeout`` case calls correctly (the tool is at fault), so ``CarefulAgent``'s own
    error reading does the recovering.
    """

    def __init__(self, case: str) -> None:
        if case not in CARELESS_CASES:
            raise ValueError(f"CarelessModel(case={case!r}): case must be one of {', '.join(CARELESS_CASES)}")
        self.case = case
        self.base = CarefulAgent()

    def __call__(self, request: dict) -> Reply:
        messages = request.get("messages", [])
        task = text_of(messages[0]["content"]) if messages else ""
        zh = bool(CJK.search(task))
        wrong = {json.dumps(_careless(self.case, c), sort_keys=True) for c in cities_in(task) if self.case != "timeout"}
        tries, bodies, kept = self._exchanges(messages, wrong)
        plan = self.base({**request, "messages": kept})
        if self.case == "timeout" or (tries and bodies[-1] == _USABLE) or (tries and read_error(bodies[-1]) == "fix"):
            return plan  # corrected (or never wrong): carry on as the careful agent would
        if not tries:
            wanted = next((b for b in plan.content if b.get("type") == "tool_use" and b["name"] == "get_weather"), None)
            if wanted is None:
                return plan
            # the first lookup careless, the plan's other calls (the other cities, in parallel) as planned
            return Reply(
                [
                    {"type": "tool_use", **_careless(self.case, wanted["input"]["city"])} if b is wanted else b
                    for b in plan.content
                ]
            )
        if len(tries) <= retry_limit("traceback") and (bodies[-1] == _CUT or read_error(bodies[-1]) == "traceback"):
            return Reply(
                [{"type": "tool_use", **tries[-1]}]
            )  # a blind retry of the same call (the careful model's bound)
        why = why_failed(bodies[-1])
        text = (
            f"这个工具调用失败了，错误没有说明该怎么改，所以我停下来。错误：{why}"
            if zh
            else f"The tool call failed and the error does not say what to change, so I am stopping. The error was: {why}"
        )
        return Reply([{"type": "text", "text": text}])

    @staticmethod
    def _exchanges(messages: list[dict], wrong: set[str]) -> tuple[list[dict], list[str], list[dict]]:
        """The wrong calls made so far, what came back for each, and the conversation without them."""
        answers = {(ex.at, ex.id): ex for ex in exchanges(messages)}
        tries, bodies, kept = [], [], []
        answer_at, wrong_id = None, None
        for at, m in enumerate(messages):
            blocks = m.get("content") if isinstance(m.get("content"), list) else []
            if at == answer_at:  # the answer to a wrong call: not part of the task's conversation
                rest = [b for b in blocks if b.get("tool_use_id") != wrong_id]
                if rest:  # the results of the calls asked for beside it stay
                    kept.append({**m, "content": rest})
                continue
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            call = {"name": uses[0]["name"], "input": uses[0].get("input")} if uses else None
            if m.get("role") == "assistant" and call and json.dumps(call, sort_keys=True) in wrong:
                tries.append(call)
                answer_at, wrong_id = at + 1, uses[0].get("id")
                answer = answers.get((answer_at, wrong_id))
                if answer is not None:
                    bodies.append(answer.body if answer.is_error else _judge(answer.body))
                if len(uses) > 1:  # the other calls of that reply were the plan's: keep them
                    kept.append({**m, "content": [b for b in blocks if b is not uses[0]]})
                continue
            kept.append(m)
        return tries, bodies, kept


_USABLE = "(a usable result)"
_CUT = "the result was cut off before the temperature and could not be read"


def _judge(body: str) -> str:
    """A successful result as the careless model sees it: usable JSON, a cut with a note (kept), or cut and unreadable."""
    try:
        return _USABLE if "temp_c" in json.loads(body) else _CUT
    except ValueError:
        return body if read_error(body) == "fix" else _CUT  # a truncation note that says to ask for less
