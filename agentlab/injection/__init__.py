"""Untrusted content: a small prompt-injection suite, a gullible model, and harness-side defences.

- ``world.py``: the tools (the city task's, plus ``fetch_page``, ``get_user_key``, ``send_email``,
  ``delete_notes``), the fake user's key, and which tools are untrusted or side-effecting.
- ``suite.py``: benign user tasks x attacker injection tasks, each checked by code.
- ``gates.py``: an executor whose gates refuse calls with a reason (``blocked`` in the trace).
- ``guard.py``, ``confirm.py``, ``spotlight.py``: the data-flow guard, confirmation before side
  effects, and marking tool output as data (transformation only; its effect is cited).
- ``defences.py``, ``runner.py``, ``metrics.py``: run the suite under each defence and report the
  standard metrics (benign utility, utility under attack, attack success rate).
- ``analysis.py``: the exact, static answers (goals reachable with a tool list; goals the guard can stop).
- ``published.py``: AgentDojo and CaMeL's published numbers, cited with their source.
- ``plots.py``: the figures.

The model is ``agentlab.sim.models.gullible.Gullible``: it obeys every injected instruction (the worst
case). What the lab measures is what the harness lets through; what a real model would obey is cited.
"""

from agentlab.injection.analysis import guard_reach, needs_tainted_args, reachability_table, reachable, reachable_share
from agentlab.injection.confirm import Confirmation, SeededApprover
from agentlab.injection.defences import GUARD, LEAST_PRIVILEGE, MATRIX_DEFENCES, NONE, Defence
from agentlab.injection.gates import Blocked, GatedExecutor
from agentlab.injection.guard import DataFlowGuard, carries_taint
from agentlab.injection.metrics import Metrics, approval_sweep, case_grid, matrix, run_suite, summarize
from agentlab.injection.runner import CaseResult, gullible_client, record_injected_run, run_case
from agentlab.injection.spotlight import MarkingExecutor, spotlight
from agentlab.injection.suite import (
    INJECTION_TASKS,
    USER_TASKS,
    InjectionTask,
    UserTask,
    injection_task,
    pairs,
    user_task,
)
from agentlab.injection.world import ATTACKER_EMAIL, SIDE_EFFECTS, UNTRUSTED, USER_KEY, World

__all__ = [
    "guard_reach",
    "needs_tainted_args",
    "reachability_table",
    "reachable",
    "reachable_share",
    "Confirmation",
    "SeededApprover",
    "GUARD",
    "LEAST_PRIVILEGE",
    "MATRIX_DEFENCES",
    "NONE",
    "Defence",
    "Blocked",
    "GatedExecutor",
    "DataFlowGuard",
    "carries_taint",
    "Metrics",
    "approval_sweep",
    "case_grid",
    "matrix",
    "run_suite",
    "summarize",
    "CaseResult",
    "gullible_client",
    "record_injected_run",
    "run_case",
    "MarkingExecutor",
    "spotlight",
    "INJECTION_TASKS",
    "USER_TASKS",
    "InjectionTask",
    "UserTask",
    "injection_task",
    "pairs",
    "user_task",
    "ATTACKER_EMAIL",
    "SIDE_EFFECTS",
    "UNTRUSTED",
    "USER_KEY",
    "World",
]
