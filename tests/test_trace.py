"""Traces are JSON Lines: records end at "\n" and nowhere else."""

import agentlab
from agentlab import FunctionModel, read_trace, run_agent


def test_model_text_with_unicode_line_separators_reads_back(tmp_path):
    text = "line\u2028separator\u2029paragraph\u0085next\x1cfile"
    client = agentlab.connect("sim", policy=FunctionModel(lambda m, i: text), quiet=True)
    run = run_agent(client, "say it", [], trace=tmp_path / "t.jsonl")
    events = read_trace(run.trace_path)
    assert events[-1]["event"] == "stop" and events[-1]["final_text"] == text
    assert [e["event"] for e in events[1:]] == ["request", "response", "stop"]
