"""``ContextAgent``: the simulated model for the long report task of the context-engineering lab.

The task names many cities and asks for the warmest, the coldest and the mean temperature. The
policy reads every request as a careful model would and does what it was written to do; nothing
here is a finding about a real model's attention:

- **what it knows** is every ``City: T°C`` written anywhere in the conversation it is sent (task
  text, a summary, its own earlier notes, a memory file it viewed, a sub-agent's answer) plus the
  ``temp_c`` of each ``get_weather`` result still in the window. A result the harness (or the
  server) cleared is gone: the policy cannot read what it is not sent.
- **it notes as it goes**: each turn's text repeats the temperatures it just read (``Paris: 18.5°C.``),
  as a model writing down what it learnt, so clearing old results loses no fact it already noted;
- **memory** (a ``memory`` tool offered): it first views ``/memories/progress.md``, then records each
  new temperature there in the same turn as its next lookup (``create``, then ``insert`` at line 1);
- **sub-agents** (a ``research_cities`` tool offered): it delegates the pending cities in batches of
  the size the tool's description allows ("at most N cities"), and gives up, naming the error, when
  a delegate fails;
- **a summariser request** (no tools, a system prompt with "summarise", "summarize" or "summary" in it): it writes a summary of
  the transcript it was sent: the task line verbatim, then every ``City: T°C`` it finds, nothing else.
  Any other fact in the transcript is dropped: that is *our summariser's* rule, not a model's.

A task written in Chinese (its first line starts ``任务：``) is answered in Chinese: the notes, the report,
the summary, the memory file and the delegation text (``巴黎：18.5°C。``); the same decisions, in the same
order, as in English.
"""

from __future__ import annotations

import json
import re

from agentlab.sim.models.reading import chinese_city, cities_in, exchanges, is_chinese, text_of
from agentlab.sim.policy import Reply

TEMP = re.compile(r"([A-Z][\w'-]*(?: [A-Z][\w'-]*)*|[\u4e00-\u9fff]+)[:：]\s*(-?\d+(?:\.\d+)?)\s*°C")
"""A temperature written as ``City: 18.5°C`` (or ``巴黎：18.5°C``)."""
TASK_LINE = ("Task:", "任务：")
"""How the task's first line starts, in English and in Chinese."""
MEMORY_FILE = "/memories/progress.md"
"""Where the policy keeps its notes when a memory tool is offered."""
_JSON_TEMP = re.compile(r'"city": "([^"]+)", "temp_c": (-?\d+(?:\.\d+)?)')
_BATCH = re.compile(r"at most (\d+) cities")


def _blocks(messages: list[dict]):
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            yield m["role"], {"type": "text", "text": content}
        elif isinstance(content, list):
            for b in content:
                if isinstance(b, dict):
                    yield m["role"], b


def _body(block: dict) -> str:
    c = block.get("content", "")
    return c if isinstance(c, str) else text_of(c)


def known_temperatures(messages: list[dict], cities: list[str]) -> tuple[dict[str, float], set[str]]:
    """Temperatures of ``cities`` readable in ``messages`` and the cities whose lookup failed."""
    wanted = {c.casefold(): c for c in cities}
    temps: dict[str, float] = {}
    failed: set[str] = set()
    answers = {(ex.at, ex.id): ex for ex in exchanges(messages)}
    for at, m in enumerate(messages):
        for _, b in _blocks([m]):
            kind = b.get("type")
            texts = [b.get("text", "")] if kind == "text" else [_body(b)] if kind == "tool_result" else []
            for text in texts:
                for name, value in TEMP.findall(text):
                    if name.casefold() in wanted:
                        temps[wanted[name.casefold()]] = float(value)
            ex = answers.get((at, b.get("tool_use_id"))) if kind == "tool_result" else None
            if ex is not None and ex.name == "get_weather":
                city = str(ex.input.get("city", ""))
                if b.get("is_error") and city.casefold() in wanted:
                    failed.add(wanted[city.casefold()])
                    continue
                try:
                    temps[wanted[city.casefold()]] = float(json.loads(_body(b))["temp_c"])
                except (ValueError, KeyError, TypeError):
                    pass  # cleared, or not JSON: nothing to read
    return temps, failed - set(temps)


