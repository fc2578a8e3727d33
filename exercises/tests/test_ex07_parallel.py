"""Graded tests for exercises/ex07_parallel.py. Run: make grade"""

import json

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
    assert waves([book, count]) == [[0], [1]], "declare state so free_seats waits for book_seat"
    assert waves([count, book]) == [[0], [1]], "declare state so book_seat waits for an earlier free_seats"
    assert waves([count, count]) == [[0, 1]], "two free_seats calls change nothing: let them run together"


@pytest.mark.exercise("7.1")
@pytest.mark.points(1)
def test_the_parallel_executor_reports_the_count_after_the_booking():
    seats = ["1A", "1B", "1C"]
    t = _tools(seats)
    turn = [{"type": "tool_use", "id": "a", "name": "book_seat", "input": {"seat": "1A"}},
            {"type": "tool_use", "id": "b", "name": "free_seats", "input": {}}]
    results = Executor(parallel=True)(turn, list(t.values()))
    assert json.loads(results[1]["content"]) == {"free": 2}, f"the count must come after the booking: {results}"
