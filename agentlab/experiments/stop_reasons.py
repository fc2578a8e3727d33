"""The stop reasons besides ``tool_use`` and ``end_turn`` (notebook 05): one run for each, and what the loop did.

``stop_reason_runs`` runs the two-city task once per case (``CASES``) and returns one row per run: each
reply's ``stop_reason`` in order, the run's typed stop, its model calls, the tools that ran, whether the
note was saved and the final text. ``plot_stop_reasons`` draws each run's replies as a row of squares
coloured by stop reason. What each means and what to do next:
https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from agentlab.client import connect
from agentlab.loop import run_agent
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.stops import RAMBLE_MARK, Pauser, Rambler, Refuser
from agentlab.trace import read_trace
from agentlab.views.i18n import localize
from agentlab.weather import city_task, task_tools

TASK = city_task(["Paris", "London"])
CUT_AT = 40
"""``max_tokens`` for the cut-off case: enough for the reply asking for both cities' weather, too few for the
``save_note`` call."""
COLOURS = {
    "tool_use": "#0072B2",
    "end_turn": "#009E73",
    "max_tokens": "#D55E00",
    "stop_sequence": "#CC79A7",
    "refusal": "#7f7f7f",
    "pause_turn": "#E69F00",
}
"""One colour per ``stop_reason`` in the figure."""


def cases() -> list[tuple[str, object, dict]]:
    """(name, policy, extra ``run_agent`` options) for each case: the ordinary run, then one per rarer stop."""
    return [
        ("end_turn (ordinary)", CarefulAgent(), {}),
        ("max_tokens cuts a tool_use", CarefulAgent(), {"max_tokens": CUT_AT}),
        ("stop_sequence", Rambler(), {"stop_sequences": [RAMBLE_MARK]}),
        ("refusal", Refuser(after=1), {}),
        ("pause_turn (server tool)", Pauser(pauses=2), {}),
    ]


def stop_reason_runs(workdir: str | Path | None = None) -> list[dict]:
    """One row per case: replies' stop reasons, the run's stop, the last reply's ``stop_details``, model calls,
    tools run, note saved, final text."""
    folder = Path(workdir or tempfile.mkdtemp(prefix="agentlab-stops-"))
    rows = []
    for i, (name, policy, options) in enumerate(cases()):
        notes, path = folder / f"notes{i}", folder / f"stops{i}.jsonl"
        run = run_agent(connect("sim", policy=policy, quiet=True), TASK, task_tools(notes), trace=path, **options)
        responses = [e for e in read_trace(path) if e.get("event") == "response"]
        replies = [e["stop_reason"] for e in responses]
        rows.append(
            {
                "case": name,
                "replies": replies,
                "stop": run.stop_reason.value,
                "stop details": responses[-1].get("stop_details") if responses else None,
                "model calls": run.model_calls,
                "tools run": [r["name"] for r in run.tool_results],
                "note saved": notes.is_dir() and any(notes.iterdir()),
                "final text": run.final_text,
            }
        )
    return rows


def plot_stop_reasons(rows: list[dict]):
    """Each run as a row of squares, one per reply, coloured by its stop_reason; the run's typed stop at the end."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(9.5, 3.4), constrained_layout=True)
    for y, r in enumerate(rows):
        for x, reason in enumerate(r["replies"]):
            ax.barh(y, 0.9, left=x + 0.05, color=COLOURS.get(reason, "#000000"), height=0.6)
        saved = "note saved" if r["note saved"] else "no note"
        ax.annotate(
            f"run ends {r['stop']} ({r['model calls']} calls, {saved})",
            (len(r["replies"]) + 0.1, y),
            va="center",
            fontsize=8,
        )
    ax.set_yticks(range(len(rows)), [r["case"] for r in rows])
    ax.invert_yaxis()
    longest = max(len(r["replies"]) for r in rows)
    ax.set_xlim(0, longest + 4.5)
    ax.set_xticks([x + 0.5 for x in range(longest)], [str(x + 1) for x in range(longest)])
    ax.set_xlabel("model call (turn number)")
    seen = [k for k in COLOURS if any(k in r["replies"] for r in rows)]
    ax.legend(
        handles=[Patch(color=COLOURS[k], label=k) for k in seen],
        title="each reply's stop_reason",
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=7,
        title_fontsize=7,
    )
    return localize(fig)
