"""The city task as a workflow: code fetches, one model call writes, code saves.

    temps = [get_weather(city) for city in cities]    # code decides: one lookup per city
    text  = model("write the comparison", temps)      # one call, no tools, nothing re-sent
    save_note(text)                                   # code decides: always save

Nothing here asks the model what to do next; that is the whole difference from ``run_agent``. The
steps run on the machinery every workflow pattern shares (``agentlab.workflows.step``), so the trace
reads like theirs: one ``code_step`` (input and outcome) per lookup and for the note, one
``request``/``response`` for the call, each named by its step path (``"city_compare/write"``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentlab.loop import model_stop
from agentlab.run import Run, StopReason
from agentlab.views.i18n import task_language
from agentlab.weather import get_weather, make_save_note, name_in
from agentlab.workflows.step import Steps, guarded

PROMPTS = {
    "en": (
        "Write one short sentence for a note saying which city is warmest, with each city's temperature. "
        "Today's temperatures: {data}."
    ),
    "zh": "用一句话写一条笔记，说明哪个城市最暖和，并给出每个城市的温度。今天的温度：{data}。",
}
"""The one model call's prompt, by task language."""


def write_prompt(temps: list[tuple[str, float]], lang: str) -> str:
    """The one call's prompt from ``(city, °C)`` pairs, the names as the user typed them (``"zh"``: a name
    typed in English is given by its Chinese name, as the Chinese task names it)."""
    return PROMPTS[lang].format(data="; ".join(f"{name_in(city, lang)}: {temp:g}°C" for city, temp in temps))


PATTERN = "city_compare"
"""The pattern name in the trace header and ``Run.pattern``; every step path starts with it."""


@guarded
def run_workflow(
    client: Any,
    cities: list[str],
    notes_dir: str | Path,
    *,
    model: str | None = None,
    max_tokens: int = 256,
    trace: str | Path | None = None,
    lang: str | None = None,
) -> Run:
    """Run the city task on a fixed code path; returns the same :class:`Run` shape as ``run_agent``.

    A lookup that fails stops the run with ``ERROR`` and says why in ``final_text`` (a fixed path has
    no one to ask). The write call's stop reason is read: ``end_turn`` (or ``stop_sequence``) saves the
    note and the path ends ``COMPLETED``; any other (``max_tokens``: a cut-off sentence, ``refusal``, an
    unknown one) ends the run with that typed reason and saves nothing. ``lang``: the prompt's language,
    ``"en"``, ``"zh"`` or ``None`` for the notebook's (as ``city_task``'s).
    """
    lang = task_language(lang, "run_workflow")
    save_note = make_save_note(notes_dir)
    with Steps(client, PATTERN, model=model, trace=trace, max_tokens=max_tokens, cities=cities) as wf:
        temps = []
        for i, city in enumerate(cities, start=1):
            looked_up = wf.tool(f"{PATTERN}/get_weather[{i}]", get_weather, {"city": city})
            if looked_up.status != "ok":
                return wf.finish(StopReason.ERROR, f"Workflow stopped: {looked_up.output}")
            temps.append((city, json.loads(looked_up.output)["temp_c"]))
        text = wf.ask(f"{PATTERN}/write", write_prompt(temps, lang))
        said = next(r for r in reversed(wf.records) if r.path == f"{PATTERN}/write").turns[-1].stop_reason
        if said not in ("end_turn", "stop_sequence"):  # cut off, refused or unknown: no note from it
            stop, unknown = model_stop(said)
            return wf.finish(stop, text, unknown.get("detail", f"the write call stopped with {said!r}; no note saved"))
        wf.tool(f"{PATTERN}/save_note", save_note, {"text": text})
        run = wf.finish(StopReason.COMPLETED, text)
    run.messages = next(r.messages for r in run.steps if r.path == f"{PATTERN}/write")  # its one conversation
    return run
