"""Ctrl-C and SIGTERM during a run still leave a ``stop`` event at the end of the trace."""

import os
import signal

import pytest

import agentlab
from agentlab import ScriptedModel, run_agent, tool
from agentlab.interrupts import Terminated
from agentlab.trace import read_trace


@pytest.fixture(autouse=True)
def python_default_sigint():
    """Ctrl-C as a fresh Python process has it: whatever an earlier test (or a kernel or pool it started)
    left behind, SIGINT raises KeyboardInterrupt here (a full run once saw it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    "sig,exc,name", [(signal.SIGTERM, Terminated, "SIGTERM"), (signal.SIGINT, KeyboardInterrupt, "SIGINT")]
)
def test_a_signal_during_a_tool_ends_the_trace_with_an_interrupted_stop(tmp_path, sig, exc, name):
    @tool
    def wait_for_signal() -> str:
        """Sends the process a signal, as a user or a supervisor would."""
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})  # a signal blocked by an earlier test would never arrive
        os.kill(os.getpid(), sig)
        return "not reached"

    client = agentlab.connect(
        "sim", policy=ScriptedModel([[{"type": "tool_use", "name": "wait_for_signal"}]]), quiet=True
    )
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(exc):
        run_agent(client, "go", [wait_for_signal], trace=tmp_path / "t.jsonl")
    last = read_trace(tmp_path / "t.jsonl")[-1]
    assert (last["event"], last["reason"], last["signal"]) == ("stop", "interrupted", name)
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back after the run


def test_runs_that_end_in_any_order_put_back_the_handler_from_before_the_first(tmp_path):
    from agentlab.interrupts import stop_on_signals
    from agentlab.trace import Trace

    before = signal.getsignal(signal.SIGTERM)
    first, second = (stop_on_signals(Trace(tmp_path / f"{n}.jsonl", kind="agent")) for n in ("a", "b"))
    first.__enter__()
    second.__enter__()  # stepped side by side, as run_batched steps its runs
    first.__exit__(None, None, None)  # the first to start ends first
    assert signal.getsignal(signal.SIGTERM) is not before  # the second is still running: SIGTERM still ends it
    second.__exit__(None, None, None)
    assert signal.getsignal(signal.SIGTERM) is before


HANGING_RUN = """
import threading, time, agentlab
from agentlab.tools import tool

@tool
def hang(city: str) -> str:
    '''Wait a long time.

    Args:
        city: Any city.
    '''
    time.sleep(60)
    return "never"

model = agentlab.FunctionModel(lambda messages, tools: [{"type": "tool_use", "id": "toolu_1", "name": "hang", "input": {"city": "Paris"}}])
client = agentlab.connect("sim", policy=model, quiet=True)
"""
"""A script's start: a simulated client whose model calls ``hang``, a tool that sleeps for a minute."""


def test_a_run_in_a_daemon_thread_gets_a_stop_when_the_process_exits(tmp_path):
    import subprocess
    import sys

    code = (
        HANGING_RUN
        + f"""
started = threading.Event()
def run():
    agentlab.run_agent(client, "go", [hang], trace={str(tmp_path / "t.jsonl")!r})
threading.Thread(target=run, daemon=True).start()
import os
for _ in range(1200):  # bounded: at most 60 s for the run to reach its tool
    if os.path.exists({str(tmp_path / "t.jsonl")!r}) and 'tool_call' in open({str(tmp_path / "t.jsonl")!r}).read():
        break
    time.sleep(0.05)
"""
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    from agentlab.trace import read_trace

    last = read_trace(tmp_path / "t.jsonl")[-1]
    assert last["event"] == "stop" and last["reason"] == "interrupted" and "process exited" in last["detail"]


def test_sigterm_writes_a_stop_for_a_run_in_another_thread_and_still_kills_the_process(tmp_path):
    import subprocess
    import sys
    import time

    trace = tmp_path / "t.jsonl"
    code = (
        HANGING_RUN
        + f"""
worker = threading.Thread(target=agentlab.run_agent, args=(client, "go", [hang]), kwargs={{"trace": {str(trace)!r}}}, daemon=True)
worker.start()
worker.join(120)
"""
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60  # bounded: the run reaches its tool, then SIGTERM
        while time.monotonic() < deadline and not (trace.exists() and "tool_call" in trace.read_text("utf-8")):
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM, err  # the process ends as default SIGTERM ends it
    last = read_trace(trace)[-1]
    assert (last["event"], last["reason"], last["signal"]) == ("stop", "interrupted", "SIGTERM")
    assert "another thread" in last["detail"]
