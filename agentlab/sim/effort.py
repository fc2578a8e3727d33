"""``output_config.effort``: how many tokens the model is willing to spend, as the docs give it, and the simulator's reading.

What the docs say (https://platform.claude.com/docs/en/build-with-claude/effort, read 2026-12-03):

- set ``output_config.effort`` to ``low``, ``medium``, ``high``, ``xhigh`` or ``max``; no beta header;
- it "affects all tokens in the response": text, tool calls and their arguments, thinking; lower effort
  means fewer tool calls ("combine multiple operations into fewer tool calls"), less preamble and shorter
  confirmations. It is "a behavioral signal, not a strict token budget";
- most models default to ``high`` (setting it is the same as omitting it); Opus 5.5 and Haiku 5.5 default
  to ``medium``;
- the page's lists: ``max`` on Fable 5, Mythos 5, Opus 5, Opus 4.8, Mythos Preview, Opus 4.7, Opus 4.6,
  Sonnet 5 and Sonnet 4.6; ``xhigh`` on Fable 5, Mythos 5, Opus 5, Opus 4.8, Opus 4.7 and Sonnet 5; the
  parameter on those and Opus 4.5 (an earlier version of the page:
  https://platform.claude.com/docs/en/build-with-claude/effort?wt.mc_id=MVP_407589). The 5.1, 5.2 and 5.5
  models are not in the lists we could read; the simulator *assumes* they take every level (the page's
  defaults name Opus 5.5 and Haiku 5.5). Opus 4.5 takes neither ``max`` nor ``xhigh``; Sonnet 4.5 refuses
  the parameter (https://reference.langchain.com/python/deepagents-code/reasoning_effort/ANTHROPIC_EFFORTS_NO_MAX,
  ``ANTHROPIC_EFFORTS_NO_XHIGH``). The values are the installed SDK's (``output_config_param.py``).

What the simulator does: :func:`check_effort` answers a value outside the list, or a level the model does not
take, with a 400 (wordings *reconstructed*). :func:`effort_steps` is how far the request's level is from the
model's default; the careful model reads it (``models/city_task.py``): below the default it drops its
preamble and its closing confirmation, two below it also asks for every lookup in one turn; above it, it
says it checked its numbers, and two above it first looks the warmest city up a second time. That is how our scripted model is written, not a measurement of Claude.
"""

from __future__ import annotations

from agentlab.api.request import EFFORT_LEVELS
from agentlab.sim.errors import invalid

LEVELS = EFFORT_LEVELS
"""The values ``output_config.effort`` takes, lowest first (``agentlab.api.request``)."""
_ALL = frozenset(LEVELS)
_NO_XHIGH = _ALL - {"xhigh"}
_ASSUMED = (
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
    "claude-fable-5-1",
    "claude-fable-5-2",
    "claude-mythos-5-1",
    "claude-mythos-5-2",
)
ACCEPTED: dict[str, frozenset[str]] = {
    **{
        m: _ALL
        for m in (
            "claude-fable-5",
            "claude-mythos-5",
            "claude-opus-5",
            "claude-opus-4-8",
            "claude-opus-4-7",
            "claude-sonnet-5",
            *_ASSUMED,
        )
    },
    **{m: _NO_XHIGH for m in ("claude-mythos-preview", "claude-opus-4-6", "claude-sonnet-4-6")},
    "claude-opus-4-5": frozenset({"low", "medium", "high"}),
    "claude-opus-4-5-20251101": frozenset({"low", "medium", "high"}),
}
"""The levels each model takes (see the module docstring for which rows are the docs' and which assumed)."""
DEFAULT_MEDIUM = ("claude-opus-5-5", "claude-haiku-5-5")
"""Models whose default level is ``medium``; every other model's is ``high``."""
SOURCE = "https://platform.claude.com/docs/en/build-with-claude/effort"
"""The docs page the rules come from."""


def effort_of(body: dict) -> object:
    """The request's ``output_config.effort`` as sent (``None`` when absent)."""
    config = body.get("output_config")
    return config.get("effort") if isinstance(config, dict) else None


def check_effort(body: dict) -> None:
    """Raise the 400 for an effort the API would refuse (reconstructed wordings; see the module docstring)."""
    level = effort_of(body)
    if level is None:
        return
    if level not in _ALL:
        raise invalid(f"output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max', got {level!r}")
    model = body.get("model")
    accepted = ACCEPTED.get(model)
    if accepted is None:
        raise invalid(
            f"output_config.effort: the effort parameter is not supported on model {model!r}; "
            f"leave it out, or use a model that takes it ({SOURCE})"
        )
    if level not in accepted:
        raise invalid(
            f"output_config.effort: {level!r} is not supported on model {model!r}; "
            f"use one of {', '.join(x for x in LEVELS if x in accepted)}"
        )


def default_effort(model: str | None) -> str:
    """The level a request without ``effort`` runs at."""
    return "medium" if model in DEFAULT_MEDIUM else "high"


def effort_steps(body: dict) -> int:
    """How many levels the request's effort is above (+) or below (-) its model's default; 0 when not set."""
    level, default = effort_of(body), default_effort(body.get("model"))
    return LEVELS.index(level) - LEVELS.index(default) if level in _ALL else 0
