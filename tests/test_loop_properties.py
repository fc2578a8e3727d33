"""Property tests: whatever the model writes, the loop ends within its guards, answers every
``tool_use`` id exactly once in the next message, and the trace ends with a ``stop`` event."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentlab
from agentlab import FunctionModel, run_agent
from agentlab.executor import Executor
from agentlab.guards import Limits
from agentlab.trace import read_trace

CALLS = st.one_of(
    st.builds(
        lambda c: {"type": "tool_use", "name": "get_weather", "input": {"city": c}},
        st.sampled_from(["Paris", "London", "Pariss", "Atlantis", "上海"]),
    ),  # good and bad values
    st.builds(
        lambda n: {"type": "tool_use", "name": n, "input": {"city": "Paris"}},
        st.sampled_from(["get_wether", "rm_rf", "save_note"]),
    ),  # unknown tools, wrong fields
    st.builds(
        lambda v: {"type": "tool_use", "name": "get_weather", "input": v},
        st.sampled_from([None, {}, {"city": 3}, {"city": None}, {"city": "Oslo", "x": 1}]),
    ),  # null, schema violations
)
REPLY = st.one_of(st.just("All done."), st.lists(CALLS, min_size=1, max_size=5))  # end_turn, or 1..5 calls
LIMITS = st.builds(
    Limits,
    max_turns=st.integers(1, 8),
    max_repeats=st.none() | st.integers(1, 4),
    max_idle_turns=st.none() | st.integers(1, 4),
    max_tokens=st.none() | st.integers(500, 20000),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=st.lists(REPLY, min_size=0, max_size=10), limits=LIMITS, parallel=st.booleans())
def test_any_reply_sequence_ends_within_guards_answering_every_id_once(script, limits, parallel):
    replies = iter(script)
    model = FunctionModel(lambda messages, info: next(replies, "Out of script: done."))
    client = agentlab.connect("sim", policy=model, quiet=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        run = run_agent(
            client,
            "Which is warmer, Paris or London?",
            agentlab.task_tools(Path(tmp) / "notes"),
            limits=limits,
            trace=path,
            executor=Executor(parallel=parallel),
        )
        events = read_trace(path)
    assert run.model_calls <= limits.max_turns
    assert events[-1]["event"] == "stop" and events[-1]["reason"] == run.stop_reason.value
    for i, msg in enumerate(run.messages):
        ids = [b["id"] for b in msg["content"] if b.get("type") == "tool_use"] if msg["role"] == "assistant" else []
        if not ids:
            continue
        assert i + 1 < len(run.messages), "a tool_use was left unanswered at the end of the conversation"
        answered = [b["tool_use_id"] for b in run.messages[i + 1]["content"]]
        assert answered == ids
