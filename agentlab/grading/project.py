"""The final project, graded on the course's three questions: ``agentlab project ANSWERS.toml``.

A student builds a task of their own (two tools or more) as an agent and as a workflow, runs both,
and hands in the two traces with one TOML file answering, for each run: who chose each step, what
stopped it, what each model call cost; and which design they pick and why (``project_template``
writes a file to fill in). Each answer must be backed by a line of the trace (``line``: the trace
file's line number, the header being line 1), so the grade is about reading a trace, not about
guessing.

The grade is computed here from the traces alone: no student code runs (the files are data, read
with size limits), so nothing in a submission can change how it is graded. The rubric, 14 points:

=========================  ====  =====================================================================
question (each run)        pts   full marks when
=========================  ====  =====================================================================
who chose each step        1+1   every ``tool_call``/``code_step`` in order, its tool and its chooser;
                                 and each one's ``line``
what stopped it            1+1   the ``stop`` event's reason and who decided (harness, model, code);
                                 and its ``line``
what each call cost        1+1   every ``response``'s input tokens (cache included), output tokens and
                                 ``line``; and the run's USD at list price within 1%
the choice                 2     the picked run finished its task and, if both did, cost less; and
                                 ``because`` cites a measured number
=========================  ====  =====================================================================

A project is *not accepted* (its total is 0, the checks still shown) when a trace is the wrong kind
of run, uses the course's own city task, is one of the lab's shipped traces, or when the two runs
use fewer than two tools. Picking the costlier of two finished runs is left to the instructor: the
report says so rather than guessing at the reason given.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agentlab.meter.prices import cost_usd
from agentlab.meter.usage import Usage
from agentlab.trace import TraceFormatError, read_trace

MAX_ANSWERS_BYTES = 256 * 1024
"""Largest answers file read."""
MAX_TRACE_BYTES = 32 * 1024 * 1024
"""Largest trace file read."""
RUNS = ("agent", "workflow")
"""The two runs a project hands in, by the trace header's ``kind``."""
FINISHED = ("end_turn", "completed", "stop_sequence")
"""Stop reasons of a run that finished its task (a guard, an error or a refusal did not)."""
COURSE_TOOLS = {"get_weather", "save_note"}
"""The course's own city task uses exactly these tools."""
USD_TOLERANCE = 0.01
"""Relative error allowed on a run's USD (rounding)."""
TOTAL = 14
"""Points of the whole project."""
TEMPLATE = "project_template.toml"
"""The answers file to fill in, next to this module (``{name}`` stands for the file's own name)."""


class ProjectError(ValueError):
    """An answers file or trace that cannot be graded; the message names the field, the value and the fix."""


@dataclass
class Check:
    """One graded check: what it asked, points got and possible, and what was wrong."""

    question: str
    """The question and run it belongs to, e.g. ``agent: who chose each step``."""
    points: int
    """Points given."""
    possible: int
    """Points it is worth."""
    notes: list[str] = field(default_factory=list)
    """What was wrong (or left to the instructor), one line each."""


@dataclass
class Report:
    """The graded project."""

    checks: list[Check]
    """Every check, in rubric order."""
    refused: list[str]
    """Why the project is not accepted (empty when it is)."""

    @property
    def total(self) -> int:
        """Points of the project: 0 when not accepted."""
        return 0 if self.refused else sum(c.points for c in self.checks)

    def lines(self) -> list[str]:
        """The report as printed: the checks, then the total as the last line."""
        out = []
        for c in self.checks:
            out.append(f"{c.points}/{c.possible}  {c.question}")
            out += [f"      {n}" for n in c.notes]
        out += [f"not accepted: {r}" for r in self.refused]
        out.append(f"total: {self.total}/{TOTAL}")
        return out


def facts(events: list[dict]) -> dict:
    """The three answers a trace holds, with the line each is read from (the header is line 1)."""
    asked: set[str] = set()
    steps, calls = [], []
    for line, e in enumerate(events[1:], start=2):
        kind = e.get("event")
        if kind == "response":
            asked |= {
                b.get("id") for b in e.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"
            }
            u = Usage.from_api(e.get("usage") or {})
            calls.append({"line": line, "input_tokens": u.prompt_total, "output_tokens": u.output_tokens})
        elif kind == "tool_call":
            steps.append(
                {"line": line, "tool": e.get("name"), "chosen_by": "model" if e.get("id") in asked else "code"}
            )
        elif kind == "code_step":
            steps.append({"line": line, "tool": e.get("name"), "chosen_by": "code"})
    stop = events[-1]
    last = next((e for e in reversed(events) if e.get("event") == "response"), {})
    by = "harness" if stop.get("guard") else "model" if last.get("stop_reason") == stop.get("reason") else "code"
    total = sum((Usage.from_api(e.get("usage") or {}) for e in events[1:] if e.get("event") == "response"), Usage())
    model = events[0].get("model")
    return {
        "steps": steps,
        "stopped": {"line": len(events), "reason": stop.get("reason"), "decided_by": by},
        "calls": calls,
        "usd": cost_usd(model, total) if model else None,
        "tokens": total.prompt_total + total.output_tokens,
    }


