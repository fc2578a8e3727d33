"""Draw the README's picture: the city task as agent and as workflow, side by side (docs/agent_vs_workflow.png).

Runs offline on the simulated model (deterministic, so the PNG only changes when the code does):

    .venv/bin/python scripts/make_readme_figure.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "agent_vs_workflow.png"


def main(out: Path = OUT) -> Path:
    import agentlab
    from agentlab.views.figures import plot_comparison

    client = agentlab.connect("sim", quiet=True)
    with tempfile.TemporaryDirectory(prefix="agentlab-readme-") as notes:
        agent, workflow = agentlab.compare(client, ["Paris", "London"], notes)
    fig = plot_comparison([agent, workflow], title="Which of Paris and London is warmer? Then save a note")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100, metadata={"Software": None})
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
