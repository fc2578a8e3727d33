"""Graded tests for exercises/ex12_capstone.py. Run: make grade

Each exercise is graded on the four traces the notebook ships (agentlab/data/traces/) and on traces
recorded here, fresh, with cities, limits and pages drawn at random: an answer copied from the
shipped traces fails the second kind. Expected values come from the runs' own records (``Run``), not
from the trace, so the tests check your reading of the trace against what happened.

What 12.1-12.3 forbid, and why: ``swimlane_steps`` (it labels who did each step), ``stepper.turn_frames``
(it rebuilds each turn with its tokens), ``capstone.events_table`` (the notebook's view of the events),
``capstone.course_table`` (a run's totals: its call count would answer part of 12.3), the price
functions (``meter.prices.cost_usd``, the ``_price`` it caches, ``usage_cost_usd``; ``Turn.cost_usd`` calls
them) and ``meter.record.prompt_total`` (a call's input tokens with cache reads and writes): each would
read an answer off for the student (12.4, which calls a client, forbids the lab's own fan-outs instead).
``agentlab.read_trace`` stays allowed: it only parses the JSON lines
and checks the header, which plain ``json.loads`` per line does as well.

The fresh traces never repeat a shipped one: 3 to 5 cities (the shipped runs have 2), a repeat limit
other than the shipped 3, a page of another length, and a run cut short by ``max_turns`` (a stop the
harness decided in an agent run), so an answer keyed on the shipped traces fails.
"""

import random
import re

import pytest

import agentlab
from agentlab.experiments import capstone
from agentlab.grading import lazy_import

READ_IT_YOURSELF = pytest.mark.forbids(
    "agentlab.views.swimlane.swimlane_steps",
    "agentlab.views.stepper.turn_frames",
    "agentlab.experiments.capstone.events_table",
    "agentlab.experiments.capstone.course_table",
    "agentlab.meter.prices.cost_usd",
    "agentlab.meter.prices._price.__wrapped__",
    "agentlab.meter.record.prompt_total",
    "agentlab.meter.usage.Usage.prompt_total.fget",
    "agentlab.meter.usage.Usage.reprefill_after",
    "agentlab.meter.prices.usage_cost_usd",
    why="Exercise 12 asks you to answer the three questions from the trace yourself",
)

ex12 = lazy_import("exercises.ex12_capstone")
PRICES = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}


def _shipped(name):
    return agentlab.read_trace(capstone.trace_path(name))


@pytest.fixture
def fresh(tmp_path):
    """Five freshly recorded runs with random parameters, none equal to a shipped one:
    {name: (events, run, parameters)}."""
    rng = random.Random()
    cities = rng.sample(agentlab.city_names(), rng.randint(3, 5))  # the shipped runs compare 2 cities
    repeats = rng.choice([2, 4, 5])  # the shipped looper stops at 3
    capped = rng.randint(1, len(cities))  # the task needs len(cities) + 2 calls: max_turns stops it
    key = f"demo-key-{rng.randint(1000, 9999)}-not-real"
    page = capstone.PAGE.replace(capstone.FAKE_KEY, key).replace(
        "Bring a light coat", " ".join([f"{c} is lovely too." for c in cities]) + " Bring a light coat"
    )
    out = {}
    for name, record, kwargs in (
        ("agent", capstone.record_agent, {"cities": cities}),
        ("workflow", capstone.record_workflow, {"cities": cities}),
        ("looper", capstone.record_looper, {"max_repeats": repeats, "city": cities[0]}),
        ("injected", capstone.record_injected, {"page": page}),
        ("capped", _record_capped, {"cities": cities, "max_turns": capped}),
    ):
        path = tmp_path / f"{name}.jsonl"
        run = record(path, notes=tmp_path / "notes", **kwargs)
        out[name] = (agentlab.read_trace(path), run, {"cities": cities, "max_repeats": repeats, "max_turns": capped})
    return out


