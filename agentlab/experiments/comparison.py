"""The same task run both ways, agent and workflow, measured side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentlab.loop import run_agent
from agentlab.run import Run
from agentlab.weather import city_task, task_tools
from agentlab.workflows import run_workflow

ROWS = [
    "model calls",
    "turns",
    "input tokens",
    "  of which tools offered",
    "  of which history",
    "re-prefill tokens",
    "output tokens",
    "cost (USD)",
    "wall time (s)",
    "stop",
]
"""The table's rows, top to bottom."""


def compare(
    client: Any,
    cities: list[str],
    notes_dir: str | Path,
    *,
    model: str | None = None,
    trace_dir: str | Path | None = None,
    lang: str | None = None,
) -> tuple[Run, Run]:
    """Run the city task as an agent and as a workflow on the same client; returns ``(agent, workflow)``."""
    traces = Path(trace_dir) if trace_dir else None
    return tuple(
        run_city(
            client,
            kind,
            cities,
            notes_dir,
            model=model,
            lang=lang,  # type: ignore[return-value]
            trace=traces / f"{kind}.jsonl" if traces else None,
        )
        for kind in ("agent", "workflow")
    )


def run_city(
    client: Any,
    kind: str,
    cities: list[str],
    notes_dir: str | Path,
    *,
    model: str | None = None,
    lang: str | None = None,
    trace: str | Path | None = None,
    cache: bool = False,
) -> Run:
    """The city task one way: ``kind`` is ``"agent"`` or ``"workflow"``. ``agentlab compare`` and the cost
    preview (``agentlab.experiments.preview``) both run this, so a preview is the run it previews."""
    if kind == "agent":
        return run_agent(client, city_task(cities, lang), task_tools(notes_dir), model=model, trace=trace, cache=cache)
    if kind != "workflow":
        raise ValueError(f"run_city(kind={kind!r}): kind must be 'agent' or 'workflow'")
    if cache:
        raise ValueError(
            "run_city(kind='workflow', cache=True): the workflow makes one call and re-sends nothing; "
            "caching does not apply to it"
        )
    return run_workflow(client, cities, notes_dir, model=model, lang=lang, trace=trace)


def _cell(row: str, value: Any) -> str:
    if value is None:
        return "unknown price" if row == "cost (USD)" else "unknown"
    if row == "cost (USD)":
        return f"{value:.6f}"
    if row == "wall time (s)":
        return f"{value:.3f}"
    return str(value)


def comparison_table(runs: list[Run]) -> str:
    """A plain-text table: one column per run, one row per figure, and a line on where tokens came from."""
    cols = [[r.kind for r in runs]] + [[_cell(row, r.summary()[row]) for r in runs] for row in ROWS]
    labels = [""] + ROWS
    width0 = max(len(s) for s in labels)
    widths = [max(len(c[i]) for c in cols) for i in range(len(runs))]
    lines = []
    for label, row in zip(labels, cols):
        lines.append(f"{label:<{width0}}  " + "  ".join(f"{v:>{w}}" for v, w in zip(row, widths)))
        if label == "":
            lines.append("-" * len(lines[0]))
    source = {r.summary()["tokens"] for r in runs}
    lines.append(f"tokens: {', '.join(sorted(source))}; cost from genai-prices for {runs[0].model}")
    lines.append(
        "tools offered: the hidden tool-use system prompt and the tool definitions, billed on every call with tools"
    )
    return "\n".join(lines)
