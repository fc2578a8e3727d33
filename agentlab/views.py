"""Small helpers that keep the notebooks' cells short: show what went over the wire, and what it cost.

Nothing here changes how a run behaves; these functions only format, tabulate and plot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from .fonts import use_cjk_font
from .loop import run_agent
from .run import Run
from .weather import city_task, task_tools
from .i18n import localize


def _plain(obj: Any) -> Any:
    """SDK objects (``Message``, ``ToolUseBlock``...) as the JSON the API sends; anything else unchanged."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"cannot show {type(obj).__name__} as JSON")


def to_json(obj: Any, indent: int = 2) -> str:
    """JSON text of a messages array, a content list or one SDK object (SDK blocks included, as the API sees them)."""
    return json.dumps(obj, default=_plain, indent=indent, ensure_ascii=False)


def messages_sent(run: Run) -> list[int]:
    """For each turn of an agent run, how many messages its request carried (the history re-sent)."""
    assistant_at = [i for i, m in enumerate(run.messages) if m.get("role") == "assistant"]
    return assistant_at[: len(run.turns)]


def turns_table(run: Run) -> Any:
    """A pandas DataFrame, one row per model call: messages sent, the input split into its parts,
    and the re-prefill split into fixed overhead re-sent and history re-sent."""
    import pandas as pd

    from .breakdown import LABELS

    sent = messages_sent(run)
    rows = []
    for i, t in enumerate(run.turns):
        row = {"turn": t.index, "messages sent": sent[i] if i < len(sent) else None, "input tokens": t.prompt_tokens}
        if any(u.cache_read_tokens or u.cache_write_tokens for u in run.turns):  # billed apart: show them
            row.update({"of which cache reads": t.cache_read_tokens, "of which cache writes": t.cache_write_tokens})
        if t.breakdown is not None:
            row.update({LABELS[k]: v for k, v in t.breakdown.parts().items()})
            if t.breakdown.residual:
                row["residual"] = t.breakdown.residual
        row.update({"re-prefill tokens": t.reprefill_tokens, "re-prefill: fixed": t.reprefill_fixed,
                    "re-prefill: history": t.reprefill_history, "output tokens": t.output_tokens,
                    "tools requested": ", ".join(t.tool_calls) or "-", "stop_reason": t.stop_reason})
        rows.append(row)
    return pd.DataFrame(rows).set_index("turn")


def input_shares(turn: Any) -> dict[str, float]:
    """Percent of one turn's input in each part, plus ``"fixed"`` (tool prompt, definitions, system, task)
    and ``"tools"`` (tool prompt + definitions: what offering tools costs on every call)."""
    b = turn.breakdown
    if b is None:
        raise ValueError(f"turn {turn.index} has no input breakdown; live, connect with count_parts=True")
    total = turn.prompt_tokens or 1
    shares = {k: 100 * v / total for k, v in b.parts().items()}
    shares["fixed"] = 100 * b.fixed / total
    shares["tools"] = 100 * (b.tool_prompt + b.tool_definitions) / total
    return shares


def history_overtakes(run: Run) -> int | None:
    """The first turn whose history part is larger than its fixed part, or ``None`` if none is."""
    return next((t.index for t in run.turns if t.breakdown and t.breakdown.history > t.breakdown.fixed), None)


def above_straight_line(table: Any) -> float:
    """How far the last row's total input is above the straight line through the first two rows, in percent."""
    x, y = list(table.index), list(table["input tokens"])
    line = y[0] + (y[1] - y[0]) / (x[1] - x[0]) * (x[-1] - x[0])
    return 100 * (y[-1] - line) / line


def scaling_table(client: Any, cities: list[str], notes_dir: str | Path, sizes: Iterable[int] = range(2, 7),
                  forecast_days: int = 0, **run_options: Any) -> Any:
    """Run the city task on the first n ``cities`` for each n in ``sizes``; one row of totals per run.

    ``forecast_days`` > 0 gives ``get_weather`` results a forecast (a few hundred tokens each).
    The last column is how many input tokens the run needed beyond the previous row's run.
    """
    import pandas as pd

    rows = []
    for n in sizes:
        run = run_agent(client, city_task(list(cities[:n])), task_tools(notes_dir, forecast_days), **run_options)
        rows.append({"cities": n, "model calls": run.model_calls, "input tokens": run.input_tokens,
                     "re-prefill tokens": run.reprefill_tokens, "stop": run.stop_reason.value,
                     "estimated": run.estimated})
    table = pd.DataFrame(rows).set_index("cities")
    table["extra input tokens vs previous row"] = table["input tokens"].diff().astype("Int64")
    return table


def plot_scaling(table: Any) -> Any:
    """Total input tokens against number of cities, with the straight line through the first two points."""
    import matplotlib.pyplot as plt

    use_cjk_font()  # Chinese titles and labels render as glyphs, not boxes
    fig, ax = plt.subplots(figsize=(7, 4.2), constrained_layout=True)
    x, y = list(table.index), list(table["input tokens"])
    ax.plot(x, y, marker="o", label="measured (agent run)")
    if len(x) >= 2:
        step = (y[1] - y[0]) / (x[1] - x[0])
        ax.plot(x, [y[0] + step * (n - x[0]) for n in x], linestyle="--", color="#999999",
                label="straight line through the first two points")
    ax.set_xlabel("cities in the task (count)")
    ax.set_ylabel("input tokens over the whole run (tokens)")
    ax.set_xticks(x)
    ax.legend(fontsize=8)
    est = " (estimated by the simulator)" if "estimated" in table and table["estimated"].any() else ""
    for xi, yi in zip(x, y):
        ax.annotate(f"{yi:,}", (xi, yi), ha="right", va="bottom", fontsize=8, xytext=(-3, 3), textcoords="offset points")
    ax.set_title(f"More cities: more turns, each re-sending more{est}", fontsize=10)
    return localize(fig)