def report_text(temps: dict[str, float], failed: set[str] = frozenset(), zh: bool = False) -> str:
    """The final answer: warmest, coldest, mean, then every temperature (all from ``temps``), in Chinese
    when ``zh``."""
    if not temps:
        return (
            "我读不到任何气温，所以写不了报告。" if zh else "I could not read any temperature, so there is no report."
        )
    hot, cold = max(temps, key=temps.get), min(temps, key=temps.get)
    mean = sum(temps.values()) / len(temps)
    if zh:
        listed = "；".join(f"{c}：{t:g}°C" for c, t in temps.items())
        miss = f"没有{'、'.join(sorted(failed))}的数据。" if failed else ""
        return (
            f"最暖和：{hot}（{temps[hot]:g}°C）。最冷：{cold}（{temps[cold]:g}°C）。"
            f"平均：{mean:.1f}°C，共 {len(temps)} 个城市。{miss}各城市气温：{listed}。"
        )
    listed = "; ".join(f"{c}: {t:g}°C" for c, t in temps.items())
    miss = f" No data for {', '.join(sorted(failed))}." if failed else ""
    return (
        f"Warmest: {hot} ({temps[hot]:g}°C). Coldest: {cold} ({temps[cold]:g}°C). "
        f"Mean: {mean:.1f}°C over {len(temps)} cities.{miss} Temperatures: {listed}."
    )


def summary_text(transcript: str) -> str:
    """Our summariser: the task line verbatim, then each ``City: T°C`` found (last value wins); in Chinese,
    with the cities by their Chinese names, when the task line is Chinese."""
    task = next(
        (ln[ln.index(start) :] for ln in transcript.splitlines() for start in TASK_LINE if start in ln),
        "Task: (not found)",
    )
    zh = task.startswith(TASK_LINE[1])
    temps: dict[str, str] = {}
    for name, value in TEMP.findall(transcript) + _JSON_TEMP.findall(transcript):
        temps[chinese_city(name) if zh else name] = value
    if zh:
        found = "；".join(f"{c}：{v}°C" for c, v in temps.items()) or "还没有"
        return f"{task}\n目前的进度（已读到 {len(temps)} 个气温）：{found}。"
    found = "; ".join(f"{c}: {v}°C" for c, v in temps.items()) or "none yet"
    return f"{task}\nProgress so far ({len(temps)} temperatures read): {found}."


