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
    turn = [
        {"type": "tool_use", "id": "a", "name": "book_seat", "input": {"seat": "1A"}},
        {"type": "tool_use", "id": "b", "name": "free_seats", "input": {}},
    ]
    results = Executor(parallel=True)(turn, list(t.values()))
    assert json.loads(results[1]["content"]) == {"free": 2}, f"the count must come after the booking: {results}"


def _trace(tmp_path, cities, lang="en", **connect_options):
    import agentlab

    connect_options.setdefault("parallel", False)  # one tool call per turn unless a test asks for parallel calls
    client = agentlab.connect("sim", quiet=True, **connect_options)
    agentlab.run_agent(
        client, agentlab.city_task(cities, lang), agentlab.task_tools(tmp_path), trace=tmp_path / "run.jsonl"
    )
    return agentlab.read_trace(tmp_path / "run.jsonl")


REQUEST, USE, CALL, RESULT = (
    ("host application", "request"),
    ("model", "tool_use"),
    ("your code", "call"),
    ("tools", "tool_result"),
)
END = [REQUEST, ("model", "text"), ("host application", "stop")]


@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_a_run_with_one_tool_call_per_turn(tmp_path):
    got = ex07.crossings(_trace(tmp_path, ["Tokyo", "Cairo"]))
    want = [REQUEST, USE, CALL, RESULT] * 3 + END  # two cities and the note, one per turn, then the answer
    assert got == want, f"one tool call per turn: expected\n{want}\ngot\n{got}"


@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_a_turn_with_parallel_calls_lists_every_tool_use_before_they_run(tmp_path):
    got = ex07.crossings(_trace(tmp_path, ["Oslo", "Rome", "Berlin"], parallel=True))
    want = [REQUEST, USE, USE, USE, CALL, RESULT, CALL, RESULT, CALL, RESULT, REQUEST, USE, CALL, RESULT] + END
    assert got == want, (
        f"one reply asked for three tools: one ('model', 'tool_use') per block; expected\n{want}\ngot\n{got}"
    )


@pytest.mark.exercise("7.2")
@pytest.mark.points(1)
def test_failed_calls_chinese_tasks_and_other_events(tmp_path):
    failed = _trace(tmp_path, ["Pariss", "London"])  # the misspelt city's result is an error, then a retry
    got = ex07.crossings(failed)
    assert got == [REQUEST, USE, CALL, RESULT] * 4 + END, (
        f"a failed tool_result is still ('tools', 'tool_result'): {got}"
    )
    zh = _trace(tmp_path, ["巴黎", "伦敦"], lang="zh")
    assert ex07.crossings(zh) == [REQUEST, USE, CALL, RESULT] * 3 + END, "a Chinese task crosses the same lanes"
    header, *rest = zh
    noisy = [
        header,
        {"event": "api_attempt", "status": 529, "retry": False},
        *rest[:1],
        {"event": "context_cleared", "turn": 1, "tokens_before": 900, "cleared_tool_results": 0},
        *rest[1:],
    ]
    assert ex07.crossings(noisy) == ex07.crossings(zh), (
        "skip the events that are no crossing (api_attempt, context_cleared)"
    )
