"""The city task as a workflow: code fetches, one model call writes, code saves.

    temps = [get_weather(city) for city in cities]    # code decides: one lookup per city
    text  = model("write the comparison", temps)      # one call, no tools, nothing re-sent
    save_note(text)                                   # code decides: always save

Nothing here asks the model what to do next; that is the whole difference from ``run_agent``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agentlab.meter.middleware import meter_of
from agentlab.client import model_of
from agentlab.run import Run, StopReason
from agentlab.tools import run_tool, toolset
from agentlab.trace import Trace
from agentlab.weather import get_weather, make_save_note

PROMPTS = {
    "en": ("Write one short sentence for a note saying which city is warmest, with each city's temperature. "
           "Today's temperatures: {data}."),
    "zh": "用一句话写一条笔记，说明哪个城市最暖和，并给出每个城市的温度。今天的温度：{data}。",
}
"""The one model call's prompt, by task language."""


def run_workflow(
    client: Any,
    cities: list[str],
    notes_dir: str | Path,
    *,
    model: str | None = None,
    max_tokens: int = 256,
    trace: str | Path | None = None,
    lang: str = "en",
) -> Run:
    """Run the city task on a fixed code path; returns the same :class:`Run` shape as ``run_agent``."""
    if lang not in PROMPTS:
        raise ValueError(f"run_workflow(lang={lang!r}): the prompt exists in {', '.join(PROMPTS)}")
    model = model or model_of(client)
    tools = toolset([get_weather, make_save_note(notes_dir)])
    meter = meter_of(client)
    start, t0 = meter.mark(), time.perf_counter()
    results: list[dict] = []
    with Trace(trace, kind="workflow", model=model, cities=cities) as tr:
        temps = []
        for city in cities:
            out = _step(tr, tools, "get_weather", {"city": city}, results)
            if out.is_error:  # a fixed path has no one to ask: stop and say why
                text = f"Workflow stopped: {out.content}"
                tr.stop(StopReason.ERROR.value, final_text=text)
                return _run(model, text, StopReason.ERROR, meter, start, [], t0, trace, results)
            temps.append((city, json.loads(out.content)["temp_c"]))
        data = "; ".join(f"{city}: {temp:g}°C" for city, temp in temps)  # the names as the user wrote them
        messages = [{"role": "user", "content": PROMPTS[lang].format(data=data)}]
        tr.event("request", turn=1, messages=1)
        reply = client.messages.create(model=model, max_tokens=max_tokens, messages=messages)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        tr.event("response", turn=1, stop_reason=reply.stop_reason, content=content,
                 usage=reply.usage.model_dump(mode="json", exclude_none=True))
        messages.append({"role": "assistant", "content": content})
        text = " ".join(b["text"] for b in content if b["type"] == "text").strip()
        _step(tr, tools, "save_note", {"text": text}, results)
        tr.stop(StopReason.COMPLETED.value, turns=1, final_text=text)
    return _run(model, text, StopReason.COMPLETED, meter, start, messages, t0, trace, results)


def _step(tr: Trace, tools: dict, name: str, tool_input: dict, results: list[dict]):
    """One code-decided tool call, traced like the agent's tool calls."""
    out = run_tool(tools, name, tool_input)
    tr.event("code_step", name=name, input=tool_input, content=out.content, is_error=out.is_error)
    results.append({"name": name, "input": tool_input, "content": out.content, "is_error": out.is_error})
    return out


def _run(model, text, stop, meter, start, messages, t0, trace, results) -> Run:
    return Run("workflow", model, text, stop, meter.turns(start), messages,
               meter.estimated(start), time.perf_counter() - t0,
               str(trace) if trace else None, results)