class ContextAgent:
    """The report task's simulated model (see the module docstring)."""

    def __call__(self, request: dict) -> Reply:
        tools = {t.get("name") for t in request.get("tools") or []}
        messages = request.get("messages", [])
        system = request.get("system") or ""
        system = system if isinstance(system, str) else text_of(system)
        if not tools and re.search(r"summar(?:i[sz]e|y)", system, re.I):
            return Reply([{"type": "text", "text": summary_text(_body({"content": messages[-1]["content"]}))}])
        task = (
            text_of(messages[0]["content"])
            if messages and not isinstance(messages[0]["content"], str)
            else (messages[0]["content"] if messages else "")
        )
        first_line = next((ln for ln in task.splitlines() if ln.startswith(TASK_LINE)), task)
        zh = is_chinese(first_line)
        cities = cities_in(first_line)
        temps, failed = known_temperatures(messages, cities)
        pending = [c for c in cities if c not in temps and c not in failed]
        if "research_cities" in tools:
            return self._delegate(request, messages, temps, failed, pending, zh)
        if "memory" in tools and not _viewed(messages):
            look = "先查看我在之前的会话里记下的笔记。" if zh else "First I check my notes from earlier sessions."
            return Reply(
                [
                    {"type": "text", "text": look},
                    {"type": "tool_use", "name": "memory", "input": {"command": "view", "path": MEMORY_FILE}},
                ]
            )
        if not pending or "get_weather" not in tools:
            return Reply([{"type": "text", "text": report_text(temps, failed, zh)}])
        fresh = _latest(messages, temps)
        if zh:
            text = "".join(f"{c}：{temps[c]:g}°C。" for c in fresh) + f"下一个：{pending[0]}。"
        else:
            note = " ".join(f"{c}: {temps[c]:g}°C." for c in fresh)
            text = (note + " " if note else "") + f"Next: {pending[0]}."
        blocks = [{"type": "text", "text": text}]
        if "memory" in tools and fresh:
            blocks.append(
                {"type": "tool_use", "name": "memory", "input": _memory_write(messages, fresh, temps, first_line, zh)}
            )
        blocks.append({"type": "tool_use", "name": "get_weather", "input": {"city": pending[0]}})
        return Reply(blocks)

    def _delegate(self, request, messages, temps, failed, pending, zh=False) -> Reply:
        errors = [_body(b) for _, b in _blocks(messages) if b.get("type") == "tool_result" and b.get("is_error")]
        if errors:
            text = (
                f"有一个 sub-agent 失败了，所以报告不完整：{errors[-1]}"
                if zh
                else f"A sub-agent failed, so the report is incomplete: {errors[-1]}"
            )
            return Reply([{"type": "text", "text": text}])
        if not pending:
            return Reply([{"type": "text", "text": report_text(temps, failed, zh)}])
        spec = next(t for t in request["tools"] if t.get("name") == "research_cities")
        size = int(m.group(1)) if (m := _BATCH.search(spec.get("description", ""))) else 5
        say = (
            f"我把 {len(pending[:size])} 个城市交给一个 sub-agent。"
            if zh
            else f"I delegate {len(pending[:size])} cities to a sub-agent."
        )
        return Reply(
            [
                {"type": "text", "text": say},
                {"type": "tool_use", "name": "research_cities", "input": {"cities": pending[:size]}},
            ]
        )


def _viewed(messages: list[dict]) -> bool:
    return any(
        b.get("type") == "tool_use" and b.get("name") == "memory" and (b.get("input") or {}).get("command") == "view"
        for role, b in _blocks(messages)
        if role == "assistant"
    )


def _latest(messages: list[dict], temps: dict[str, float]) -> list[str]:
    """Cities whose ``get_weather`` result came in the newest user message (what this turn should note)."""
    newest = [ex for ex in exchanges(messages) if ex.at == len(messages) - 1 and ex.name == "get_weather"]
    calls = [{"type": "tool_use", "id": ex.id, "name": ex.name, "input": ex.input} for ex in newest]
    now, _ = known_temperatures(
        [{"role": "assistant", "content": calls}, {"role": "user", "content": [ex.result for ex in newest]}],
        list(temps),
    )
    return [c for c in now if c in temps]


def _memory_write(
    messages: list[dict], fresh: list[str], temps: dict[str, float], task_line: str, zh: bool = False
) -> dict:
    lines = "\n".join(f"{c}：{temps[c]:g}°C" if zh else f"{c}: {temps[c]:g}°C" for c in fresh)
    exists = any(
        b.get("type") == "tool_result" and not b.get("is_error") and "progress.md" in _body(b)
        for _, b in _blocks(messages)
    ) or _created(messages)
    if exists:
        return {"command": "insert", "path": MEMORY_FILE, "insert_line": 1, "insert_text": lines + "\n"}
    head = f"# 进度。{task_line}" if zh else f"# Progress. {task_line}"
    return {"command": "create", "path": MEMORY_FILE, "file_text": f"{head}\n{lines}\n"}


def _created(messages: list[dict]) -> bool:
    return any(
        b.get("type") == "tool_use" and b.get("name") == "memory" and (b.get("input") or {}).get("command") == "create"
        for role, b in _blocks(messages)
        if role == "assistant"
    )
