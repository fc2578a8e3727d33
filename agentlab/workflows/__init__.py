"""Workflows: tasks on a code path fixed in advance (code decides every next step).

``run_workflow`` is the city task on a fixed path; the five patterns, one file each:
``chaining.run_chain``, ``routing.run_router``, ``parallel.run_sections`` / ``parallel.run_vote``,
``orchestrator.run_orchestrator``, ``evaluator.run_evaluator``. Each is bounded, metered, traced
with step paths, and returns the same ``Run`` as the agent.
"""

from agentlab.workflows.chaining import Link, run_chain
from agentlab.workflows.city_compare import run_workflow
from agentlab.workflows.evaluator import run_evaluator
from agentlab.workflows.orchestrator import run_orchestrator
from agentlab.workflows.parallel import run_sections, run_vote
from agentlab.workflows.routing import run_router
from agentlab.workflows.step import StepRecord, Steps, UnparseableOutput

__all__ = [
    "run_workflow",
    "Link",
    "run_chain",
    "run_router",
    "run_sections",
    "run_vote",
    "run_orchestrator",
    "run_evaluator",
    "Steps",
    "StepRecord",
    "UnparseableOutput",
]
