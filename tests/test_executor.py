"""The executor: concurrency where it is safe, order where state is shared, timeouts as errors, both error styles."""

import json
import os
import signal
import threading
import time

import pytest

import agentlab
from agentlab import tool
from agentlab.executor import Executor, conflicts, waves
from agentlab.experiments import coupling
from agentlab.experiments.tool_speedup import slow_tool, turn_of


def _t(name, reads=(), writes=()):
    @tool(name=name, reads=reads, writes=writes)
    def f() -> str:
        """A tool."""
        return name

    return f


def test_conflict_rule_orders_writers_and_their_readers_only():
    w, r, other = _t("w", writes="notes"), _t("r", reads="notes"), _t("o", reads="weather")
    assert conflicts(w, r) and conflicts(r, w) and conflicts(w, w)
    assert not conflicts(r, r) and not conflicts(w, other) and not conflicts(None, w)
    assert waves([w, r, other, r]) == [[0, 2], [1, 3]]
    assert waves([r, r, other]) == [[0, 1, 2]]


def test_parallel_executor_runs_independent_calls_at_the_same_time():
    n = 4
    barrier = threading.Barrier(n, timeout=10)  # passes only if all n calls are running at once
    results = Executor(parallel=True)(turn_of(n), [slow_tool(0, sleep=lambda s: barrier.wait())])
    assert [r["tool_use_id"] for r in results] == [f"toolu_{i:02d}" for i in range(n)]
    assert not any(r.get("is_error") for r in results)


def test_serial_executor_without_a_default_timeout_answers_in_order_without_threads():
    seen = []
    results = Executor(default_timeout_s=None)(
        turn_of(3), [slow_tool(0, sleep=lambda s: seen.append(threading.current_thread().name))]
    )
    assert [r["tool_use_id"] for r in results] == ["toolu_00", "toolu_01", "toolu_02"]
    assert set(seen) == {threading.main_thread().name}


def test_serial_executor_runs_one_call_at_a_time_in_order_under_its_default_timeout():
    running, overlap, order = [0], [], []

    def sleep(_):
        running[0] += 1
        overlap.append(running[0])
        order.append(threading.current_thread().name)
        running[0] -= 1

    results = Executor()(turn_of(3), [slow_tool(0, sleep=sleep)])
    assert [r["tool_use_id"] for r in results] == ["toolu_00", "toolu_01", "toolu_02"] and max(overlap) == 1


def test_hidden_coupling_naive_parallel_reports_the_stale_count_with_no_error():
    notes = ["an older note"]
    read = threading.Event()  # the writer is slower than the reader: it writes after the read
    tools = coupling.note_tools(notes, declared=False, write_delay=lambda: read.wait(10), after_read=read.set)
    run = coupling.run_demo(Executor(parallel=True, respect_state=False), tools)
    assert len(notes) == 2 and coupling.reported_count(run) == 1  # the user is told 1; there are 2
    assert not any(r["is_error"] for r in run.tool_results)


def test_declared_state_makes_the_executor_run_the_writer_first():
    notes = ["an older note"]
    tools = coupling.note_tools(notes, declared=True, write_delay=lambda: None)
    run = coupling.run_demo(Executor(parallel=True), tools)
    assert coupling.reported_count(run) == 2 == len(notes)


def test_a_hanging_tool_is_answered_as_an_error_after_its_timeout():
    release = threading.Event()

    @tool(timeout=0.01)
    def hang() -> str:
        """Never answers in time."""
        release.wait(10)
        return "late"

    try:
        for executor in (Executor(), Executor(parallel=True)):
            (result,) = executor([{"type": "tool_use", "id": "t1", "name": "hang", "input": {}}], [hang])
            assert result["is_error"] is True and "did not answer within 0.01 s" in result["content"]
        (raw,) = Executor(errors="raw")([{"type": "tool_use", "id": "t1", "name": "hang", "input": {}}], [hang])
        assert raw["content"].startswith("Traceback") and "TimeoutError: no answer within 0.01 s" in raw["content"]
        assert "executor.py" not in raw["content"] and "<tool hang>" in raw["content"]
    finally:
        release.set()


