"""Ctrl-C and SIGTERM during a run still leave a ``stop`` event at the end of the trace."""

import os
import signal

import pytest

import agentlab
from agentlab import ScriptedModel, run_agent, tool
from agentlab.interrupts import Terminated
from agentlab.trace import read_trace


@pytest.mark.parametrize("sig,exc,name", [(signal.SIGTERM, Terminated, "SIGTERM"),
                                          (signal.SIGINT, KeyboardInterrupt, "SIGINT")])
def test_a_signal_during_a_tool_ends_the_trace_with_an_interrupted_stop(tmp_path, sig, exc, name):
    @tool
    def wait_for_signal() -> str:
        """Sends the process a signal, as a user or a supervisor would."""
        os.kill(os.getpid(), sig)
        return "not reached"

    client = agentlab.connect("sim", policy=ScriptedModel([[{"type": "tool_use", "name": "wait_for_signal"}]]), quiet=True)
    with pytest.raises(exc):
        run_agent(client, "go", [wait_for_signal], trace=tmp_path / "t.jsonl")
    last = read_trace(tmp_path / "t.jsonl")[-1]
    assert (last["event"], last["reason"], last["signal"]) == ("stop", "interrupted", name)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is put back after the run
