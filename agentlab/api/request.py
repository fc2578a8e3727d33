"""Request options whose values both sides know: the harness sends them, the simulator checks them.

Each names its source where the simulator's module that applies it does (``sim/effort.py``, ``sim/budgets.py``).
"""

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
"""The values ``output_config.effort`` takes, lowest first."""
TASK_BUDGET_BETA = "task-budgets-2026-03-13"
"""The beta header value that opts a request in to ``output_config.task_budget`` (the SDK lists it in ``AnthropicBetaParam``)."""
TASK_BUDGET_MIN = 20_000
"""The smallest task budget ``total`` accepted (third-party sources: see ``sim/budgets.py``)."""