def test_timed_calls_reuse_kept_worker_threads_instead_of_starting_one_each():
    local, fresh = threading.local(), []  # a thread's first call finds its thread-local empty

    @tool(timeout=5)
    def where() -> str:
        """Which thread ran me."""
        if not getattr(local, "seen", False):
            local.seen = True
            fresh.append(threading.get_ident())
        return "ok"

    for k in range(50):
        (result,) = Executor()([{"type": "tool_use", "id": f"t{k}", "name": "where", "input": {}}], [where])
        assert result["content"] == "ok"
    assert 1 <= len(fresh) < 10  # kept workers (the idle ones take turns), not a new thread for each of 50 calls


def test_an_abandoned_worker_does_not_hold_up_the_next_call():
    release = threading.Event()

    @tool(timeout=0.01)
    def hang() -> str:
        """Never answers in time."""
        release.wait(10)
        return "late"

    @tool(timeout=5)
    def quick() -> str:
        """Answers at once."""
        return "ok"

    try:
        (late,) = Executor()([{"type": "tool_use", "id": "t1", "name": "hang", "input": {}}], [hang])
        (ok,) = Executor()([{"type": "tool_use", "id": "t2", "name": "quick", "input": {}}], [quick])
        assert late["is_error"] and ok == {"type": "tool_result", "tool_use_id": "t2", "content": "ok"}
    finally:
        release.set()


class _Unprintable(SystemExit):
    """An exit whose ``str()`` fails: the worker's message about it must not fail with it."""

    def __str__(self) -> str:
        raise RuntimeError("no words")


@pytest.mark.parametrize(
    "exit_, name", [(SystemExit(3), "SystemExit"), (_Unprintable(1), "_Unprintable")], ids=["exit", "unprintable exit"]
)
def test_a_tool_that_exits_its_thread_is_an_error_and_the_worker_serves_the_next_call(exit_, name):
    @tool(timeout=5)
    def quits() -> str:
        """Calls sys.exit."""
        raise exit_

    @tool(timeout=5)
    def quick() -> str:
        """Answers at once."""
        return "ok"

    for _ in range(3):  # every kept worker that ran `quits` must still answer, not be left dead on the idle queue
        (bad,) = Executor()([{"type": "tool_use", "id": "t1", "name": "quits", "input": {}}], [quits])
        assert bad["is_error"] and name in bad["content"]
        (ok,) = Executor()([{"type": "tool_use", "id": "t2", "name": "quick", "input": {}}], [quick])
        assert ok["content"] == "ok"


def _can_pin() -> bool:
    """Whether this thread's core and cores can be read and set here (Linux, and no sandbox refusing it)."""
    from agentlab.executor import _where_am_i

    try:
        return _where_am_i() is not None and os.sched_setaffinity(0, os.sched_getaffinity(0)) is None
    except OSError:
        return False


_CAN_PIN = _can_pin()
_CORES_AT_START = os.sched_getaffinity(0) if _CAN_PIN else None
pinnable = pytest.mark.skipif(not _CAN_PIN, reason="needs a thread's cores to be readable and settable (Linux)")


@pytest.fixture(autouse=True)
def _cores_back_after_each_test():
    """A test that fails with this thread held on one core must not leave it there: the next test would then
    compare with a one-core mask and could pass without checking anything."""
    yield
    if _CORES_AT_START is not None:
        os.sched_setaffinity(0, _CORES_AT_START)


def _cores_seen(tool_, calls: int = 1) -> list[int]:
    turn = [{"type": "tool_use", "id": f"t{k}", "name": tool_.name, "input": {}} for k in range(calls)]
    seen = {out["content"] for out in Executor(parallel=True)(turn, [tool_])}
    assert len(seen) == 1, seen
    return json.loads(seen.pop())


