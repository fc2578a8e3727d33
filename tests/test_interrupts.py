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


@pytest.mark.parametrize("sig,exc,name", [(signal.SIGTERM, Terminated, "SIGTERM"),
                                          (signal.SIGINT, KeyboardInterrupt, "SIGINT")])
def test_a_signal_during_a_tool_ends_the_trace_with_an_interrupted_stop(tmp_path, sig, exc, name):
    @tool
    def wait_for_signal() -> str:
        """Sends the process a signal, as a user or a supervisor would."""
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})  # a signal blocked by an earlier test would never arrive
        os.kill(os.getpid(), sig)
        return "not reached"

    client = agentlab.connect("sim", policy=ScriptedModel([[{"type": "tool_use", "name": "wait_for_signal"}]]), quiet=True)
    with pytest.raises(exc):
        run_agent(client, "go", [wait_for_signal], trace=tmp_path / "t.jsonl")
    last = read_trace(tmp_path / "t.jsonl")[-1]
    assert (last["event"], last["reason"], last["signal"]) == ("stop", "interrupted", name)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is put back after the run
