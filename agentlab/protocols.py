"""The harness's plug points, in one place: what you may hand it, who calls it, and when.

``run_agent`` (``agentlab.loop``) takes two plugs: a **tool runner** (``executor=``) that answers
each turn's tool calls, and a **context strategy** (``context=``) that may rewrite the history
before each model call. ``GatedExecutor`` (``agentlab.injection.gates``) takes **gates** that may
refuse a call before it runs. The simulated model behind the SDK runs a **policy**: that plug is the
simulator's, declared with it (``agentlab.sim.policy.Policy``), since the harness knows nothing of the
simulator (``connect()`` plugs it in).

These are :class:`typing.Protocol` classes: anything with the right methods fits, no base class
needed. They are ``runtime_checkable``, so ``isinstance(x, Gate)`` checks that the methods (and,
for ``Gate``, the ``name``) exist, not their signatures; ``tests/test_protocols.py`` checks that every
implementation the lab ships fits.

    Plug             Taken by                         Shipped implementations
    ToolRunner       run_agent(executor=...)          Executor, GatedExecutor, MarkingExecutor, execute_tools
    ContextStrategy  run_agent(context=...)           Compaction, ClearToolResults, ServerClearing
    Gate             GatedExecutor(gates=[...])       DataFlowGuard, Confirmation
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from agentlab.guards import Stopped
    from agentlab.tools import Tool
    from agentlab.trace import Trace

__all__ = ["ContextStrategy", "Gate", "ToolRunner"]


@runtime_checkable
class ToolRunner(Protocol):
    """Runs one turn's tool calls: what ``run_agent(..., executor=...)`` accepts.

    Called by ``run_agent`` once per turn that ended with ``stop_reason == "tool_use"``, after the
    guards let the turn's calls run, as ``runner(content, by_name, trace, turn)``. It must answer every
    ``tool_use`` block of ``content`` exactly once, in the order asked, failures as ``is_error``
    results: the returned blocks are the next user message. It writes ``tool_call`` / ``tool_result``
    events to ``trace`` (a fresh ``Trace()`` when ``None``).
    """

    def __call__(
        self, content: list[Any], tools: dict[str, Tool] | list[Tool], trace: Trace | None = None, turn: int = 0
    ) -> list[dict]:
        """The ``tool_result`` blocks for the ``tool_use`` blocks of ``content`` (dicts or SDK blocks)."""
        ...


@runtime_checkable
class ContextStrategy(Protocol):
    """Shapes what each model call sees: what ``run_agent(..., context=...)`` accepts.

    ``run_agent`` calls ``before_call`` before every model call of the run and ``after_call`` right
    after each reply arrives (before its tools run). A strategy keeps its own state between them
    (e.g. the previous call's usage, the events it applied).
    """

    def before_call(
        self, client: Any, model: str, messages: list[dict], tr: Trace, turn: int
    ) -> tuple[list[dict], dict] | Stopped:
        """The history to send and extra request fields (``{}`` for none), or a guard's ``Stopped`` to end
        the run with that typed reason. A rewritten history starts a new conversation."""
        ...

    def after_call(self, reply: Any, tr: Trace, turn: int) -> None:
        """Read the reply (an SDK ``Message``), e.g. its ``usage`` for the next trigger."""
        ...


@runtime_checkable
class Gate(Protocol):
    """What a gate provides: a name, a check before each call, and a look at each result after.

    ``GatedExecutor`` calls ``check`` for every ``tool_use`` block before the call runs, gate by gate
    in order, stopping at the first that gives a reason (that gate refuses it); after a call that ran,
    it calls ``observe`` on every gate with the call and its ``tool_result``. A gate keeps state for one run: make a new one per run.
    """

    name: str
    """The defence's name, as the trace and reports show it."""

    def check(self, block: dict) -> str | None:
        """The reason to refuse this ``tool_use`` block, or ``None`` to let it run."""
        ...

    def observe(self, block: dict, result: dict) -> None:
        """See the ``tool_result`` a call that ran produced (e.g. to remember untrusted text)."""
        ...