@pinnable
def test_a_lone_timed_call_holds_its_caller_on_one_core_only_while_the_call_runs():
    caller, release = threading.get_native_id(), threading.Event()
    cores = os.sched_getaffinity(0)

    @tool(timeout=5)
    def look() -> list:
        """The caller's cores while this runs."""
        return sorted(os.sched_getaffinity(caller))

    @tool(timeout=0.05)
    def hang() -> str:
        """Never answers in time."""
        release.wait(10)
        return "late"

    try:
        for _ in range(5):
            assert len(_cores_seen(look)) == 1  # held on one core for the hand-over (the worker on the same)
            assert os.sched_getaffinity(0) == cores  # and given back after it
        (late,) = Executor()([{"type": "tool_use", "id": "t9", "name": "hang", "input": {}}], [hang])
        assert late["is_error"] and os.sched_getaffinity(0) == cores  # given back after a timeout too
    finally:
        release.set()


@pinnable
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="Ctrl-C reaches the main thread")
def test_ctrl_c_during_a_timed_call_gives_the_caller_its_cores_back():
    cores, main = os.sched_getaffinity(0), threading.main_thread().ident

    @tool(timeout=5)
    def interrupted() -> str:
        """Presses Ctrl-C while the caller waits."""
        signal.pthread_kill(main, signal.SIGINT)
        time.sleep(0.3)
        return "too late"

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # pytest-xdist's workers may ignore it
    try:
        with pytest.raises(KeyboardInterrupt):
            Executor()([{"type": "tool_use", "id": "t1", "name": "interrupted", "input": {}}], [interrupted])
    finally:
        signal.signal(signal.SIGINT, before)
    assert os.sched_getaffinity(0) == cores


@pinnable
@pytest.mark.parametrize("calls", [1, 3], ids=["alone", "a parallel wave"])
def test_a_timed_tool_runs_on_its_callers_own_cores_so_nothing_it_starts_is_pinned(calls):
    cores = os.sched_getaffinity(0)

    @tool(timeout=5)
    def mine() -> list:
        """This thread's cores."""
        return sorted(os.sched_getaffinity(0))

    try:
        for _ in range(3):  # kept workers, held on one core by each hand-over, take the caller's cores back
            assert _cores_seen(mine, calls) == sorted(cores)
        os.sched_setaffinity(0, {max(cores)})  # a caller of one core of its own: its tool runs on that one
        assert _cores_seen(mine, calls) == [max(cores)]
    finally:
        os.sched_setaffinity(0, cores)
    assert _cores_seen(mine, calls) == sorted(cores)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_runs_timed_tools_on_workers_of_its_own():
    @tool(timeout=5)
    def quick() -> str:
        """Answers at once."""
        return "ok"

    call = [{"type": "tool_use", "id": "t1", "name": "quick", "input": {}}]
    assert Executor()(call, [quick])[0]["content"] == "ok"  # the parent now holds an idle worker
    pid = os.fork()
    if pid == 0:  # the child has no threads but its own: a parent's idle worker would never answer
        os._exit(0 if Executor()(call, [quick])[0]["content"] == "ok" else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_raw_style_sends_the_python_traceback_readable_style_says_what_to_fix():
    block = [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"location": "Paris"}}]
    raw = Executor(errors="raw")(block, [agentlab.get_weather])[0]["content"]
    readable = Executor()(block, [agentlab.get_weather])[0]["content"]
    assert raw.startswith("Traceback (most recent call last)") and "unexpected keyword argument 'location'" in raw
    assert "missing required field 'city'" in readable
    zh = Executor(lang="zh")(block, [agentlab.get_weather])[0]["content"]
    assert "缺少必填字段 'city'" in zh


def test_long_results_are_cut_with_a_note_only_in_the_readable_style():
    @tool
    def big() -> str:
        """Lots of text."""
        return "x" * 1000

    block = [{"type": "tool_use", "id": "t1", "name": "big", "input": {}}]
    readable = Executor(max_result_chars=100)(block, [big])[0]["content"]
    raw = Executor(max_result_chars=100, errors="raw")(block, [big])[0]["content"]
    assert readable.startswith("x" * 100) and "[truncated: 100 of 1000 characters shown" in readable
    assert raw == "x" * 100