def grade(answers_path: str | Path) -> Report:
    """Grade the project whose answers file is ``answers_path`` (its traces are named in it)."""
    path = Path(answers_path)
    answers = _answers(path)
    checks, refused, found = [], [], {}
    for run in RUNS:
        section = _table(answers, run, f"[{run}]")
        events, digest = _trace(path.parent, section, run)
        found[run] = f = facts(events)
        refused += _eligible(run, events, f, digest)
        checks += _grade_run(run, section, f)
    tools = {s["tool"] for f in found.values() for s in f["steps"]}
    if len(tools) < 2:
        refused.append(
            f"the two runs use {len(tools)} tool(s) ({', '.join(sorted(map(str, tools))) or 'none'}); "
            "the project asks for a task that needs two or more"
        )
    checks.append(_grade_choice(_table(answers, "choice", "[choice]"), found))
    return Report(checks, refused)


def _answers(path: Path) -> dict:
    if not path.is_file():
        raise ProjectError(
            f"answers file {str(path)!r} does not exist; write one with `agentlab project --template {path}`"
        )
    raw = path.read_bytes()[: MAX_ANSWERS_BYTES + 1]
    if len(raw) > MAX_ANSWERS_BYTES:
        raise ProjectError(
            f"answers file {path.name}: over {MAX_ANSWERS_BYTES // 1024} KB; it holds answers only, not traces"
        )
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ProjectError(
            f"answers file {path.name}: not valid TOML ({e}); compare with `agentlab project --template`"
        ) from None


def _table(answers: dict, key: str, where: str) -> dict:
    value = answers.get(key)
    if not isinstance(value, dict):
        raise ProjectError(f"{where}: missing or not a table (got {type(value).__name__}); the template has it")
    return value


def _trace(folder: Path, section: dict, run: str) -> tuple[list[dict], str]:
    name = section.get("trace")
    if not isinstance(name, str) or not name:
        raise ProjectError(f'[{run}] trace = {name!r}: give the trace file\'s name, e.g. trace = "{run}.jsonl"')
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise ProjectError(f"[{run}] trace = {name!r}: outside the answers file's folder; copy the trace next to it")
    if not path.is_file():
        raise ProjectError(f"[{run}] trace = {name!r}: no such file next to the answers file")
    if path.stat().st_size > MAX_TRACE_BYTES:
        raise ProjectError(
            f"[{run}] trace = {name!r}: {path.stat().st_size} bytes, over the {MAX_TRACE_BYTES} byte limit"
        )
    try:
        events = read_trace(path)
    except (TraceFormatError, UnicodeDecodeError) as e:
        raise ProjectError(f"[{run}] trace = {name!r}: {str(e).replace(str(path), name)}") from None
    if events[-1].get("event") != "stop":
        raise ProjectError(
            f"[{run}] trace = {name!r}: its last line is not a stop event; the run was cut off, run it again"
        )
    return events, hashlib.sha256(path.read_bytes()).hexdigest()


def _shipped() -> set[str]:
    from agentlab.experiments.capstone import TRACES

    return {hashlib.sha256(p.read_bytes()).hexdigest() for p in TRACES.glob("*.jsonl")}


def _eligible(run: str, events: list[dict], f: dict, digest: str) -> list[str]:
    header, why = events[0], []
    if header.get("kind") != run:
        why.append(
            f"[{run}]'s trace is a run of kind {header.get('kind')!r}; hand in a trace written by "
            + ("run_agent" if run == "agent" else "a workflow (Steps or a workflow pattern)")
        )
    tools = {s["tool"] for s in f["steps"]}
    if tools and tools <= COURSE_TOOLS or header.get("pattern") == "city_compare":
        why.append(f"[{run}] is the course's city task; the project asks for a task of your own")
    if digest in _shipped():
        why.append(f"[{run}]'s trace is one of the lab's shipped traces; record your own run")
    return why


