"""Graded tests for exercises/ex07_parallel.py. Run: make grade"""

import json
import uuid

import pytest

from agentlab.executor import Executor, waves
from agentlab.grading import lazy_import

ex07 = lazy_import("exercises.ex07_parallel")


def _tools(seats):
    tools = {t.name: t for t in ex07.booking_tools(seats)}
    assert set(tools) == {"book_seat", "free_seats"}, f"return the tools book_seat and free_seats, got {sorted(tools)}"
    return tools


@pytest.mark.exercise("7.1")
@pytest.mark.points(1)
def test_the_tools_work_one_after_another():
    seats = ["1A", "1B"]
    t = _tools(seats)
    assert t["book_seat"](seat="1A") == "Booked 1A." and seats == ["1B"]
    assert t["free_seats"]() == {"free": 1}


@pytest.mark.exercise("7.1")
@pytest.mark.points(1)
def test_booking_and_counting_are_kept_in_order_but_counts_may_overlap():
    t = _tools(["1A"])
    book, count = t["book_seat"], t["free_seats"]
    assert waves([book, count]) == [[0], [1]], (
        "declare state so free_seats waits for book_seat (reread 'The hidden coupling' in notebook 07)"
    )
    assert waves([count, book]) == [[0], [1]], "declare state so book_seat waits for an earlier free_seats"
    assert waves([count, count]) == [[0, 1]], "two free_seats calls change nothing: let them run together"


@pytest.mark.exercise("7.1")
@pytest.mark.points(1)
def test_the_parallel_executor_reports_the_count_after_the_booking():
    seats = ["1A", "1B", "1C"]
    t = _tools(seats)
    turn = [
        {"type": "tool_use", "id": "a", "name": "book_seat", "input": {"seat": "1A"}},
        {"type": "tool_use", "id": "b", "name": "free_seats", "input": {}},
    ]
    results = Executor(parallel=True)(turn, list(t.values()))
    assert json.loads(results[1]["content"]) == {"free": 2}, f"the count must come after the booking: {results}"


YOUR_OWN_SCHEDULE = pytest.mark.forbids(
    "agentlab.loop.execute_tools",
    "agentlab.executor.Executor.__call__",
    "agentlab.executor.waves",
    "agentlab.executor.conflicts",
    why="Exercise 7.2 asks you to schedule the calls yourself",
)


def _use(name, **tool_input):
    return {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:12]}", "name": name, "input": tool_input}


def _flight():
    return f"AL {uuid.uuid4().hex[:6]}"  # a flight of its own: the booking tools keep seats per flight


@YOUR_OWN_SCHEDULE
@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_calls_that_share_no_written_state_run_at_the_same_time():
    from agentlab.experiments.booking import PROBE_WAIT_S, probe

    group = uuid.uuid4().hex
    calls = [_use("probe", group=group, parties=3) for _ in range(3)]
    got = [r.get("content") for r in ex07.run_turn(calls, [probe])]
    assert got == ["together"] * 3, (
        f"three probes each wait up to {PROBE_WAIT_S} s for the others; they said {got}: "
        "calls that only read may run at the same time (reread 'Independent slow calls' in notebook 07)"
    )


@YOUR_OWN_SCHEDULE
@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_a_call_after_a_conflicting_one_sees_its_effect_and_one_before_does_not():
    from agentlab.experiments.booking import SEATS, book_seat, free_seats

    flight, tools = _flight(), [book_seat, free_seats]
    results = ex07.run_turn([_use("book_seat", flight=flight, seat="1A"), _use("free_seats", flight=flight)], tools)
    count = json.loads(results[1]["content"])["free"]
    assert count == len(SEATS) - 1, (
        f"the model booked a seat, then asked for the count: it got {count}, a stale read "
        "(reread 'The hidden coupling' in notebook 07)"
    )
    flight = _flight()
    results = ex07.run_turn([_use("free_seats", flight=flight), _use("book_seat", flight=flight, seat="2A")], tools)
    count = json.loads(results[0]["content"])["free"]
    assert count == len(SEATS), f"the count came before the booking in the model's order; it said {count}"


@YOUR_OWN_SCHEDULE
@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_results_follow_the_calls_order_and_failures_are_errors():
    from agentlab.experiments.booking import book_seat, free_seats, probe

    flight = _flight()
    calls = [
        _use("book_seat", flight=flight, seat="9Z"),  # no such seat: the tool raises
        _use("probe", group=uuid.uuid4().hex, parties=1),
        _use("teleport", city="Paris"),  # no such tool
        _use("book_seat", flight=flight, seat="1B"),
    ]
    results = ex07.run_turn(calls, [book_seat, free_seats, probe])
    assert [r.get("tool_use_id") for r in results] == [c["id"] for c in calls], (
        "one result per call, in their order (reread 'How the executor decides' in notebook 07)"
    )
    assert all(r.get("type") == "tool_result" for r in results), results
    assert [bool(r.get("is_error")) for r in results] == [True, False, True, False], results
    assert "9Z" in results[0]["content"] and results[3]["content"] == f"Booked 1B on {flight}."
    assert ex07.run_turn([], [probe]) == [], "a turn with no calls has no results"
