"""The defences compared in the matrix, each a choice the *harness* makes: which tools, which gates.

- ``none``: every tool of the suite offered, every call run.
- ``least privilege``: only the tools the user's task needs (the tool list is the permission list).
- ``confirmation``: a person approves each side-effecting call; ``approval_rate`` is the share they
  approve (``SeededApprover``).
- ``data-flow guard``: calls whose arguments carry untrusted text are refused (``DataFlowGuard``).
- combinations of these.

Marking tool output as data (``spotlight.py``) is not in the matrix: its effect depends on a real
model's obedience, which the lab cites instead of simulating.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentlab.injection.confirm import Confirmation, SeededApprover
from agentlab.injection.gates import GatedExecutor
from agentlab.injection.guard import DEFAULT_MIN_CHARS, DataFlowGuard
from agentlab.injection.suite import UserTask
from agentlab.injection.world import ALL_TOOLS
from agentlab.protocols import Gate


@dataclass(frozen=True)
class Defence:
    """One harness configuration: which tools are offered and which gates every call passes."""

    name: str
    """How reports and figures name it."""
    least_privilege: bool = False
    """Offer only the tools the user's task needs (else every tool of the suite)."""
    guard: bool = False
    """Refuse calls whose arguments carry untrusted text."""
    approval_rate: float | None = None
    """Ask a person before side effects, who approves this share of calls (``None``: never ask)."""
    min_chars: int = DEFAULT_MIN_CHARS
    """The guard's threshold (shared characters that taint an argument)."""
    seed: int = 0
    """The approver's seed for ``run_suite``/``run_case`` (``matrix`` and ``approval_sweep`` average over seeds)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Defence(name={self.name!r}): give the defence a name, e.g. 'data-flow guard'")
        if self.approval_rate is not None:
            SeededApprover(self.approval_rate, self.seed)  # checks rate and seed, with their readable errors
        if self.guard:
            DataFlowGuard(min_chars=self.min_chars)

    def tool_names(self, task: UserTask) -> tuple[str, ...]:
        """The tools offered for ``task``."""
        return tuple(n for n in ALL_TOOLS if n in task.needs) if self.least_privilege else ALL_TOOLS

    def executor(self) -> GatedExecutor:
        """A fresh executor for one run (gates keep per-run state)."""
        gates: list[Gate] = []
        if self.guard:
            gates.append(DataFlowGuard(min_chars=self.min_chars))
        if self.approval_rate is not None:
            gates.append(Confirmation(SeededApprover(self.approval_rate, self.seed)))
        return GatedExecutor(gates)


NONE = Defence("none")
LEAST_PRIVILEGE = Defence("least privilege", least_privilege=True)
GUARD = Defence("data-flow guard", guard=True)
MATRIX_DEFENCES: tuple[Defence, ...] = (
    NONE,
    LEAST_PRIVILEGE,
    Defence("confirmation (50% approved)", approval_rate=0.5),
    GUARD,
    Defence("least privilege + guard", least_privilege=True, guard=True),
)
"""The rows of the injection matrix."""


def defence(name: str) -> Defence:
    """The matrix defence named ``name``; an unknown name is a readable error listing the names."""
    for d in MATRIX_DEFENCES:
        if d.name == name:
            return d
    raise ValueError(
        f"defence {name!r}: no such defence in the matrix; choose one of "
        f"{', '.join(repr(d.name) for d in MATRIX_DEFENCES)}, or build one with Defence(...)"
    )
