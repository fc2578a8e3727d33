"""Task budgets (beta ``task-budgets-2026-03-13``): an advisory countdown for a whole agentic loop.

What the docs say (https://platform.claude.com/docs/en/build-with-claude/task-budgets, read 2026-12-03):

- the request sets ``output_config.task_budget = {"type": "tokens", "total": N}`` and sends the beta
  header ``anthropic-beta: task-budgets-2026-03-13``;
- the budget covers the full loop, "including thinking, tool calls, tool results, and output"; the
  model "sees a running countdown" and uses it to finish gracefully: the budget is *advisory*, the API
  does not stop a loop at it (``max_tokens`` still caps each response);
- the models are the page's ``supportedModels`` list (:data:`SUPPORTED`).

From the installed SDK (``anthropic/types/beta/beta_token_task_budget_param.py``): ``total`` and ``type``
(only ``"tokens"``) are required; ``remaining`` is optional, "defaults to total if not provided", and
carries a budget across contexts when the client compacts. The minimum ``total`` of 20,000 is not in
the excerpts of the page we could read: it is from third-party write-ups of the docs
(https://github.com/deepnoodle-ai/dive/releases/tag/v1.42.0: "a total below 20,000 is an error";
https://setuproll.com/how-to/tr-2-set-a-token-budget-for-agents: "The minimum total is 20000 tokens").
Recorded real traffic agrees: the calibration set's pydantic-ai cassettes
(``test_anthropic_task_budget_*.yaml``) hold Opus 4.7 requests with ``total`` 20,000, one with ``remaining``
500, answered 200 (their headers were not recorded; ``calibrate.replay`` adds the beta header they needed).

What the simulator does, and what it assumes:

- :func:`check_task_budget` answers a bad shape, a missing beta header, a ``total`` under the minimum or
  an unsupported model with a 400. The wordings are *reconstructed* (no source shows the API's text);
  each names the field, the value and the fix.
- :func:`budget_left` is the countdown the simulated model reads: ``remaining`` (or ``total``) less the
  tokens of what the loop has added after the task (the assistant turns, thinking included, and the tool
  results). How the real server counts is not documented beyond the list above; this is our reading.
  It never stops a request: a loop that ignores the countdown runs on past zero, as with the real API.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentlab.api.request import TASK_BUDGET_BETA, TASK_BUDGET_MIN
from agentlab.api.tokens import content_tokens
from agentlab.sim.errors import invalid

BETA = TASK_BUDGET_BETA
"""The beta header value that opts a request in (the SDK lists it in ``AnthropicBetaParam``)."""
MIN_TOTAL = TASK_BUDGET_MIN
"""The smallest ``total`` accepted (third-party sources: see the module docstring)."""
SUPPORTED = (
    "claude-fable-5-1",
    "claude-mythos-5-1",
    "claude-fable-5",
    "claude-mythos-5",
    "claude-opus-5-5",
    "claude-opus-5",
    "claude-opus-4-8",
    "claude-opus-4-7",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
)
"""The docs page's ``supportedModels`` (read 2026-12-03); a model not listed there is answered 400."""
SOURCE = "https://platform.claude.com/docs/en/build-with-claude/task-budgets"
"""The docs page the rules come from."""


def task_budget_of(body: dict) -> object:
    """The request's ``output_config.task_budget`` as sent (``None`` when absent)."""
    config = body.get("output_config")
    return config.get("task_budget") if isinstance(config, dict) else None


def check_task_budget(body: dict, headers: Mapping[str, str]) -> None:
    """Raise the 400 for a task budget the API would refuse (reconstructed wordings; see the module docstring)."""
    budget = task_budget_of(body)
    if budget is None:
        return
    where = "output_config.task_budget"
    if not isinstance(budget, dict):
        raise invalid(
            f"{where}: Input should be a valid dictionary, got {budget!r}; "
            f'send {{"type": "tokens", "total": {MIN_TOTAL}}}'
        )
    if budget.get("type") != "tokens":
        raise invalid(f"{where}.type: Input should be 'tokens', got {budget.get('type')!r}")
    total, remaining = budget.get("total"), budget.get("remaining")
    if "total" not in budget:
        raise invalid(f'{where}.total: Field required; add the budget in tokens, e.g. "total": {MIN_TOTAL}')
    if not _whole(total):
        raise invalid(f"{where}.total: Input should be a valid integer, got {total!r}")
    if total < MIN_TOTAL:
        raise invalid(
            f"{where}.total: must be at least {MIN_TOTAL}, got {total}; "
            "the budget covers the whole loop, so give it the loop's size"
        )
    if remaining is not None and not (_whole(remaining) and 0 <= remaining <= total):
        raise invalid(f"{where}.remaining: must be a whole number from 0 to total ({total}), got {remaining!r}")
    betas = {v.strip() for v in (headers.get("anthropic-beta") or "").split(",")}
    if BETA not in betas:
        raise invalid(
            f"{where}: task budgets are in beta; send the header `anthropic-beta: {BETA}` "
            f"(the beta header sent was {headers.get('anthropic-beta')!r})"
        )
    if body.get("model") not in SUPPORTED:
        raise invalid(
            f"{where}: not supported on model {body.get('model')!r}; use one of {', '.join(SUPPORTED)} ({SOURCE})"
        )


def loop_tokens(messages: list[dict], model: str | None = None) -> int:
    """Tokens the loop has added after the task: every message after the first (assistant turns, tool results)."""
    return sum(content_tokens(m.get("content"), model=model) for m in messages[1:] if isinstance(m, dict))


def budget_left(body: dict) -> int | None:
    """The countdown the model sees for this request (may go below zero), or ``None`` without a task budget."""
    budget = task_budget_of(body)
    if not isinstance(budget, dict) or not _whole(budget.get("total")):
        return None
    start = budget["remaining"] if _whole(budget.get("remaining")) else budget["total"]
    return start - loop_tokens(body.get("messages") or [], body.get("model"))


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
