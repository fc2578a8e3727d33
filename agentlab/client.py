"""``connect()``: one real ``anthropic.Anthropic`` client, offline or live, on the same code path.

- ``mode="sim"``: the client's HTTP transport is the simulated model (``agentlab.sim``), in-process.
  No network, no key, deterministic; token counts are estimates.
- ``mode="live"``: the real API (or any Anthropic-compatible server at ``base_url``), usage from the API.
- ``mode="auto"``: live when ``ANTHROPIC_API_KEY`` is set, else sim; one line says which (on stderr in
  a script; in a notebook a plain line, once per kernel, so JupyterLab does not show it as an error).

Either way the client carries a :class:`~agentlab.meter.middleware.Meter` in its ``middleware``, so every
call through it, a student's own loop included, is metered.
"""

from __future__ import annotations

import difflib
import os
import sys
from typing import Any, Literal, Sequence

import anthropic
import httpx2

from agentlab.meter.middleware import Meter
from agentlab.sim.policy import Policy
from agentlab.sim.server import Simulator, model_catalog

SIM_BASE_URL = "https://simulated.agentlab.invalid"
"""Base URL of the in-process simulator (``.invalid``: nothing there can ever be reached)."""


class MissingAPIKey(RuntimeError):
    """Live mode was asked for without an API key."""


def default_model() -> str:
    """The model used when none is given (``AGENTLAB_MODEL`` overrides the built-in default)."""
    return os.environ.get("AGENTLAB_MODEL") or model_catalog()["default"]


def resolve_mode(mode: str, base_url: str | None = None) -> Literal["sim", "live"]:
    """``"sim"`` or ``"live"`` for a requested mode; bad values raise ValueError naming the choices."""
    if mode not in ("auto", "sim", "live"):
        raise ValueError(f"connect(mode={mode!r}): mode must be 'auto', 'sim' or 'live'")
    if mode != "auto":
        return mode  # type: ignore[return-value]
    return "live" if (os.environ.get("ANTHROPIC_API_KEY") or base_url) else "sim"


def connect(
    mode: str = "auto",
    model: str | None = None,
    base_url: str | None = None,
    *,
    policy: Policy | None = None,
    parallel: bool = False,
    api_key: str | None = None,
    middleware: Sequence[Any] = (),
    quiet: bool = False,
    count_parts: bool = False,
    faults: Any = None,
    **client_options: Any,
) -> anthropic.Anthropic:
    """A real ``anthropic.Anthropic`` client in ``"sim"``, ``"live"`` or ``"auto"`` mode.

    Args:
        mode: ``"auto"`` (live if ``ANTHROPIC_API_KEY`` is set, else sim), ``"sim"`` or ``"live"``.
        model: Default model for agentlab's loops on this client (``agentlab.model_of(client)``).
        base_url: An Anthropic-compatible server (e.g. a local Ollama); implies live mode in ``auto``.
        policy: Sim only: what the simulated model writes (default ``CarefulAgent``).
        parallel: Sim only: let the default policy ask for several tools in one turn.
        api_key: Live only: the key (default ``ANTHROPIC_API_KEY``).
        middleware: Extra SDK middleware, run inside the Meter.
        quiet: Do not print the one-line notice saying which mode is in use (in a notebook it is
            printed once per kernel, as a plain line; in a script on stderr).
        count_parts: Split every call's input into tool prompt, tool definitions, system, task,
            history and new with free ``count_tokens`` calls (up to five per call). The simulator
            reports the split itself, so this matters live (and for testing it against the simulator).
        faults: Sim only: seeded fault injection (``0.2``, ``"429=0.1,seed=7"``, a dict or a
            ``agentlab.sim.faults.Faults``); the SDK's own retries (``max_retries``, default 2) stay on.
        client_options: Passed on to ``anthropic.Anthropic`` (e.g. ``max_retries``, ``timeout``).
    """
    chosen = resolve_mode(mode, base_url)
    model = model or default_model()
    meter = Meter(count_tokens=count_parts)
    chain = [meter, *middleware]
    if chosen == "sim":
        if base_url is not None:
            raise ValueError("connect(mode='sim', base_url=...): the simulator runs in-process; drop base_url, "
                             "or use mode='live' to reach the server at base_url")
        sim = Simulator(policy, parallel=parallel, faults=faults)
        if model not in sim.models:
            close = difflib.get_close_matches(model, sorted(sim.models), n=3)
            raise ValueError(f"connect(model={model!r}): no such model; the simulator answers to the models the "
                             f"installed anthropic SDK lists{', e.g. ' + ', '.join(close) if close else ''}. "
                             f"Default: {default_model()}.")
        if faults is None:  # the simulator is deterministic: without faults a retry gives the same answer
            client_options.setdefault("max_retries", 0)
        client = anthropic.Anthropic(api_key="sim-no-key-needed", base_url=SIM_BASE_URL, middleware=chain,
                                     http_client=httpx2.Client(transport=sim.transport()), **client_options)
        client.agentlab_simulator = sim  # type: ignore[attr-defined]
        note = f"agentlab: simulated Claude ({model}), offline; token counts are estimates. Set ANTHROPIC_API_KEY to go live."
    else:
        if faults is not None:
            raise ValueError("connect(faults=...) injects faults into the simulator; use it with mode='sim'")
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key and base_url is None:
            raise MissingAPIKey(
                "connect(mode='live') needs an API key: set the ANTHROPIC_API_KEY environment variable "
                "(or pass api_key=...). To run offline instead, use connect(mode='sim') or leave mode='auto' "
                "with no key set."
            )
        client = anthropic.Anthropic(api_key=key or "no-key-for-local-server", base_url=base_url,
                                     middleware=chain, **client_options)
        where = base_url or "the Anthropic API"
        note = f"agentlab: live calls to {where} with {model}; usage and cost are real."
    meter.client = client
    client.agentlab_model = model  # type: ignore[attr-defined]
    client.agentlab_mode = chosen  # type: ignore[attr-defined]
    if not quiet:
        _notice(note)
    return client


_shown: set[str] = set()
"""Notices already shown in this notebook kernel."""


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (where stderr shows as a pink error box)."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return bool(get and type(get()).__name__ == "ZMQInteractiveShell")


def _notice(note: str) -> None:
    """Say which mode is in use: once per kernel as a plain line in a notebook, else on stderr."""
    if not _in_notebook():
        print(note, file=sys.stderr)
    elif note not in _shown:
        _shown.add(note)
        print(note)


def model_of(client: Any) -> str:
    """The default model a client was connected with (``default_model()`` for plain SDK clients)."""
    return getattr(client, "agentlab_model", None) or default_model()
