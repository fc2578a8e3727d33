"""Measure the estimator's hidden-prompt and tool-use figures on the FIT part of the calibration set.

For each model with fit recordings, prints the median of ``real - estimate`` on the requests that
isolate one figure, and the figure that would remove it (the current figure plus that residual):

- ``tool_prompt_offset``: tools defined, none deferred, no tool call in the history (the published tool-use prompt's gap);
- ``deferred_tools``: a tool with ``defer_loading`` defined, no tool search tool, no tool call in the history
  (the hidden prompt deferred loading adds, after the above);
- ``tool_use_block``: per ``tool_use`` block in the history (each round trip's wrapper), after the above;
- ``thinking_enabled`` / ``thinking_adaptive``: a one-message request with ``thinking`` on, no tools;
- ``structured_output``: ``output_config.format`` (JSON outputs), no tools, one message;
- ``task_budget``: ``output_config.task_budget``.

Run it, copy the figures it prints into ``agentlab/api/data/profiles.json`` (``measured``), run it
again: a fitted figure's residual is then about 0. Only core requests (no server-side work) count, and
never the held-out part, which ``agentlab calibrate`` reports on. ``agentlab calibrate --loso`` fits the same
figures from nothing on all but one public source, and measures the one left out.

    PYTHONPATH=. python scripts/fit_calibration.py
"""

from __future__ import annotations

import statistics

from agentlab.api.profiles import profile
from agentlab.sim.calibrate import bundled, replay
from agentlab.sim.calibrate_loso import subsets  # which figure each request measures: one home, shared


def main() -> None:
    records = [r for r in bundled()["records"] if r["split"] == "fit"]
    rows = replay(records)
    found: dict[tuple[str, str], list[float]] = {}
    for rec, row in zip(records, rows):
        if row.estimate is None or row.real is None:
            continue
        for name, weight in subsets(rec["request"], row).items():
            found.setdefault((row.model, name), []).append((row.real - row.estimate) / weight)
    for (model, name), residuals in sorted(found.items()):
        p = profile(model)
        current = p.measured.get(name, 0) if p else 0
        med = statistics.median(residuals)
        print(f"{model:20} {name:20} n={len(residuals):3}  residual median {med:+7.1f}  -> figure {current + med:.0f}")


if __name__ == "__main__":
    main()