def _grade_run(run: str, section: dict, f: dict) -> list[Check]:
    q1 = Check(f"{run}: who chose each step", 0, 2)
    given = _list(section, "steps", run)
    want = f["steps"]
    if len(given) != len(want):
        q1.notes.append(f"steps: {len(given)} given, the trace has {len(want)} (one per tool_call or code_step event)")
    pairs = list(zip(given, want))
    wrong = [
        i for i, (g, w) in enumerate(pairs, 1) if (g.get("tool"), g.get("chosen_by")) != (w["tool"], w["chosen_by"])
    ]
    q1.notes += [
        f"steps[{i}]: tool {pairs[i - 1][0].get('tool')!r}, chosen_by {pairs[i - 1][0].get('chosen_by')!r}: "
        "not what that step's event says"
        for i in wrong[:3]
    ]
    bad_lines = [i for i, (g, w) in enumerate(pairs, 1) if g.get("line") != w["line"]]
    q1.points = (len(given) == len(want) and not wrong) + (len(given) == len(want) and not bad_lines)
    q1.notes += [f"steps[{i}]: line {pairs[i - 1][0].get('line')!r} is not that step's event" for i in bad_lines[:3]]

    q2 = Check(f"{run}: what stopped it", 0, 2)
    stopped, want2 = section.get("stopped") if isinstance(section.get("stopped"), dict) else {}, f["stopped"]
    if (stopped.get("reason"), stopped.get("decided_by")) == (want2["reason"], want2["decided_by"]):
        q2.points += 1
    else:
        q2.notes.append(
            f"stopped: reason {stopped.get('reason')!r}, decided_by {stopped.get('decided_by')!r}: "
            "read the stop event (a guard's name means the harness decided)"
        )
    if stopped.get("line") == want2["line"]:
        q2.points += 1
    else:
        q2.notes.append(f"stopped.line = {stopped.get('line')!r}: the stop event is the trace's last line")

    q3 = Check(f"{run}: what each call cost", 0, 2)
    calls = _list(section, "calls", run)
    key = ("line", "input_tokens", "output_tokens")
    off = [
        i
        for i, (g, w) in enumerate(zip(calls, f["calls"]), 1)
        if tuple(g.get(k) for k in key) != tuple(w[k] for k in key)
    ]
    if len(calls) == len(f["calls"]) and not off:
        q3.points += 1
    else:
        q3.notes.append(
            f"calls: {len(calls)} given, {len(f['calls'])} response events; wrong: "
            f"{', '.join(f'calls[{i}]' for i in off[:3]) or 'the count'} (input_tokens counts cache reads and writes)"
        )
    usd = section.get("usd")
    if f["usd"] is None:
        q3.points += usd in (None, "unknown")
        q3.notes += (
            []
            if usd in (None, "unknown")
            else [f'usd = {usd!r}: the trace\'s model has no list price; write usd = "unknown"']
        )
    elif isinstance(usd, (int, float)) and abs(usd - f["usd"]) <= USD_TOLERANCE * f["usd"]:
        q3.points += 1
    else:
        q3.notes.append(f"usd = {usd!r}: not the run's cost at list price (within {USD_TOLERANCE:.0%})")
    return [q1, q2, q3]


def _list(section: dict, key: str, run: str) -> list[dict]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ProjectError(
            f"[{run}] {key}: a list of tables, e.g. {key} = [{{ line = 3, ... }}], not {type(value).__name__}"
        )
    return value


def _grade_choice(choice: dict, found: dict) -> Check:
    c = Check("the choice: agent or workflow", 0, 2)
    pick, because = choice.get("pick"), choice.get("because")
    if pick not in RUNS:
        c.notes.append(f'pick = {pick!r}: write pick = "agent" or pick = "workflow"')
        return c
    finished = [r for r in RUNS if found[r]["stopped"]["reason"] in FINISHED]
    other = RUNS[1 - RUNS.index(pick)]
    cost = {r: found[r]["usd"] if found[r]["usd"] is not None else found[r]["tokens"] for r in RUNS}
    if pick not in finished:
        c.notes.append(f"pick = {pick!r}: that run did not finish (stopped by {found[pick]['stopped']['reason']!r})")
    elif other in finished and cost[pick] > cost[other]:
        c.notes.append(
            f"pick = {pick!r} costs more than the {other}, which also finished: for the instructor to read `because`"
        )
    else:
        c.points += 1
    if isinstance(because, str) and re.search(r"\d", because):
        c.points += 1
    else:
        c.notes.append("because: say why with a measured number from the traces (calls, tokens or USD)")
    return c


def write_template(path: str | Path) -> Path:
    """Write the answers template to ``path`` (refusing to overwrite a file)."""
    path = Path(path)
    if path.exists():
        raise ProjectError(f"{path.name} exists already; give another name or remove it first")
    from importlib import resources

    text = resources.files("agentlab.grading").joinpath(TEMPLATE).read_text("utf-8")
    path.write_text(text.replace("{name}", path.name), "utf-8")
    return path
