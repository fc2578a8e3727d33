"""ReAct (course 3.2): the loop *before* native tool use, with the tools described in a prompt.

No ``tools=`` is sent. The system prompt lists the tools and asks the model to write

    Thought: ...
    Action: <tool name>
    Action Input: <JSON object>

and to stop; the harness parses that text, runs the tool and sends back ``Observation: <result>``
as a user message. ``Final Answer: ...`` ends the task. Text that does not parse is answered with a
format error saying what to write, and counts as a parse failure. Native tool use gets the same
structure as typed JSON the API checks, so there is nothing to parse.

A Chinese task gets the prompt in Chinese (:func:`react_prompt` with ``lang="zh"``), its labels
still English, and its format errors and tool errors in Chinese (``agentlab.hints``).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from agentlab.client import model_of
from agentlab.guards import Limits
from agentlab.harness import call_model
from agentlab.hints import hint, result_text, task_lang
from agentlab.interrupts import stop_on_signals
from agentlab.meter.middleware import meter_of
from agentlab.run import Run, StopReason
from agentlab.tools import Tool, run_tool, toolset
from agentlab.trace import Trace

REACT_MARKER = "Action Input:"
"""Text every ReAct prompt contains (the simulator recognises ReAct prompting by it)."""
_ACTION = re.compile(r"^Action:\s*(\S+)\s*$\s*^Action Input:\s*(\{.*\})\s*\Z", re.M | re.S)
_FINAL = re.compile(r"^Final Answer:\s*(.+)\Z", re.M | re.S)


def react_prompt(tools: list[Tool], lang: str | None = None) -> str:
    """The system prompt: the tools (name, description, input schema) and the format to write.

    In English (``"en"``) or Chinese (``"zh"``; ``None``: the notebook's language). The Chinese prompt
    keeps the labels (``Thought:``, ``Action:``, ``Action Input:``, ``Observation:``, ``Final Answer:``)
    in English, so :func:`parse_action` reads the answer to either; tool descriptions stay as written.
    """
    if lang is None:
        from agentlab.views.i18n import language

        lang = "zh" if language() == "zh-CN" else "en"
    if lang not in ("en", "zh"):
        raise ValueError(
            f"react_prompt(lang={lang!r}): the prompt is written in 'en' or 'zh' (or None: the notebook's language)"
        )
    if lang == "zh":
        return _react_prompt_zh(tools)
    lines = [
        f"- {t.name}: {t.description} Input schema: {json.dumps(t.input_schema, ensure_ascii=False)}" for t in tools
    ]
    return (
        "You solve the task step by step. Tools:\n" + "\n".join(lines) + "\n\n"
        "Each turn, write exactly:\nThought: <your reasoning>\nAction: <one tool name>\n"
        f"{REACT_MARKER} <a JSON object for the tool>\n"
        "Then stop; you will get back 'Observation: <result>'. When you know the answer, write:\n"
        "Thought: <your reasoning>\nFinal Answer: <the answer for the user>"
    )


def _react_prompt_zh(tools: list[Tool]) -> str:
    """:func:`react_prompt` in Chinese: the same tools and format, the labels left in English."""
    lines = [
        f"- {t.name}: {t.description} 输入 schema：{json.dumps(t.input_schema, ensure_ascii=False)}" for t in tools
    ]
    return (
        "你要一步一步地完成任务。可用的工具：\n" + "\n".join(lines) + "\n\n"
        "每一轮都严格按下面的格式写：\nThought: <你的推理>\nAction: <一个工具名>\n"
        f"{REACT_MARKER} <给这个工具的 JSON 对象>\n"
        "然后停下；你会收到 'Observation: <结果>'。知道答案以后，写：\n"
        "Thought: <你的推理>\nFinal Answer: <给用户的答案>\n"
        "Thought、Action、Action Input、Final Answer 这几个标签照原样用英文写。"
    )


def parse_action(text: str) -> tuple[str, dict] | str:
    """``(tool name, input)`` from a ReAct turn, the final answer as a ``str``; a bad turn raises ValueError."""
    final = _FINAL.search(text)
    if final:
        return final.group(1).strip()
    m = _ACTION.search(text.strip())
    if not m:
        raise ValueError(
            "Format error: end your turn with a line 'Action: <tool name>' and a line "
            "'Action Input: <JSON object>', or with 'Final Answer: <answer>'."
        )
    try:
        tool_input = json.loads(m.group(2))
    except json.JSONDecodeError as e:
        raise ValueError(
            f"Format error: Action Input is not valid JSON ({e.msg} at position {e.pos}); "
            'write a JSON object such as {"city": "Paris"}.'
        ) from None
    if not isinstance(tool_input, dict):
        raise ValueError('Format error: Action Input must be a JSON object, e.g. {"city": "Paris"}.')
    return m.group(1), tool_input


@dataclass
class ReactRun:
    """A ReAct run: the usual ``Run`` plus how often the model's text could not be parsed."""

    run: Run
    """Turns, tokens, cost, messages, stop reason (as for the native loop)."""
    parse_failures: int
    """Turns whose text was neither a well-formed action nor a final answer."""


def run_react(
    client: Any,
    task: str,
    tools: list[Tool],
    *,
    model: str | None = None,
    max_tokens: int = 1024,
    limits: Limits | None = None,
    trace: str | None = None,
) -> ReactRun:
    """Run ``task`` with a prompted Thought/Action/Observation loop (no ``tools=`` sent)."""
    model, by_name, meter = model or model_of(client), toolset(tools), meter_of(client)
    budget = (limits or Limits()).start()
    lang = task_lang(task)  # a Chinese task gets the Chinese prompt and Chinese format errors
    start, t0, system = meter.mark(), time.perf_counter(), react_prompt(tools, lang)
    messages: list[dict] = [{"role": "user", "content": task}]
    failures, text, turn = 0, "", 0
    with Trace(trace, kind="react", model=model, task=task, tools=list(by_name)) as tr, stop_on_signals(tr):
        while (stopped := budget.check()) is None:
            turn += 1
            reply, _, usage = call_model(
                client,
                tr,
                {"turn": turn},
                model=model,
                max_tokens=max_tokens,
                system=system,
                messages=messages,
                stop_sequences=["\nObservation:"],
            )
            said = "".join(b.text for b in reply.content if b.type == "text")
            messages.append({"role": "assistant", "content": said or "(empty)"})
            budget.after_call([], usage, reply.model)
            try:
                step = parse_action(said)
            except ValueError as e:
                failures += 1
                tr.event("parse_error", turn=turn, error=str(e))
                messages.append({"role": "user", "content": hint(str(e), lang)})
                continue
            if isinstance(step, str):
                text = step
                break
            tr.event("tool_call", turn=turn, name=step[0], input=step[1])
            out = run_tool(by_name, *step)
            if lang != "en":  # a Chinese task reads its errors and confirmations in Chinese (English: as before)
                out = type(out)(
                    hint(out.content, lang) if out.is_error else result_text(out.content, lang), out.is_error
                )
            tr.event("tool_result", turn=turn, content=out.content, is_error=out.is_error)
            messages.append(
                {"role": "user", "content": f"Observation: {'Error: ' if out.is_error else ''}{out.content}"}
            )
        stop = stopped.reason if stopped else StopReason.END_TURN
        tr.stop(
            stop.value, turns=turn, final_text=text, parse_failures=failures, **(stopped.fields() if stopped else {})
        )
    run = Run.finish(
        kind="react",
        model=model,
        meter=meter,
        since=start,
        started=t0,
        stop=stop,
        final_text=text,
        messages=messages,
        trace=trace,
    )
    return ReactRun(run, failures)
