"""Context engineering: tactics that keep a long agent run's window small, each measured on one long task.

One tactic per module: ``compaction`` (summarise and continue), ``clearing`` (old tool results,
in the harness or by the API's context editing), ``memory`` (notes outside the window, across
sessions), ``subagents`` (clean windows returning short summaries), ``retrieval`` (identifiers
first, details on request). ``task`` is the long task and its checks, ``compare`` runs them all
(:func:`compare_tactics`), ``plots`` draws them. The strategies plug into ``run_agent(context=...)``
(each an ``agentlab.protocols.ContextStrategy``).
"""

from agentlab.context.clearing import ClearToolResults, ServerClearing, clear_tool_results
from agentlab.context.compaction import Compaction, should_compact
from agentlab.context.compare import TACTICS, TacticResult, compare_tactics, run_tactic
from agentlab.context.memory import MemoryPathError, make_memory_tool, run_in_sessions
from agentlab.context.retrieval import jit_tools
from agentlab.context.subagents import Delegation, SubAgentFailed, research_tool
from agentlab.context.task import WINDOW_TOKENS, check_report, report_cities, report_task, surviving_facts

__all__ = [
    "ClearToolResults",
    "Compaction",
    "Delegation",
    "MemoryPathError",
    "ServerClearing",
    "SubAgentFailed",
    "TACTICS",
    "TacticResult",
    "WINDOW_TOKENS",
    "check_report",
    "clear_tool_results",
    "compare_tactics",
    "jit_tools",
    "make_memory_tool",
    "report_cities",
    "report_task",
    "research_tool",
    "run_in_sessions",
    "run_tactic",
    "should_compact",
    "surviving_facts",
]
