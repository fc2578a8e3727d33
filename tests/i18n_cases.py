"""Every figure the notebooks draw, rebuilt small: one builder per figure function the notebooks call.

``FIGURE_CASES[name](folder)`` returns the figures that ``name(...)`` draws in the notebooks, made the
way the notebooks make them (same functions, same kinds of input, fewer cities and runs so it is
quick). ``notebook_figure_calls()`` scans the notebooks' code for the figure functions they call, so a
notebook that starts calling a new one fails tests/test_i18n_figures.py until a case is added here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
FIGURE_CALL = re.compile(r"\b(plot_\w+|trace_stepper|city_experiment|experiment_controls)\(")
"""A call that draws a figure (or a widget whose static copy is a figure)."""
FIGURE_CELL = re.compile(r"^(?!\s*(from|import)\s).*" + FIGURE_CALL.pattern, re.M)
"""A code cell's source that calls one of those (a call, not an import): it should show at least one image."""


def notebook_figure_calls() -> dict[str, list[str]]:
    """Figure function name -> the notebooks (both editions) whose code calls it."""
    found: dict[str, list[str]] = {}
    for path in sorted(NOTEBOOKS.glob("**/*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            for line in source.splitlines():
                if re.match(r"\s*(from|import)\s", line) or line.lstrip().startswith("def "):
                    continue
                for name in FIGURE_CALL.findall(line):
                    found.setdefault(name, []).append(str(path.relative_to(NOTEBOOKS)))
    return found


def _client(**options: Any) -> Any:
    import agentlab

    return agentlab.connect("sim", quiet=True, **options)


def _agent_run(folder: Path, **connect_options: Any) -> Any:
    import agentlab

    return agentlab.run_agent(
        _client(**connect_options),
        agentlab.city_task(["Paris", "London"]),
        agentlab.task_tools(folder),
        trace=folder / "agent.jsonl",
    )


def _tokens_per_turn(folder: Path) -> list:
    from agentlab.views.figures import plot_tokens_per_turn

    return [
        plot_tokens_per_turn(_agent_run(folder / "parts", count_parts=True)),  # split by part (notebook 02)
        plot_tokens_per_turn(_agent_run(folder / "plain")),
    ]  # re-prefill / new only (live without counts)


def _scaling(folder: Path) -> list:
    import agentlab
    from agentlab.experiments.scaling import plot_scaling, scaling_table

    table = scaling_table(_client(count_parts=True), agentlab.city_names()[:3], folder, sizes=range(2, 4))
    return [plot_scaling(table)]


def _comparison(folder: Path) -> list:
    import agentlab
    from agentlab.views.figures import plot_comparison

    agent, workflow = agentlab.compare(_client(count_parts=True), ["Paris", "London"], folder / "parts")
    plain = agentlab.compare(_client(), ["Paris", "London"], folder / "plain")
    return [plot_comparison([agent, workflow]), plot_comparison(list(plain))]


def _city_experiment(folder: Path) -> list:
    from agentlab.experiments.city import PATHS, model_choices, run_city_experiment

    return [
        run_city_experiment(model_choices()[0], 2, path, notes_dir=folder / str(i), max_turns=3)
        for i, path in enumerate(PATHS)
    ]


def _variants(folder: Path) -> list:
    from agentlab.experiments.replacement import plot_variants, variant_table

    return [plot_variants(variant_table(_client(), folder))]


def _patterns(folder: Path) -> list:
    from agentlab.experiments.patterns import pattern_runs, pattern_table, plot_patterns

    cities = ["Madrid", "Oslo"]
    return [plot_patterns(pattern_table(pattern_runs(_client(), cities, folder), cities))]


def _speedup(folder: Path) -> list:
    from agentlab.experiments import speedup, tool_speedup

    return [
        speedup.plot_speedup(speedup.speedup_table(latency=0.001, sizes=(2,), reps=1)),  # notebook 04
        tool_speedup.plot_speedup(tool_speedup.speedups(range(1, 3), seconds=0.001)),
    ]  # notebook 07


def _swimlane(folder: Path) -> list:
    import agentlab
    from agentlab.experiments.patterns import data_line
    from agentlab.experiments.who_decides import TASK
    from agentlab.guards import Limits
    from agentlab.sim.models.misbehaving import Looper
    from agentlab.views.swimlane import plot_swimlane
    from agentlab.workflows import run_orchestrator

    agent = _agent_run(folder / "agent")
    orch = run_orchestrator(
        _client(),
        "Which is warmer today, Paris, Madrid or Oslo?",
        worker_system="Write one sentence on the city's weather.",
        synth_system="Combine the parts into one short note.",
        context=lambda s: data_line([s["title"]]),
        trace=folder / "orchestrator.jsonl",
    )
    agentlab.run_agent(
        agentlab.connect("sim", policy=Looper(), quiet=True),
        TASK,
        agentlab.task_tools(folder),
        trace=folder / "looper.jsonl",
        limits=Limits(max_turns=50, max_repeats=3),
    )
    return [
        plot_swimlane(agent),
        plot_swimlane(orch),
        plot_swimlane(folder / "looper.jsonl"),
        plot_swimlane(agent, upto=4),
    ]  # notebook 07: the run as it stands after step 4


def _resent(folder: Path) -> list:
    from agentlab.experiments import walkthrough

    return [walkthrough.plot_resent(walkthrough.walk_city(["Paris", "London"], folder, client=_client()))]


def _guards(folder: Path) -> list:
    from agentlab.experiments.who_decides import guard_demos, plot_guards

    return [plot_guards(guard_demos(folder))]


def _stop_reasons(folder: Path) -> list:
    from agentlab.experiments.stop_reasons import plot_stop_reasons, stop_reason_runs

    return [plot_stop_reasons(stop_reason_runs(folder))]


def _strict(folder: Path) -> list:
    from agentlab.experiments.strict import plot_strict, strict_rows

    return [plot_strict(strict_rows(folder / "strict"))]


def _wire(folder: Path) -> list:
    from agentlab.experiments.threads import plot_wire, thread_pair

    return [plot_wire(thread_pair(["Paris", "London"], folder / "threads"))]


def _recovery(folder: Path) -> list:
    from agentlab.experiments.recovery import plot_recovery, recovery_table

    return [plot_recovery(recovery_table(cases=("missing_field",)))]


def _compounding(folder: Path) -> list:
    from agentlab.experiments.compounding import compounding_runs, plot_compounding

    return [plot_compounding(compounding_runs(steps=(1, 2), trials=2))]


def _coupling(folder: Path) -> list:
    from agentlab.experiments import coupling

    return [coupling.plot_coupling(coupling.naive_vs_declared())]


def _styles(folder: Path) -> list:
    from agentlab.experiments.react_vs_native import compare_styles, plot_styles

    return [plot_styles(compare_styles(seeds=range(2), malformed=0.3))]


def _descriptions(folder: Path) -> list:
    from agentlab.experiments.tool_descriptions import compare_descriptions, plot_descriptions

    return [plot_descriptions(compare_descriptions(seeds=range(2)))]


def _caching_pair(folder: Path) -> dict:
    from agentlab.experiments.turn_costs import caching_pair

    return caching_pair(3, "claude-opus-5", folder)


def _cost_per_turn(folder: Path) -> list:
    from agentlab.experiments.turn_costs import plot_cost_per_turn

    return [plot_cost_per_turn(_caching_pair(folder))]


def _latency_per_turn(folder: Path) -> list:
    from agentlab.experiments.turn_costs import plot_latency_per_turn

    return [plot_latency_per_turn(_caching_pair(folder))]


def _sweep_frame() -> Any:
    from agentlab.experiments.sweeps import sweep

    return sweep(
        ns=range(1, 3), models=("claude-opus-5", "claude-haiku-5-5"), long_output=(False, True), progress=False
    )


def _sweep(folder: Path) -> list:
    from agentlab.experiments.sweeps import plot_sweep

    df = _sweep_frame()
    return [plot_sweep(df, "claude-opus-5"), plot_sweep(df, "claude-opus-5", long_output=True)]


def _cost_by_model(folder: Path) -> list:
    from agentlab.experiments.sweeps import plot_cost_by_model

    return [plot_cost_by_model(_sweep_frame())]


def _stepper(folder: Path) -> list:
    from agentlab.views.swimlane import trace_events
    from agentlab.views.widgets import lane_figure

    events = trace_events(_agent_run(folder))
    return [lane_figure(events, 1), lane_figure(events, 2, max_steps=3)]  # shaded, and inside the collapsed band


FIGURE_CASES: dict[str, Callable[[Path], list]] = {
    "plot_tokens_per_turn": _tokens_per_turn,
    "plot_scaling": _scaling,
    "plot_comparison": _comparison,
    "city_experiment": _city_experiment,
    "experiment_controls": _city_experiment,
    "plot_variants": _variants,
    "plot_patterns": _patterns,
    "plot_speedup": _speedup,
    "plot_swimlane": _swimlane,
    "plot_resent": _resent,
    "plot_guards": _guards,
    "plot_stop_reasons": _stop_reasons,
    "plot_strict": _strict,
    "plot_wire": _wire,
    "plot_recovery": _recovery,
    "plot_compounding": _compounding,
    "plot_coupling": _coupling,
    "plot_styles": _styles,
    "plot_descriptions": _descriptions,
    "plot_cost_per_turn": _cost_per_turn,
    "plot_latency_per_turn": _latency_per_turn,
    "plot_sweep": _sweep,
    "plot_cost_by_model": _cost_by_model,
    "trace_stepper": _stepper,
}
"""Figure function name (as the notebooks call it) -> builder of the figures it draws there."""


def _tactics(folder: Path) -> tuple:
    from agentlab.context import compare_tactics

    return compare_tactics(n_cities=8, workdir=folder)


def _tokens_per_call(folder: Path) -> list:
    from agentlab.context.plots import plot_tokens_per_call

    return [plot_tokens_per_call(_tactics(folder)[1])]


def _tactic_bars(folder: Path) -> list:
    from agentlab.context.plots import plot_tactics

    return [plot_tactics(_tactics(folder)[0])]


def _window_budget(folder: Path) -> list:
    from agentlab.context import WINDOW_TOKENS
    from agentlab.experiments.window_budget import plot_window_budget

    return [plot_window_budget(_tactics(folder)[1]["plain"].turns, WINDOW_TOKENS)]


def _position(folder: Path) -> list:
    from agentlab.experiments.position import plot_context_rot, plot_lost_in_the_middle

    return [plot_lost_in_the_middle(), plot_context_rot()]


def _injection(folder: Path) -> list:
    from agentlab.injection import approval_sweep, matrix
    from agentlab.injection.plots import plot_approval_sweep, plot_injection_matrix, plot_published_beside_ours

    frame = matrix()
    return [
        plot_injection_matrix(frame),
        plot_published_beside_ours(frame),
        plot_approval_sweep(approval_sweep(rates=(0.0, 1.0), seeds=(0,))),
    ]


def _capstone(folder: Path) -> list:
    import agentlab
    from agentlab.experiments import capstone
    from agentlab.experiments.capstone import plot_call_tokens

    return [plot_call_tokens({name: agentlab.read_trace(capstone.trace_path(name)) for name in capstone.NAMES})]


def _multiplying(folder: Path) -> list:
    from agentlab.experiments.multiplying import multiplying_table, plot_multiplying

    return [plot_multiplying(multiplying_table((1, 2), workdir=folder))]


FIGURE_CASES.update(
    {  # notebooks 10-12 (each area's Chinese is in its own file of agentlab/data/i18n/zh-CN/)
        "plot_tokens_per_call": _tokens_per_call,
        "plot_tactics": _tactic_bars,
        "plot_window_budget": _window_budget,
        "plot_lost_in_the_middle": _position,
        "plot_context_rot": _position,
        "plot_injection_matrix": _injection,
        "plot_approval_sweep": _injection,
        "plot_published_beside_ours": _injection,
        "plot_call_tokens": _capstone,
        "plot_multiplying": _multiplying,
    }
)


def _trials(folder: Path) -> list:
    from agentlab.evals.plot import plot_frontier, plot_reliability
    from agentlab.evals.tasks import TASKS
    from agentlab.evals.trials import run_trials

    rows = run_trials(trials=4, tasks=TASKS[:2], progress=False)
    return [plot_reliability(rows), plot_frontier(rows, k=2)]


FIGURE_CASES.update({"plot_reliability": _trials, "plot_frontier": _trials})  # notebook 14 (zh-CN: evals.json)
