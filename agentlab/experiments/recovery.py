"""Error recovery (course 3.4): the same careless mistakes answered in two error styles.

Each case of ``CarelessModel`` runs the city task once per error style (``"readable"``: what was
wrong and what to do, in the task's language; ``"raw"``: the Python traceback) and per language.
A run *succeeds* when it ends with an answer that gives both cities' true temperatures and a saved
note. *Turns to recover*: the model's mistake is in turn 1 (beside it, in parallel, the other city's lookup);
it has recovered at the first turn by whose end every city's ``get_weather`` has succeeded, so turns to
recover = that turn - 1 (``None`` if it never does).
"""

from __future__ import annotations

import json
import tempfile
import threading
from pathlib import Path

from agentlab.client import connect
from agentlab.executor import Executor
from agentlab.guards import Limits
from agentlab.loop import run_agent
from agentlab.sim.models.misbehaving import CARELESS_CASES, CarelessModel
from agentlab.tools import Tool, tool
from agentlab.views.i18n import localize
from agentlab.weather import city_task, get_weather, lookup, make_save_note

TASKS = {"en": (["Paris", "London"], "en"), "zh": (["上海", "北京"], "zh")}
"""The task per language: its cities and the prompt's language."""
MAX_RESULT_CHARS = 600
"""The executor's cut for tool output in these runs (the weather report is longer than this)."""
TIMEOUT_S = 1.0
"""The per-call timeout of the hanging ``get_weather`` in the timeout case (real seconds). The call that hangs
costs this much real time; the other city's call, asked for in the same reply and run on another thread, must
finish within it however busy the machine is (at 0.05 s a loaded CI machine sometimes timed that one out too)."""


@tool
def get_weather_report(city: str) -> dict:
    """Get today's full hourly weather report for a city (long), ending with the day's temperature.

    Args:
        city: The city's name.
    """
    rec = lookup(city)
    hourly = [{"hour": h, "wind_kmh": 10 + h % 7, "humidity_pct": 60 + h % 11} for h in range(48)]
    return {"city": rec["city"], "hourly": hourly, "condition": rec["condition"], "temp_c": rec["temp_c"]}


def hangs_once(release: threading.Event, hang_city: str) -> Tool:
    """A ``get_weather`` whose first call for ``hang_city`` hangs (until ``release`` is set) and which has a timeout.

    Which call hangs is fixed by its city, not by which call came first: a reply asking for both cities runs
    them on two threads at once, and "first" would then be whichever thread got there first, another call
    on each run (and a replay of a recorded run would not match it)."""
    hung: list[str] = []

    @tool(name="get_weather", timeout=TIMEOUT_S)
    def slow_weather(city: str) -> dict:
        """Get today's temperature (degrees Celsius) and conditions for a city.

        Args:
            city: The city's name, e.g. "Paris" or "上海".
        """
        if city == hang_city and not hung:
            hung.append(city)
            release.wait(5)
        return lookup(city)

    return slow_weather


def run_case(case: str, style: str, lang: str, notes_dir: str | Path | None = None) -> dict:
    """One run of ``case`` in error ``style`` on the ``lang`` task; its figures as a flat dict. The notes go to
    ``notes_dir``, kept; without one, to a temporary folder removed once the row is made."""
    if not notes_dir:  # None (or ""): a temporary folder
        with tempfile.TemporaryDirectory(prefix="agentlab-recovery-", ignore_cleanup_errors=True) as notes:
            return run_case(case, style, lang, notes)
    cities, task_lang = TASKS[lang]
    release = threading.Event()
    folder = Path(notes_dir)
    weather = hangs_once(release, cities[0]) if case == "timeout" else get_weather
    tools = [weather, get_weather_report, make_save_note(folder)]
    client = connect("sim", policy=CarelessModel(case), quiet=True)
    run = run_agent(
        client,
        city_task(cities, task_lang),
        tools,
        limits=Limits(max_turns=8),
        executor=Executor(errors=style, max_result_chars=MAX_RESULT_CHARS, lang=lang),
    )
    release.set()
    truth = [f"{lookup(c)['temp_c']:g}°C" for c in cities]
    ok_turns = [t.index for t in run.turns if t.tool_calls and _all_found(run, t.index, len(cities))]
    saved = (folder / "notes.md").exists()
    success = run.stop_reason.value == "end_turn" and saved and all(v in run.final_text for v in truth)
    return {
        "case": case,
        "style": style,
        "lang": lang,
        "success": success,
        "turns_to_recover": (ok_turns[0] - 1) if ok_turns else None,
        "turns": run.model_calls,
        "tokens": run.input_tokens + run.output_tokens,
        "answer": run.final_text,
        "errors_seen": [r["content"] for r in run.tool_results if r["is_error"]][:2],
    }


