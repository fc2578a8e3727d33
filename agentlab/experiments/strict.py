"""Notebook 08: a malformed tool input with and without ``strict: true`` on the tool.

``CarelessModel`` (``agentlab/sim/models/misbehaving.py``) writes its first ``get_weather`` input wrong:
``missing_field`` sends ``{"location": ...}`` instead of the required ``city``, ``wrong_type`` sends
``{"city": ["Paris"]}``. Without ``strict`` the API passes that input on, the harness's schema check
refuses it (``is_error``) and the model spends a turn to fix it. With ``strict: true`` the API samples
the input under the schema's grammar (https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use),
so no invalid input reaches the harness. *Which* valid input comes out is the simulator's rule
(``agentlab/sim/strict.py``), not a fact about Claude.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

CASES = ("missing_field", "wrong_type")
"""The ``CarelessModel`` cases whose wrong input is a schema violation."""


def strict_run(case: str, strict: bool, workdir: str | Path | None = None) -> Any:
    """The two-city task on ``CarelessModel(case)``, the tools sent with or without ``strict: true``."""
    import agentlab
    from agentlab.sim.models.misbehaving import CarelessModel

    client = agentlab.connect("sim", policy=CarelessModel(case), quiet=True)
    where = Path(workdir or tempfile.mkdtemp(prefix="agentlab-strict-"))
    tools = [dataclasses.replace(t, strict=strict) for t in agentlab.task_tools(where / f"{case}-{strict}")]
    return agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), tools)


def strict_rows(workdir: str | Path | None = None) -> list[dict]:
    """One row per case and setting: the first ``get_weather`` input the harness got, refused inputs, calls, tokens."""
    rows = []
    for case in CASES:
        for strict in (False, True):
            run = strict_run(case, strict, workdir)
            first = next(r for r in run.tool_results if r["name"] == "get_weather")
            rows.append(
                {
                    "case": case,
                    "strict": strict,
                    "first get_weather input": first["input"],
                    "refused inputs": sum(r["is_error"] for r in run.tool_results),
                    "model calls": run.model_calls,
                    "input tokens": run.input_tokens,
                    "stop": run.stop_reason.value,
                }
            )
    return rows


def plot_strict(rows: list[dict]) -> Any:
    """Refused inputs and model calls per case, without and with ``strict: true``, value-labelled."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from agentlab.views.i18n import localize

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    width = 0.38
    for ax, field in zip(axes, ("refused inputs", "model calls")):
        for k, strict in enumerate((False, True)):
            ys = [r[field] for r in rows if r["strict"] is strict]
            xs = [i + (k - 0.5) * width for i in range(len(ys))]
            bars = ax.bar(xs, ys, width, color=("#9e9e9e", "#5b3f8c")[k], label=f"strict={strict}")
            ax.bar_label(bars, fmt="%d", padding=2)
        ax.set_xticks(range(len(CASES)), list(CASES))
        ax.set_ylabel(field)
        ax.set_title(f"{field} per run")
        ax.margins(y=0.2)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize=8)
    fig.tight_layout()
    return localize(fig)