def _record_capped(path, cities, max_turns, notes):
    """The city task as an agent with too few turns: the harness's max_turns guard ends it. One tool call per
    reply, so the task needs len(cities) + 2 calls (asking for every city at once it would need 3)."""
    client = agentlab.connect("sim", quiet=True)
    return agentlab.run_agent(
        client,
        agentlab.city_task(cities),
        agentlab.task_tools(notes),
        max_turns=max_turns,
        trace=path,
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )


def _chosen(run, kind):
    if kind == "workflow":
        return [{"name": r["name"], "chosen_by": "code"} for r in run.tool_results]
    return [{"name": name, "chosen_by": "model"} for t in run.turns for name in t.tool_calls]


@READ_IT_YOURSELF
@pytest.mark.exercise("12.1")
@pytest.mark.points(2)
def test_who_chose_on_the_shipped_traces():
    for name in capstone.NAMES:
        events = _shipped(name)
        want = (
            [{"name": e["name"], "chosen_by": "code"} for e in events if e.get("event") == "code_step"]
            if name == "workflow"
            else [{"name": e["name"], "chosen_by": "model"} for e in events if e.get("event") == "tool_call"]
        )
        got = ex12.who_chose(events)
        assert got == want, f"{name}.jsonl: expected {want}, got {got}"