@pytest.mark.parametrize(
    "kwargs,field",
    [({"errors": "pretty"}, "errors"), ({"lang": "fr"}, "lang"), ({"max_result_chars": 0}, "max_result_chars")],
)
def test_bad_executor_options_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"Executor\\({field}="):
        Executor(**kwargs)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"reads": 3}, "reads"),
        ({"writes": [""]}, "writes"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": -1.0}, "timeout"),
    ],
)
def test_bad_tool_state_or_timeout_is_refused_naming_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"@tool\\({field}="):
        tool(**kwargs)


def _one_call_run(tmp_path, fn, **executor):
    import agentlab
    from agentlab.tools import tool

    @tool(name="probe")
    def probe(city: str) -> str:
        """Return whatever the probe returns.

        Args:
            city: Any city.
        """
        return fn()

    calls = iter([[{"type": "tool_use", "id": "toolu_1", "name": "probe", "input": {"city": "Paris"}}], "done"])
    client = agentlab.connect("sim", policy=agentlab.FunctionModel(lambda m, r: next(calls)), quiet=True)
    return agentlab.run_agent(client, "go", [probe], trace=tmp_path / "t.jsonl", executor=Executor(**executor))


def test_a_run_survives_a_tool_result_with_a_lone_surrogate(tmp_path):
    from agentlab.trace import read_trace

    run = _one_call_run(tmp_path, lambda: "bytes \udcff read as text")
    assert run.stop_reason.value == "end_turn"
    result = [e for e in read_trace(tmp_path / "t.jsonl") if e.get("event") == "tool_result"][0]
    assert result["content"] == "bytes \\udcff read as text" and not result["is_error"]


def test_a_tool_result_over_the_cap_is_an_error_naming_the_size_and_the_cap(tmp_path):
    from agentlab.trace import read_trace

    run = _one_call_run(tmp_path, lambda: "x" * 1001, result_cap=1000)
    result = [e for e in read_trace(tmp_path / "t.jsonl") if e.get("event") == "tool_result"][0]
    assert run.stop_reason.value == "end_turn" and result["is_error"]
    assert "1,001 characters" in result["content"] and "cap of 1,000" in result["content"]


def test_the_default_cap_is_on_and_bounds_a_32_mb_result():
    from agentlab.executor import DEFAULT_RESULT_CAP

    assert Executor().result_cap == DEFAULT_RESULT_CAP and DEFAULT_RESULT_CAP * 4 < 32_000_000


def test_a_tool_without_timeout_is_bounded_by_the_default(tmp_path):
    from agentlab.trace import read_trace

    release = threading.Event()
    run = _one_call_run(tmp_path, lambda: release.wait(30) and "late", default_timeout_s=0.2)
    release.set()
    result = [e for e in read_trace(tmp_path / "t.jsonl") if e.get("event") == "tool_result"][0]
    assert run.stop_reason.value == "end_turn" and result["is_error"] and "0.2 s" in result["content"]


@pytest.mark.parametrize(
    "field, value", [("result_cap", 0), ("result_cap", True), ("default_timeout_s", -1), ("default_timeout_s", "60")]
)
def test_executor_refuses_a_bad_cap_or_timeout(field, value):
    with pytest.raises(ValueError, match=field):
        Executor(**{field: value})


def test_raw_style_tracebacks_name_none_of_the_packages_own_files():
    import os

    def broken(x: int) -> str:
        """Fails in the student's own code."""
        raise ValueError("boom")

    package = os.path.dirname(agentlab.__file__)
    blocks = [
        {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"location": "Paris"}},
        {"type": "tool_use", "id": "t2", "name": "broken", "input": {"x": 1}},
    ]
    wrong_kw, own = (
        r["content"] for r in Executor(errors="raw")(blocks, [agentlab.get_weather, agentlab.tool(broken)])
    )
    for content in (wrong_kw, own):
        assert content.startswith("Traceback (most recent call last)")
        files = [ln.split('"')[1] for ln in content.splitlines() if ln.startswith('  File "')]
        assert files and not any(f.startswith(package) or f in ("tools.py", "executor.py") for f in files), files
    assert "unexpected keyword argument 'location'" in wrong_kw
    assert "ValueError: boom" in own and __file__ in own  # the student's frame stays: that is the raw style's point
