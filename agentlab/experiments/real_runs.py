"""Real Claude runs beside the simulated ones: three recorded weather-tool runs, replayed through ``run_agent``.

pydantic/pydantic-ai's test suite recorded these against the real API (``scripts/make_real_runs.py`` made the
cassettes in ``agentlab/data/real_runs/``; ``sources.json`` says where each came from). :func:`replay` plays one
through the lab's own loop in replay mode: the cassette answers each call, and it refuses any request that asks
the API anything else than the recorded one did (``agentlab.live.cassette.canonical``: only spellings the API reads
as the same, such as a string ``content`` for one text block, pass), so the run's turns, tool calls and real
``usage`` are the recording's. The tools answer with the results pydantic-ai's tests sent back (a stand-in for a weather
service: the model's side is what is real). The simulator has no run of these exact tasks (its scripted model
knows the course's task), so :func:`shape` lets a notebook set a real run beside a simulated run of the same
shape: turns, what each reply held, input and output tokens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from agentlab.client import connect
from agentlab.live.cassette import forget, load
from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.tools import Tool, ToolError

RUNS = ("paris", "amsterdam", "denver")
"""The bundled real runs: one tool call (Paris), a sentence and one call (Amsterdam, an older model), two
different tools asked for in one reply (Denver)."""


def cassette(name: str) -> Path:
    """The bundled cassette of the real run ``name`` (one of :data:`RUNS`)."""
    if name not in RUNS:
        raise ValueError(f"real_runs: no run {name!r}; the bundled runs are {', '.join(RUNS)}")
    return Path(str(resources.files("agentlab") / "data" / "real_runs" / f"{name}.yaml"))


def sources() -> dict:
    """Where the runs come from: repository, commit, licence, what was changed, and each run's path."""
    return json.loads((resources.files("agentlab") / "data" / "real_runs" / "sources.json").read_text("utf-8"))


def source(name: str) -> str:
    """One line naming where ``name`` was recorded (for a notebook to print beside the run)."""
    s = sources()
    run = s["runs"][name]
    return f"recorded by {s['repository']} at {s['commit'][:12]} ({s['licence']}), {run['path']}; {run['model']}"


@dataclass(frozen=True)
class Recording:
    """What a replay needs from the cassette: the task, the request's options and the tools' recorded answers."""

    task: str
    """The user's first message."""
    options: dict
    """``run_agent`` options that make its requests the recorded ones (``model``, ``max_tokens``, ``tool_choice``)."""
    tools: list[Tool]
    """The recorded tool definitions, each answering with what the recording's tests sent back."""


def recording(name: str) -> Recording:
    """Read the run ``name``'s task, options and tools from its cassette (its last request holds every result)."""
    calls = load(cassette(name)).data  # (request, response) pairs, as the replay reads them
    first, last = (json.loads(calls[i][0].body) for i in (0, -1))
    asked = {b["id"]: b for m in last["messages"] for b in m["content"] if b.get("type") == "tool_use"}
    answers = {
        (asked[b["tool_use_id"]]["name"], json.dumps(asked[b["tool_use_id"]]["input"], sort_keys=True)): b["content"]
        for m in last["messages"]
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    tools = [_tool(spec, answers) for spec in first["tools"]]
    task = "".join(b["text"] for b in first["messages"][0]["content"] if b.get("type") == "text")
    options = {k: first[k] for k in ("model", "max_tokens", "tool_choice") if k in first}
    return Recording(task, options, tools)


def _tool(spec: dict, answers: dict) -> Tool:
    def answer(**given: Any) -> str:
        key = (spec["name"], json.dumps(given, sort_keys=True))
        if key not in answers:
            raise ToolError(f"the recording has no result for {spec['name']}({given})")
        return answers[key]

    return Tool(spec["name"], spec["description"], spec["input_schema"], answer, strict=bool(spec.get("strict")))


def replay(name: str, trace: str | Path | None = None) -> Run:
    """The real run ``name`` played through ``run_agent`` from its cassette (offline; usage as recorded)."""
    rec = recording(name)
    forget(cassette(name))  # each replay plays the cassette from its first call
    client = connect("replay", cassette=cassette(name), quiet=True, max_retries=0)
    return run_agent(client, rec.task, rec.tools, trace=trace, **rec.options)


def shape(run: Run) -> list[dict]:
    """One row a model call: what the reply held (its block types), stop reason, input and output tokens, and the
    input tokens it re-sent (everything the call before it sent and received: the meter's re-prefill)."""
    replies = [m for m in run.messages if m["role"] == "assistant"]
    return [
        {
            "call": t.index,
            "reply blocks": ", ".join(b["type"] for b in m["content"]),
            "stop_reason": t.stop_reason,
            "input tokens": t.prompt_tokens,
            "output tokens": t.output_tokens,
            "re-sent tokens": t.reprefill_tokens,
        }
        for t, m in zip(run.turns, replies)
    ]
