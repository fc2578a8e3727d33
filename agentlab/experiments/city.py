"""``city_experiment()``, the notebooks' rerun-as-you-move widget for the city task: one run of the task per set of control values.

``run_city_experiment(model=..., cities=..., path=..., **options)`` runs the city task on a fresh
simulated client (deterministic, free) and returns the comparison figure. Every extra keyword is
passed to ``run_agent`` unchanged, so a control named after a ``run_agent`` parameter works with no
new code: ``max_turns`` (the turn limit guard) ships today; ``one_per_turn`` asks for one tool per reply. Each bar
of the figure says how its run stopped and whether the note was saved and the question answered.

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
    from agentlab.api.profiles import model_catalog
    from agentlab.client import default_model

    known = model_catalog()["models"]
    extra = [
        m for m in ("claude-haiku-5-5", "claude-opus-5-5", "claude-haiku-4-5") if m in known
    ]  # answered today (retired ones drop out)
    return list(dict.fromkeys([default_model(), *extra]))


def city_controls() -> dict[str, Any]:
    """The controls of :func:`city_experiment`: model, number of cities, code path, turn limit, one tool per reply."""
    return {
        "model": model_choices(),
        "cities": (2, 6, 2),
        "path": list(PATHS),
        "max_turns": (1, 10, 10),
        "one_per_turn": False,
    }


def city_runs(
    model: str,
    cities: int,
    path: str = PATHS[0],
    *,
    mode: str = "sim",
    notes_dir: str | Path | None = None,
    one_per_turn: bool = False,
    **options: Any,
) -> list[tuple[Any, str]]:
    """Run the city task on the first ``cities`` cities along ``path``: each run with what it got done
    (``outcome``). ``one_per_turn``: the agent may ask for one tool per reply (``tools.ONE_PER_TURN``);
    ``options`` go to ``run_agent`` (e.g. ``max_turns``)."""
    from agentlab.client import connect
    from agentlab.loop import run_agent
    from agentlab.tools import ONE_PER_TURN
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
        if one_per_turn:
            options = {**options, "tool_choice": ONE_PER_TURN}
        run = run_agent(client, city_task(chosen), task_tools(folder / "agent"), **options)
        runs.append((run, outcome(run, folder / "agent")))
    if path != "agent":
        run = run_workflow(client, chosen, folder / "workflow")
        runs.append((run, outcome(run, folder / "workflow")))
    return runs


def outcome(run: Any, notes_dir: Path) -> str:
    """What a city-task run got done, in one label: how it stopped, whether the note was saved, whether it answered."""
    saved = notes_dir.is_dir() and any(notes_dir.iterdir())
    return (
        f"stop: {run.stop_reason.value}\nnote {'saved' if saved else 'not saved'}, "
        f"{'answered' if run.final_text.strip() else 'no answer'}"
    )


def run_city_experiment(model: str, cities: int, path: str = PATHS[0], **options: Any) -> Any:
    """:func:`city_runs` as the comparison figure, each bar labelled with how its run stopped and what it left
    undone. ``mode="sim"`` by default: every change of a control reruns, and on the live API each rerun costs money."""
    from agentlab.views.figures import plot_comparison

    runs = city_runs(model, cities, path, **options)
    turns = "one tool per reply" if options.get("one_per_turn") else "tools in parallel"
    return plot_comparison(
        [r for r, _ in runs],
        labels=[f"{r.kind}\n{said}" for r, said in runs],
        title=f"{cities} cities, {path}, {turns}: {model}",
    )


def city_experiment(mode: str = "sim", **extra_controls: Any) -> Any:
    """The city task under controls (model, cities, agent or workflow, max_turns, plus ``extra_controls``)."""
    from agentlab.views.widgets import experiment_controls

    def run(**values: Any) -> Any:
        return run_city_experiment(mode=mode, **values)

    return experiment_controls({**city_controls(), **extra_controls}, run)