@READ_IT_YOURSELF
@pytest.mark.exercise("12.1")
@pytest.mark.points(1)
def test_who_chose_on_fresh_traces_and_a_tool_the_code_ran_itself(fresh):
    for name, (events, run, params) in fresh.items():
        want = _chosen(run, name)
        got = ex12.who_chose(events)
        assert got == want, f"a fresh {name} trace ({params}): expected {want}, got {got}"
    events = fresh["agent"][0]
    prefetch = [
        {"event": "tool_call", "turn": 0, "id": "prefetch_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"event": "tool_result", "turn": 0, "id": "prefetch_1", "content": "{}", "is_error": False},
    ]
    got = ex12.who_chose(events[:1] + prefetch + events[1:])
    assert got[0] == {"name": "get_weather", "chosen_by": "code"}, (
        f"a tool_call whose id no response asked for was run by the code itself; got {got[0]} (reread 'Question 1: who chooses the next step?' in notebook 12)"
    )


def _stopped(run, decided_by, guard=None, observed=None, limit=None):
    return {
        "reason": run.stop_reason.value,
        "decided_by": decided_by,
        "guard": guard,
        "observed": observed,
        "limit": limit,
    }


@READ_IT_YOURSELF
@pytest.mark.exercise("12.2")
@pytest.mark.points(2)
def test_what_stopped_on_the_shipped_traces():
    want = {
        "agent": {"reason": "end_turn", "decided_by": "model", "guard": None, "observed": None, "limit": None},
        "workflow": {"reason": "completed", "decided_by": "code", "guard": None, "observed": None, "limit": None},
        "looper": {
            "reason": "repeated_call",
            "decided_by": "harness",
            "guard": "max_repeats",
            "observed": 3,
            "limit": 3,
        },
        "injected": {"reason": "end_turn", "decided_by": "model", "guard": None, "observed": None, "limit": None},
    }
    for name in capstone.NAMES:
        got = ex12.what_stopped(_shipped(name))
        assert got == want[name], (
            f"{name}.jsonl: expected {want[name]}, got {got} (reread 'Question 2: what stops the loop?' in notebook 12)"
        )


@READ_IT_YOURSELF
@pytest.mark.exercise("12.2")
@pytest.mark.points(1)
def test_what_stopped_on_fresh_traces(fresh):
    repeats = fresh["looper"][2]["max_repeats"]
    want = {
        "agent": _stopped(fresh["agent"][1], "model"),
        "workflow": _stopped(fresh["workflow"][1], "code"),
        "looper": _stopped(fresh["looper"][1], "harness", "max_repeats", repeats, repeats),
        "injected": _stopped(fresh["injected"][1], "model"),
    }
    capped = fresh["capped"][2]["max_turns"]
    want["capped"] = _stopped(fresh["capped"][1], "harness", "max_turns", capped, capped)
    for name, (events, run, params) in fresh.items():
        got = ex12.what_stopped(events)
        assert got == want[name], f"a fresh {name} trace ({params}): expected {want[name]}, got {got}"


def _cost(turn):
    return (
        turn.input_tokens * PRICES["input"]
        + turn.output_tokens * PRICES["output"]
        + turn.cache_read_tokens * PRICES["cache_read"]
        + turn.cache_write_tokens * PRICES["cache_write"]
    ) / 1e6


def _expected_cost(run):
    first, last = run.turns[0], run.turns[-1]
    tokens = lambda t: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens  # noqa: E731
    return {
        "calls": run.model_calls,
        "first_tokens": tokens(first),
        "last_tokens": tokens(last),
        "first_usd": pytest.approx(_cost(first)),
        "last_usd": pytest.approx(_cost(last)),
        "growth": pytest.approx(tokens(last) / tokens(first)),
    }


@READ_IT_YOURSELF
@pytest.mark.exercise("12.3")
@pytest.mark.points(2)
def test_extra_turn_cost_on_the_shipped_traces():
    for name in capstone.NAMES:
        usages = [e["usage"] for e in _shipped(name) if e.get("event") == "response"]
        tokens = [
            u["input_tokens"]
            + u["output_tokens"]
            + (u.get("cache_read_input_tokens") or 0)
            + (u.get("cache_creation_input_tokens") or 0)
            for u in usages
        ]
        got = ex12.extra_turn_cost(_shipped(name), dict(PRICES))
        want = {
            "calls": len(usages),
            "first_tokens": tokens[0],
            "last_tokens": tokens[-1],
            "growth": pytest.approx(tokens[-1] / tokens[0]),
            "first_usd": pytest.approx((usages[0]["input_tokens"] * 3 + usages[0]["output_tokens"] * 15) / 1e6),
            "last_usd": pytest.approx((usages[-1]["input_tokens"] * 3 + usages[-1]["output_tokens"] * 15) / 1e6),
        }
        assert got == want, (
            f"{name}.jsonl: expected {want}, got {got} (reread 'Question 3: what does each extra turn cost?' in notebook 12)"
        )


@READ_IT_YOURSELF
@pytest.mark.exercise("12.3")
@pytest.mark.points(1)
def test_extra_turn_cost_on_fresh_and_cached_traces(fresh, tmp_path):
    for name, (events, run, params) in fresh.items():
        got = ex12.extra_turn_cost(events, dict(PRICES))
        assert got == _expected_cost(run), f"a fresh {name} trace ({params}): expected {_expected_cost(run)}, got {got}"
    client = agentlab.connect("sim", model="claude-opus-5", quiet=True)  # caching: reads and writes in the usage
    cities = random.sample(agentlab.city_names(), 6)
    run = agentlab.run_agent(
        client,
        agentlab.city_task(cities),
        agentlab.task_tools(tmp_path / "notes"),
        cache=True,
        trace=tmp_path / "cached.jsonl",
    )
    got = ex12.extra_turn_cost(agentlab.read_trace(tmp_path / "cached.jsonl"), dict(PRICES))
    assert got == _expected_cost(run), f"a cached run ({cities}): expected {_expected_cost(run)}, got {got}"
    with pytest.raises(ValueError):
        ex12.extra_turn_cost(
            agentlab.read_trace(tmp_path / "cached.jsonl")[:1] + [{"event": "stop", "reason": "error"}], dict(PRICES)
        )


MODEL = "claude-haiku-4-5"
PARTS = ["PART-1 Paris: 20.0 C, cloudy.", "PART-2 Oslo: 9.5 C, rain.", "PART-3 Rome: 24.0 C, sunny."]
YOUR_OWN_FAN_OUT = pytest.mark.forbids(
    "agentlab.workflows.orchestrator.run_orchestrator",
    "agentlab.workflows.parallel.run_sections",
    why="Exercise 12.4 asks you to write the fan-out yourself",
)


def _workers_and_join():
    """A simulated model that answers a worker with its part's number and the join with what it was given;
    it keeps the text of every request it saw."""
    seen: list[str] = []

    def fn(messages, info):
        text = "".join(
            m["content"] if isinstance(m["content"], str) else "".join(b.get("text", "") for b in m["content"])
            for m in messages
        )
        seen.append(text)
        marks = re.findall(r"PART-(\d+)", text)
        return (
            f"answer-{marks[0]}"
            if len(marks) == 1 and "answer-" not in text
            else "joined: " + ", ".join(re.findall(r"answer-\d+", text))
        )

    return agentlab.connect("sim", policy=agentlab.FunctionModel(fn), quiet=True), seen


@YOUR_OWN_FAN_OUT
@pytest.mark.exercise("12.4")
@pytest.mark.points(1)
def test_each_worker_sees_its_own_part_and_the_join_sees_every_answer_in_order():
    parts = random.sample(PARTS, 3)
    client, seen = _workers_and_join()
    out = ex12.fan_out(client, MODEL, "Summarise the weather.", parts)
    workers, join = seen[:-1], seen[-1]
    assert len(seen) == len(parts) + 1, (
        f"one call per part and one join: {len(seen)} calls for {len(parts)} parts (reread 'One task, four ways' in notebook 12b)"
    )
    assert sorted(len(re.findall(r"PART-\d", w)) for w in workers) == [1] * len(parts), (
        "each worker's window holds its one part and nothing of the others (a clean window)"
    )
    numbers = [p.split()[0][-1] for p in parts]
    assert out.get("answers") == [f"answer-{n}" for n in numbers], f"the answers, in the parts' order: {out!r}"
    assert re.findall(r"answer-\d", join) == [f"answer-{n}" for n in numbers], "the join reads every answer, in order"
    assert out.get("final") == "joined: " + ", ".join(f"answer-{n}" for n in numbers), out


@YOUR_OWN_FAN_OUT
@pytest.mark.exercise("12.4")
@pytest.mark.points(1)
def test_the_token_counts_are_the_ones_the_api_reported():
    from agentlab.run import turns_of

    client, _ = _workers_and_join()
    meter = agentlab.meter_of(client)
    start = meter.mark()
    out = ex12.fan_out(client, MODEL, "Summarise the weather.", PARTS[:2])
    turns = turns_of(meter, start)
    assert out.get("input_tokens") == {
        "workers": sum(t.input_tokens for t in turns[:-1]),
        "join": turns[-1].input_tokens,
    }, f"read them from each reply's usage: {out.get('input_tokens')}"
    with pytest.raises(ValueError, match="parts"):
        ex12.fan_out(client, MODEL, "Summarise the weather.", [])


@YOUR_OWN_FAN_OUT
@pytest.mark.exercise("12.4")
@pytest.mark.points(1)
def test_workers_pay_again_for_a_long_shared_task():
    client, _ = _workers_and_join()
    brief = "Read this brief before you answer. " + " ".join(f"Rule {i}: report temperatures in C." for i in range(300))
    out = ex12.fan_out(client, MODEL, brief, list(PARTS))
    one = client.messages.create(
        model=MODEL, max_tokens=64, messages=[{"role": "user", "content": brief + "\n\n" + "\n\n".join(PARTS)}]
    )
    assert out["input_tokens"]["workers"] > 2 * one.usage.input_tokens, (
        "each of the three workers read the whole brief: together they sent more than twice what one call "
        f"with every part sends ({out['input_tokens']['workers']} against {one.usage.input_tokens})"
    )