def _all_found(run, turn: int, n_cities: int) -> bool:
    """True when, by the end of turn ``turn``, ``get_weather`` has succeeded for ``n_cities`` different cities."""
    upto = run.tool_results[: sum(len(t.tool_calls) for t in run.turns[:turn])]
    return (
        len({json.dumps(r["input"], sort_keys=True) for r in upto if r["name"] == "get_weather" and not r["is_error"]})
        >= n_cities
    )


def recovery_table(cases=CARELESS_CASES, styles=("readable", "raw"), langs=("en", "zh")) -> list[dict]:
    """Every case x style x language, one row each (runs in a second or two, offline)."""
    return [run_case(c, s, lg) for c in cases for s in styles for lg in langs]


def summary(rows: list[dict]) -> dict[str, dict]:
    """Per error style: runs, success rate, mean turns to recover (recovered runs), mean tokens."""
    out = {}
    for style in dict.fromkeys(r["style"] for r in rows):
        mine = [r for r in rows if r["style"] == style]
        rec = [r["turns_to_recover"] for r in mine if r["turns_to_recover"] is not None]
        out[style] = {
            "runs": len(mine),
            "success_rate": sum(r["success"] for r in mine) / len(mine),
            "mean_turns_to_recover": sum(rec) / len(rec) if rec else None,
            "mean_tokens": sum(r["tokens"] for r in mine) / len(mine),
        }
    return out


def plot_recovery(rows: list[dict]):
    """Per error style: success rate (%) and mean tokens per run, with value labels."""
    import matplotlib.pyplot as plt

    s = summary(rows)
    fig, axes = plt.subplots(1, 2, figsize=(7, 3.4), constrained_layout=True)
    styles, colors = list(s), ["#0072B2", "#D55E00"][: len(s)]
    bars = axes[0].bar(styles, [100 * s[k]["success_rate"] for k in styles], color=colors)
    axes[0].bar_label(bars, fmt="%.0f%%", fontsize=8)
    axes[0].set_ylabel("runs that succeed (%)")
    axes[0].set_ylim(0, 110)
    bars = axes[1].bar(styles, [s[k]["mean_tokens"] for k in styles], color=colors)
    axes[1].bar_label(bars, fmt="%.0f", fontsize=8)
    axes[1].set_ylabel("tokens per run, mean (estimated)")
    cases, langs = len({r["case"] for r in rows}), len({r["lang"] for r in rows})
    fig.suptitle(f"{s[styles[0]]['runs']} runs per style: {cases} careless cases x {langs} languages", fontsize=9)
    return localize(fig)


if __name__ == "__main__":  # python -m agentlab.experiments.recovery
    rows = recovery_table()
    for r in rows:
        print(
            f"{r['case']:14} {r['style']:9} {r['lang']}  success={r['success']!s:5} "
            f"recover={r['turns_to_recover']!s:4} turns={r['turns']} tokens={r['tokens']}"
        )
    print(json.dumps(summary(rows), indent=1))
