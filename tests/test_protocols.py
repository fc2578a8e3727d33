"""Every plug the lab ships fits the Protocol of ``agentlab.protocols`` it is plugged in as."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from agentlab.context import ClearToolResults, Compaction, ServerClearing
from agentlab.executor import Executor
from agentlab.injection.confirm import Confirmation, SeededApprover
from agentlab.injection.gates import GatedExecutor
from agentlab.injection.guard import DataFlowGuard
from agentlab.injection.spotlight import MarkingExecutor
from agentlab.loop import execute_tools
from agentlab.protocols import ContextStrategy, Gate, ToolRunner
from agentlab.sim.clock import SimClock
from agentlab.sim.models.adaptive import adaptive_agent
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.context_agent import ContextAgent
from agentlab.sim.models.gullible import Gullible
from agentlab.sim.models.misbehaving import CarelessModel, Looper, SlowModel, ToolOutsideList, Wanderer
from agentlab.sim.models.react import ReactWriter
from agentlab.sim.models.slow import Latency
from agentlab.sim.policy import FunctionModel, Policy, ScriptedModel

RUNNERS = [Executor(), Executor(parallel=True), GatedExecutor([DataFlowGuard()]), MarkingExecutor(), execute_tools]
STRATEGIES = [Compaction(), ClearToolResults(), ServerClearing()]
GATES = [DataFlowGuard(), Confirmation(SeededApprover(0.5))]
POLICIES = [
    CarefulAgent(),
    Gullible(),
    Gullible(obey=False),
    ContextAgent(),
    CarelessModel("missing_field"),
    Looper(),
    Wanderer(),
    ToolOutsideList(),
    SlowModel(SimClock()),
    Latency(seconds=0),
    ReactWriter(),
    FunctionModel(lambda messages, info: "hi"),
    ScriptedModel(["hi"]),
    adaptive_agent,
]


def _takes(fn, *args) -> bool:
    """``fn`` can be called with these positional arguments (its signature binds them)."""
    try:
        inspect.signature(fn).bind(*args)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: getattr(r, "__name__", type(r).__name__))
def test_protocols_every_shipped_tool_runner_fits(runner):
    assert isinstance(runner, ToolRunner)
    assert _takes(runner, [], {}, None, 1)  # how run_agent calls it: content, tools by name, trace, turn
    assert _takes(runner, [], {})
    assert runner([{"type": "text", "text": "no calls"}], {}) == []


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: type(s).__name__)
def test_protocols_every_shipped_context_strategy_fits(strategy):
    assert isinstance(strategy, ContextStrategy)
    assert _takes(strategy.before_call, object(), "model", [], object(), 1)
    assert _takes(strategy.after_call, object(), object(), 1)
    assert strategy.before_call(None, "model", [{"role": "user", "content": "hi"}], None, 1) == (
        [{"role": "user", "content": "hi"}],
        strategy.request_fields() if isinstance(strategy, ServerClearing) else {},
    )


@pytest.mark.parametrize("gate", GATES, ids=lambda g: type(g).__name__)
def test_protocols_every_shipped_gate_fits(gate):
    assert isinstance(gate, Gate)
    assert isinstance(gate.name, str) and gate.name
    assert _takes(gate.check, {}) and _takes(gate.observe, {}, {})


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: getattr(p, "__name__", type(p).__name__))
def test_protocols_every_shipped_policy_fits(policy):
    assert isinstance(policy, Policy)
    assert _takes(policy, {"messages": []})


def test_protocols_the_harness_names_its_plugs_and_not_the_simulators():
    """The harness's plugs are its own; the simulator's policy is declared with the simulator (the harness
    imports nothing of it), and ``run_agent``'s options (``AgentOptions``) name the Protocols its plugs must fit."""
    import agentlab.protocols
    from agentlab.harness import AgentOptions

    assert not hasattr(agentlab.protocols, "Policy") and Policy is agentlab.sim.policy.Policy
    fields = {f.name: f.type for f in dataclasses.fields(AgentOptions)}
    assert fields["executor"] == "ToolRunner | None"
    assert fields["context"] == "ContextStrategy | None"


def test_protocols_a_thing_without_the_methods_does_not_fit():
    assert not isinstance(object(), ToolRunner)
    assert not isinstance(object(), ContextStrategy)
    assert not isinstance(object(), Gate)
    assert not isinstance("not a policy", Policy)
