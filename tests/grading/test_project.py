"""The final project's grader (``agentlab project``): the three questions checked against two traces.

One project is recorded once on the simulator (a task of its own: a temperature in Fahrenheit, two
tools, an agent driven by a scripted model and a workflow), answered right by reading the traces
here in the test, then broken one answer at a time.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

import agentlab
from agentlab.grading.project import TOTAL, ProjectError, facts, grade, write_template
from agentlab.meter.prices import cost_usd
from agentlab.meter.usage import Usage
from agentlab.trace import read_trace

TASK = "What is the temperature in Paris today, in degrees Fahrenheit?"


def _fahrenheit():
    from agentlab.tools import tool

    @tool
    def to_fahrenheit(celsius: float) -> str:
        """Convert a temperature in degrees Celsius to degrees Fahrenheit.

        Args:
            celsius: The temperature in degrees Celsius, e.g. 18.5.
        """
        return f"{celsius * 9 / 5 + 32:.1f}"

    return to_fahrenheit


def _policy(messages: list[dict], request: dict):
    """The scripted model of this project: look the city up, convert, answer."""
    results = [
        b
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    if not results:
        return [{"type": "tool_use", "name": "get_weather", "input": {"city": "Paris"}}]
    if len(results) == 1:
        import json

        return [
            {
                "type": "tool_use",
                "name": "to_fahrenheit",
                "input": {"celsius": json.loads(results[0]["content"])["temp_c"]},
            }
        ]
    return f"It is {results[1]['content']}°F in Paris today."


def _record(folder: Path) -> None:
    import json

    from agentlab.sim.policy import FunctionModel
    from agentlab.weather import make_get_weather
    from agentlab.workflows.step import Steps

    weather, convert = make_get_weather(0), _fahrenheit()
    client = agentlab.connect("sim", policy=FunctionModel(_policy), quiet=True)
    agentlab.run_agent(client, TASK, [weather, convert], trace=folder / "agent.jsonl")
    client = agentlab.connect(
        "sim", policy=FunctionModel(lambda messages, request: "It is 65.3°F in Paris."), quiet=True
    )
    with Steps(client, "fahrenheit", trace=folder / "workflow.jsonl") as wf:
        looked = wf.tool("fahrenheit/get_weather", weather, {"city": "Paris"})
        converted = wf.tool("fahrenheit/to_fahrenheit", convert, {"celsius": json.loads(looked.output)["temp_c"]})
        said = wf.ask("fahrenheit/write", f"Say in one sentence that it is {converted.output}°F in Paris.")
        wf.finish(agentlab.StopReason.COMPLETED, said)


def _answers_for(folder: Path) -> dict:
    """The right answers, read off the traces here (the test's own reading, not the grader's)."""
    out = {"task": TASK}
    for run in ("agent", "workflow"):
        events = read_trace(folder / f"{run}.jsonl")
        asked = {
            b["id"] for e in events if e.get("event") == "response" for b in e["content"] if b["type"] == "tool_use"
        }
        steps = [
            {"line": n, "tool": e["name"], "chosen_by": "model" if e.get("id") in asked else "code"}
            for n, e in enumerate(events, 1)
            if e.get("event") in ("tool_call", "code_step")
        ]
        calls = [
            {
                "line": n,
                "input_tokens": Usage.from_api(e["usage"]).prompt_total,
                "output_tokens": Usage.from_api(e["usage"]).output_tokens,
            }
            for n, e in enumerate(events, 1)
            if e.get("event") == "response"
        ]
        total = sum((Usage.from_api(e["usage"]) for e in events if e.get("event") == "response"), Usage())
        out[run] = {
            "trace": f"{run}.jsonl",
            "steps": steps,
            "calls": calls,
            "usd": cost_usd(events[0]["model"], total),
            "stopped": {
                "line": len(events),
                "reason": events[-1]["reason"],
                "decided_by": "model" if run == "agent" else "code",
            },
        }
    cheaper = min(("agent", "workflow"), key=lambda r: out[r]["usd"])
    out["choice"] = {
        "pick": cheaper,
        "because": f"both finished; the {cheaper} cost {out[cheaper]['usd']:.5f} USD, less",
    }
    return out


def _toml(value, key=""):
    import json

    if isinstance(value, dict) and key:
        return "{ " + ", ".join(f"{k} = {_toml(v, k)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[\n" + "".join(f"  {_toml(v, 'x')},\n" for v in value) + "]"
    return json.dumps(value)


def _write(folder: Path, answers: dict) -> Path:
    lines = [f"task = {_toml(answers['task'])}"]
    for table in ("agent", "workflow", "choice"):
        lines.append(f"\n[{table}]")
        lines += [f"{k} = {_toml(v, k)}" for k, v in answers[table].items()]
    path = folder / "answers.toml"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("project")
    _record(folder)
    return folder


@pytest.fixture
def submission(project, tmp_path) -> tuple[Path, dict]:
    for run in ("agent", "workflow"):
        shutil.copy(project / f"{run}.jsonl", tmp_path)
    return tmp_path, _answers_for(tmp_path)


def test_right_answers_backed_by_the_trace_get_full_marks(submission):
    folder, answers = submission
    report = grade(_write(folder, answers))
    assert report.total == TOTAL and not report.refused, report.lines()
    assert report.lines()[-1] == f"total: {TOTAL}/{TOTAL}"


@pytest.mark.parametrize(
    "change, question, lost",
    [
        (lambda a: a["agent"]["steps"][0].update(chosen_by="code"), "agent: who chose each step", 1),
        (
            lambda a: a["agent"]["steps"][1].update(line=a["agent"]["steps"][1]["line"] + 1),
            "agent: who chose each step",
            1,
        ),
        (lambda a: a["workflow"]["stopped"].update(decided_by="model"), "workflow: what stopped it", 1),
        (lambda a: a["agent"]["stopped"].update(line=2), "agent: what stopped it", 1),
        (
            lambda a: a["agent"]["calls"][0].update(input_tokens=a["agent"]["calls"][0]["input_tokens"] - 1),
            "agent: what each call cost",
            1,
        ),
        (lambda a: a["workflow"].update(usd=a["workflow"]["usd"] * 1.5), "workflow: what each call cost", 1),
        (lambda a: a["choice"].update(because="it felt simpler"), "the choice: agent or workflow", 1),
    ],
)
def test_each_wrong_answer_loses_its_point_and_says_which(submission, change, question, lost):
    folder, answers = submission
    answers = copy.deepcopy(answers)
    change(answers)
    report = grade(_write(folder, answers))
    check = next(c for c in report.checks if c.question == question)
    assert (check.points, report.total) == (check.possible - lost, TOTAL - lost), report.lines()
    assert check.notes, "a lost point says why"


def test_picking_the_costlier_of_two_finished_runs_is_left_to_the_instructor(submission):
    folder, answers = submission
    answers["choice"]["pick"] = "agent" if answers["choice"]["pick"] == "workflow" else "workflow"
    check = grade(_write(folder, answers)).checks[-1]
    assert check.points == 1 and "for the instructor" in check.notes[0]


def test_the_untouched_template_scores_nothing_and_names_what_to_fill(tmp_path, submission):
    folder, _ = submission
    report = grade(write_template(folder / "answers.toml"))
    assert sum(c.points for c in report.checks) == 0, report.lines()
    assert any("pick = ''" in n for c in report.checks for n in c.notes)


def test_the_course_city_task_and_the_shipped_traces_are_not_accepted(tmp_path):
    from agentlab.experiments.capstone import trace_path

    for run in ("agent", "workflow"):
        shutil.copy(trace_path(run), tmp_path / f"{run}.jsonl")
    report = grade(_write(tmp_path, _answers_for(tmp_path)))
    assert report.total == 0 and sum(c.points for c in report.checks) == TOTAL
    assert any("city task" in r for r in report.refused) and any("shipped" in r for r in report.refused)


def test_a_workflow_trace_handed_in_as_the_agent_is_not_accepted(submission):
    folder, answers = submission
    answers["agent"]["trace"] = "workflow.jsonl"
    report = grade(_write(folder, answers))
    assert report.total == 0 and any("kind 'workflow'" in r for r in report.refused)


@pytest.mark.parametrize(
    "text, said",
    [
        ("task = \n", "not valid TOML"),
        ("task = 'x'\n[agent]\ntrace = 'missing.jsonl'\n", "no such file"),
        ("task = 'x'\n[agent]\ntrace = '../outside.jsonl'\n", "outside the answers file's folder"),
        ("task = 'x'\n", "[agent]: missing"),
        ("task = 'x'\n[agent]\ntrace = 'agent.jsonl'\nsteps = 3\n", "steps: a list of tables"),
    ],
)
def test_a_broken_answers_file_says_the_field_and_the_fix(submission, text, said):
    folder, _ = submission
    (folder / "answers.toml").write_text(text, "utf-8")
    with pytest.raises(ProjectError, match=None) as e:
        grade(folder / "answers.toml")
    assert said in str(e.value) and str(folder) not in str(e.value)


def test_a_cut_off_trace_is_refused_with_the_reason(submission):
    folder, answers = submission
    lines = (folder / "agent.jsonl").read_text("utf-8").splitlines(keepends=True)
    (folder / "agent.jsonl").write_text("".join(lines[:-1]), "utf-8")
    with pytest.raises(ProjectError, match="not a stop event"):
        grade(_write(folder, answers))


def test_the_command_prints_the_total_last_and_exits_0_or_2_on_bad_input(submission, capsys):
    from agentlab.cli import main

    folder, answers = submission
    assert main(["project", str(_write(folder, answers))]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"total: {TOTAL}/{TOTAL}"
    assert main(["project", str(folder / "nothing.toml")]) == 2
    assert "agentlab project --template" in capsys.readouterr().err
    assert main(["project", "--template", str(folder / "new.toml")]) == 0 and (folder / "new.toml").exists()


def test_facts_read_the_lines_the_trace_file_has(project):
    events = read_trace(project / "agent.jsonl")
    f = facts(events)
    assert [events[s["line"] - 1]["event"] for s in f["steps"]] == ["tool_call", "tool_call"]
    assert events[f["stopped"]["line"] - 1]["event"] == "stop"
