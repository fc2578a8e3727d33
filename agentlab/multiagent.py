"""Chat, agent, multi-agent: the same city question three ways, to check the course's 4x and 15x.

The course quotes one vendor's measurement on its own research system: agents use about 4x the
tokens of a chat, multi-agent systems about 15x. Here the three are built on our task, untuned:

- **chat**: one call, no tools; the temperatures are already in the prompt (someone else looked them up);
- **agent**: ``run_agent`` with ``get_weather`` and ``save_note`` (the course's loop);
- **multi-agent**: an orchestrator agent whose tool ``research_city`` starts a sub-agent (its own
  ``run_agent``, its own fresh conversation, only ``get_weather``) for one city and returns the
  sub-agent's one-sentence answer; the orchestrator compares, saves the note and answers.

All calls go through one client, so the Meter sees every call, the sub-agents' included. On the
simulator the orchestrator is played by :class:`OrchestratorPolicy` (the careful agent, reading
``research_city`` as its way to get a temperature); live, the real model plays every part.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .accounting import meter_of
from .client import model_of
from .loop import run_agent
from .run import Run, StopReason
from .sim.careful import CarefulAgent
from .sim.policy import Reply
from .tools import Tool, tool
from .weather import city_task, get_weather, lookup, make_save_note

CHAT_PROMPT = "Which city is warmest today? Answer in one sentence. Today's temperatures: {data}."
"""The chat baseline's prompt: the data is given, nothing is looked up."""
SUB_TASK = "What is the temperature in {city} today? Look it up and answer in one sentence."
"""What each sub-agent is asked."""


def chat_answer(client: Any, cities: list[str], model: str | None = None) -> Run:
    """One call, no tools, the temperatures in the prompt: the chat baseline."""
    model = model or model_of(client)
    meter = meter_of(client)
    start, t0 = meter.mark(), time.perf_counter()
    data = "; ".join(f"{c}: {lookup(c)['temp_c']:g}°C" for c in cities)
    messages: list[dict] = [{"role": "user", "content": CHAT_PROMPT.format(data=data)}]
    reply = client.messages.create(model=model, max_tokens=256, messages=messages)
    content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
    messages.append({"role": "assistant", "content": content})
    text = " ".join(b["text"] for b in content if b["type"] == "text").strip()
    return Run("chat", model, text, StopReason(reply.stop_reason), meter.turns(start), messages,
               meter.estimated(start), time.perf_counter() - t0)


def research_tool(client: Any, model: str | None = None, sub_runs: list[Run] | None = None) -> Tool:
    """The orchestrator's ``research_city`` tool: each call runs a fresh sub-agent for one city."""

    @tool(name="research_city")
    def research_city(city: str) -> str:
        """Delegate one city to a research sub-agent, which looks up today's temperature and answers in one sentence.

        Args:
            city: The city to research, e.g. "Paris".
        """
        sub = run_agent(client, SUB_TASK.format(city=city), [get_weather], model=model, max_turns=4)
        if sub_runs is not None:
            sub_runs.append(sub)
        return sub.final_text

    return research_city


def run_multiagent(client: Any, cities: list[str], notes_dir: str | Path, model: str | None = None) -> tuple[Run, list[Run]]:
    """The orchestrator with one sub-agent per city; returns its Run (every call, sub-agents' included) and the sub-runs."""
    subs: list[Run] = []
    tools = [research_tool(client, model, subs), make_save_note(notes_dir)]
    start = meter_of(client).mark()
    run = run_agent(client, city_task(cities), tools, model=model, max_turns=len(cities) + 4)
    run.kind = "multi-agent"
    run.turns = meter_of(client).turns(start)  # every call since the start: the orchestrator's and its sub-agents
    return run, subs


class OrchestratorPolicy:
    """Simulated model for the multi-agent run: a careful agent that uses ``research_city`` where it
    would use ``get_weather`` (and is an ordinary careful agent for the sub-agents)."""

    def __init__(self) -> None:
        self.inner = CarefulAgent()
        """The policy doing the deciding."""

    def __call__(self, request: dict) -> Reply:
        if not any(t.get("name") == "research_city" for t in request.get("tools") or []):
            return self.inner(request)
        reply = self.inner(_renamed(request, "research_city", "get_weather"))
        return Reply([{**b, "name": "research_city"} if b.get("type") == "tool_use" and b.get("name") == "get_weather"
                      else b for b in reply.content], reply.stop_reason)


def _renamed(request: dict, old: str, new: str) -> dict:
    def block(b: Any) -> Any:
        return {**b, "name": new} if isinstance(b, dict) and b.get("name") == old else b

    messages = [{**m, "content": [block(b) for b in m["content"]]} if isinstance(m.get("content"), list) else m
                for m in request.get("messages", [])]
    return {**request, "tools": [block(t) for t in request["tools"]], "messages": messages}


def total_tokens(run: Run) -> int:
    """Input (cached or not) plus output tokens over every call of ``run``."""
    return sum(t.input_tokens + t.cache_read_tokens + t.cache_write_tokens + t.output_tokens for t in run.turns)


def token_ratios(cities: list[str], notes_dir: str | Path, model: str | None = None) -> dict:
    """Chat, agent and multi-agent on the simulator for ``cities``: their tokens and the ratios to chat."""
    from .client import connect
    from .weather import task_tools

    client = connect("sim", model=model, policy=OrchestratorPolicy(), quiet=True)
    chat = chat_answer(client, cities)
    agent = run_agent(client, city_task(cities), task_tools(notes_dir), max_turns=len(cities) + 4)
    multi, subs = run_multiagent(client, cities, notes_dir)
    c, a, m = total_tokens(chat), total_tokens(agent), total_tokens(multi)
    return {"cities": len(cities), "chat tokens": c, "agent tokens": a, "multi-agent tokens": m,
            "agent / chat": round(a / c, 1), "multi-agent / chat": round(m / c, 1),
            "chat calls": chat.model_calls, "agent calls": agent.model_calls, "multi-agent calls": multi.model_calls,
            "sub-agents": len(subs)}
