"""``city_experiment()``, the notebooks' rerun-as-you-move widget for the city task: one run of the task per set of control values.

``run_city_experiment(model=..., cities=..., path=..., **options)`` runs the city task on a fresh
simulated client (deterministic, free) and returns the comparison figure. Every extra keyword is
passed to ``run_agent`` unchanged, so a control named after a ``run_agent`` parameter works with no
new code: ``max_turns`` (the turn limit guard) ships today.

Adding a control when a feature lands (caching, error style, more guards): if ``run_agent`` takes it
as a keyword, pass it to ``city_experiment(caching=[False, True])``; otherwise write a run function
``run(**values) -> figure`` and call ``agentlab.views.widgets.experiment_controls({...}, run)``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

PATHS = ["agent and workflow", "agent", "workflow"]
"""What the ``path`` control offers: which code paths run the task."""


def model_choices() -> list[str]:
    """The default model first, then a few other ids the simulator answers to (prices differ by model)."""
    from agentlab.client import default_model
    from agentlab.sim.server import model_catalog

    known = model_catalog()["models"]
    extra = [m for m in ("claude-haiku-5-5", "claude-opus-5-5", "claude-haiku-4-5") if m in known]  # answered today (retired ones drop out)
    return list(dict.fromkeys([default_model(), *extra]))


def city_controls() -> dict[str, Any]:
    """The controls of :func:`city_experiment`: model, number of cities, code path, turn limit."""
    return {"model": model_choices(), "cities": (2, 6, 2), "path": list(PATHS), "max_turns": (1, 10, 10)}


def run_city_experiment(model: str, cities: int, path: str = PATHS[0], *, mode: str = "sim",
                        notes_dir: str | Path | None = None, **options: Any) -> Any:
    """Run the city task on the first ``cities`` cities along ``path``; returns the comparison figure.

    ``options`` go to ``run_agent`` (e.g. ``max_turns``). ``mode="sim"`` by default: every change of a
    control reruns, and on the live API each rerun costs money.
    """
    from agentlab.client import connect
    from agentlab.loop import run_agent
    from agentlab.views.figures import plot_comparison
    from agentlab.weather import city_names, city_task, task_tools
    from agentlab.workflows import run_workflow

    if path not in PATHS:
        raise ValueError(f"run_city_experiment(path={path!r}): choose one of {PATHS}")
    names = city_names("en")
    if not isinstance(cities, int) or not 1 <= cities <= len(names):
        raise ValueError(f"run_city_experiment(cities={cities!r}): use a whole number from 1 to {len(names)}")
    folder = Path(notes_dir) if notes_dir else Path(tempfile.mkdtemp(prefix="agentlab-exp-"))
    client = connect(mode, model=model, quiet=True)
    chosen = names[:cities]
    runs = []
    if path != "workflow":
        runs.append(run_agent(client, city_task(chosen), task_tools(folder / "agent"), **options))
    if path != "agent":
        runs.append(run_workflow(client, chosen, folder / "workflow"))
    return plot_comparison(runs, title=f"{cities} cities, {path}: {model}")


def city_experiment(mode: str = "sim", **extra_controls: Any) -> Any:
    """The city task under controls (model, cities, agent or workflow, max_turns, plus ``extra_controls``)."""
    from agentlab.views.widgets import experiment_controls

    def run(**values: Any) -> Any:
        return run_city_experiment(mode=mode, **values)

    return experiment_controls({**city_controls(), **extra_controls}, run)
