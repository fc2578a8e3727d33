"""API errors in one plain line: what happened and what to do next (no traceback wall).

Statuses and their meaning: https://platform.claude.com/docs/en/api/errors (400 invalid_request_error,
401 authentication_error, 403 permission_error, 404 not_found_error, 413 request_too_large,
429 rate_limit_error, 500 api_error, 529 overloaded_error). The SDK retries 408, 409, 429 and 5xx
(``max_retries``, default 2) before raising, so by the time one of these reaches the caller the
retries are spent. Every line goes through :func:`~agentlab.live.keys.scrub`: no key is ever echoed.
"""

from __future__ import annotations

from typing import Any

from agentlab.live.cassette import CassetteMismatch
from agentlab.live.compat import FIELDS
from agentlab.live.keys import scrub

NEXT_STEP = {
    400: "the request is malformed for this model or server; the message says which field",
    401: "the key was refused: check ANTHROPIC_API_KEY holds the whole key (console.anthropic.com > API keys), "
    "without quotes, and that it was not revoked",
    402: "the account has no credit left: add credit in the console (Plans & Billing), or run offline with mode='sim'",
    403: "this key may not do that: check the key's workspace and its access to the model, or ask your organisation's admin",
    404: "no such model or endpoint: check the model id (`agentlab models` lists them) and base_url",
    413: "the request is over the API's 32 MB limit: send fewer or smaller images and documents",
    429: "rate limited: wait a minute and run again, or make the run smaller (fewer calls, a smaller max_tokens); "
    "your tier's limits are under Limits in the console",
    500: "the API had an internal error: try again in a minute",
    529: "the API is overloaded: try again in a few minutes, or use another model",
}
"""What to do next, by HTTP status."""


def explain(err: BaseException, base_url: Any = None) -> str | None:
    """One line for an SDK error (``anthropic.APIError``), or ``None`` for anything else."""
    import anthropic

    where = f" at {base_url}" if base_url else ""
    if isinstance(err, anthropic.APITimeoutError):
        line = (
            f"no answer from the API{where} in time (timeout): check your network, or give connect(timeout=...) "
            "more seconds; to work offline use mode='sim' or a replay cassette"
        )
    elif isinstance(err, anthropic.APIConnectionError) and isinstance(err.__cause__, CassetteMismatch):
        line = f"replay stopped: {err.__cause__}"  # the SDK wraps what a transport raises as a connection error
    elif isinstance(err, anthropic.APIConnectionError):
        cause = err.__cause__ or err.__context__
        why = f"{type(cause).__name__}: {cause}" if cause else str(err)
        line = (
            f"could not reach the API{where} ({why.splitlines()[0][:200]}): check your network connection "
            "and base_url, or work offline with mode='sim' or a replay cassette"
        )
    elif isinstance(err, anthropic.APIStatusError):
        status = err.status_code
        body = err.body if isinstance(err.body, dict) else {}
        kind = (body.get("error") or {}).get("type") if isinstance(body.get("error"), dict) else None
        message = (body.get("error") or {}).get("message") if isinstance(body.get("error"), dict) else None
        retry = err.response.headers.get("retry-after") if err.response is not None else None
        hint = NEXT_STEP.get(status) or NEXT_STEP.get(500 if status >= 500 else 400)
        if status == 404 and isinstance(message, str) and message.startswith("model: "):
            hint = _model_hint(message.removeprefix("model: ").strip()) or hint
        field = next((f for f in FIELDS if f in message), None) if status == 400 and isinstance(message, str) else None
        if field is not None:
            hint = (
                f"this server or model does not take {field}: send the request without it and let the loop's "
                "guards (max_turns, Limits) bound the run; agentlab resends without it by itself only to a server "
                "on this machine serving an unpriced (local) model, where a call costs nothing"
            )
        wait = f" (the API asks to wait {retry} s)" if retry and status in (429, 529) else ""
        line = (
            f"the API{where} answered HTTP {status}{' ' + kind if kind else ''}: {message or err.message}. {hint}{wait}"
        )
    elif isinstance(err, anthropic.APIError):
        line = f"the API{where} gave an unreadable answer ({type(err).__name__}: {err})"
    else:
        return None
    request = getattr(err, "request", None)
    sent = [request.headers.get(h, "") for h in ("x-api-key", "authorization")] if request is not None else []
    return scrub(" ".join(line.split()), [k.removeprefix("Bearer ") for k in sent if k])


def _model_hint(asked: str) -> str | None:
    """For the API's 404 ``model: <id>`` (as recorded in pydantic-ai's count_tokens_error cassette): the
    close ids among the models the course knows (``agentlab models``), or None when none is close."""
    from agentlab.api.profiles import did_you_mean

    hint = did_you_mean(asked)
    if hint is None:
        return None
    return (
        f"no model {asked!r}: {hint} (`agentlab models` lists the ids "
        "the course knows; your account may not have all of them)"
    )


class NotConfirmed(RuntimeError):
    """A live notebook above the confirmation threshold was not confirmed: nothing was sent."""


def install_notebook_handler() -> bool:
    """In a Jupyter kernel, show SDK errors (and a live run not confirmed) as their one line instead of a
    traceback, and a name a cell uses before the cell that defines it has run (cells run out of order) as one
    line saying to run the cells above; watch the graded exercises for edits the kernel has not seen
    (:mod:`agentlab.live.notebook`). True when installed."""
    import sys

    shell_mod = sys.modules.get("IPython")
    get = getattr(shell_mod, "get_ipython", None)
    shell = get() if get else None
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    import anthropic

    from agentlab.live.notebook import out_of_order, watch_exercises

    def handler(self: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> None:
        if isinstance(value, NameError):
            print(out_of_order(value, tb))
            return
        print(f"agentlab: {explain(value) or scrub(str(value))}")

    shell.set_custom_exc((anthropic.APIError, NotConfirmed, NameError), handler)
    watch_exercises(shell)
    return True
