"""Prompt chaining: fixed steps in order, each one's output the next one's input, gates in between.

    value = first_input
    for link in links:                        # the order is fixed in code
        value = model(link.prompt, value)     # or link.code(value): a step without the model
        if link.gate and not link.gate(value): stop(GATE_FAILED, why)    # code checks, not the model

A gate is a plain function of the step's output: ``None`` or ``True`` lets the chain go on; ``False``
or a string (the reason) stops it. Nothing here asks the model which step comes next.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from agentlab.run import Run, StopReason
from agentlab.workflows.step import Steps, UnparseableOutput, check_bound, guarded

MAX_LINKS = 20
"""Longest chain accepted: every workflow is bounded."""


@dataclass
class Link:
    """One step of a chain: a model call (``prompt``) or a code step (``code``), then an optional gate."""

    name: str
    """The step's name; its path in the trace is ``chain/<name>``."""
    prompt: str | None = None
    """Model step: the prompt, with ``{input}`` where the previous output goes."""
    code: Callable[[Any], Any] | None = None
    """Code step: a function of the previous output (e.g. fetch data); no model call."""
    system: str | None = None
    """Model step: the system prompt (what the step's role is)."""
    schema: dict | None = None
    """Model step: a JSON schema; the output is then parsed JSON (JSON outputs)."""
    gate: Callable[[Any], bool | str | None] | None = None
    """Check on the output: ``None``/``True`` pass; ``False`` or a reason string stops the chain."""

    def __post_init__(self) -> None:
        if (self.prompt is None) == (self.code is None):
            raise ValueError(f"Link({self.name!r}): give exactly one of prompt= (a model step) or code= (a code step)")


@guarded
def run_chain(
    client: Any,
    first_input: Any,
    links: list[Link],
    *,
    model: str | None = None,
    max_tokens: int = 512,
    trace: str | Path | None = None,
    limits: Any = None,
) -> Run:
    """Run ``links`` in order on ``first_input``; stops at the first failed gate or unparseable output."""
    check_bound("len(links)", len(links), 1, MAX_LINKS)
    with Steps(
        client,
        "chaining",
        limits=limits,
        model=model,
        trace=trace,
        max_tokens=max_tokens,
        links=[link.name for link in links],
    ) as wf:
        value = first_input
        for link in links:  # the order is fixed in code
            path = f"chain/{link.name}"
            try:
                value = _step(wf, path, link, value)  # a model call, or a code step
            except UnparseableOutput as e:
                return wf.finish(StopReason.UNPARSEABLE_OUTPUT, e.raw, str(e))
            except CodeStepFailed as e:
                return wf.finish(StopReason.ERROR, "", str(e))
            verdict = link.gate(value) if link.gate else None  # code checks the output, not the model
            if verdict is False or isinstance(verdict, str):
                why = verdict if isinstance(verdict, str) else "the gate returned False"
                wf.fail(f"{path}/gate", "rejected", why)
                return wf.finish(StopReason.GATE_FAILED, str(value), f"gate after {link.name!r} failed: {why}")
        return wf.finish(StopReason.COMPLETED, value if isinstance(value, str) else str(value))


class CodeStepFailed(RuntimeError):
    """A chain's code step raised; the message names the step and the error."""


def _step(wf: Steps, path: str, link: Link, value: Any) -> Any:
    """One link's output: its code run on ``value``, or its model call with ``value`` in the prompt."""
    if link.code is not None:
        rec = wf.code(path, link.code, value)
        if rec.status != "ok":
            raise CodeStepFailed(f"code step {path!r} failed: {rec.error}")
        return rec.output
    return wf.ask(path, link.prompt.replace("{input}", str(value)), system=link.system, schema=link.schema)
