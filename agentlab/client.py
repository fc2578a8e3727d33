"""``connect()``: one real ``anthropic.Anthropic`` client, offline or live, on the same code path.

- ``mode="sim"``: the client's HTTP transport is the simulated model (``agentlab.sim``), in-process.
  No network, no key, deterministic; token counts are estimates.
- ``mode="live"``: the real API (or any Anthropic-compatible server at ``base_url``), usage from the API.
- ``mode="replay"``: answers from a cassette recorded live (``connect("live", record=PATH)``), offline.
- ``mode="auto"``: live when ``ANTHROPIC_API_KEY`` is set, else sim; one line says which (on stderr in
  a script; in a notebook a plain line, once per kernel, so JupyterLab does not show it as an error).

Either way the client carries a :class:`~agentlab.meter.middleware.Meter` in its ``middleware``, so every
call through it, a student's own loop included, is metered.
"""

from __future__ import annotations

import difflib
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Literal, Sequence

import anthropic
import httpx2

from agentlab.api.profiles import did_you_mean, model_catalog
from agentlab.api.wire import GATEWAY_TOKEN_PREFIX
from agentlab.live.compat import LocalServer, is_anthropic
from agentlab.live.errors import install_notebook_handler
from agentlab.live.keys import clean_key, env_key, remember
from agentlab.live.session import check_options, session_defaults, use  # noqa: F401  (use: `from agentlab.client import use`)
from agentlab.meter.middleware import Meter
from agentlab.sim.policy import Policy
from agentlab.sim.server import Simulator

SIM_BASE_URL = "https://simulated.agentlab.invalid"
"""Base URL of the in-process simulator (``.invalid``: nothing there can ever be reached)."""


LIVE_TIMEOUT = httpx2.Timeout(90.0, connect=10.0)
"""agentlab's own live timeouts: 10 s to connect, 90 s for any read (the SDK's own is 600 s a read,
times three attempts: a server that accepts and never answers would hang a notebook for half an hour)."""


class MissingAPIKey(RuntimeError):
    """Live mode was asked for without an API key."""


def default_model(mode: str = "sim") -> str:
    """The model used when none is given: ``AGENTLAB_MODEL``, else the simulator's default, or live the
    cheapest active priced model (``agentlab.live.spend.cheapest_model``)."""
    if os.environ.get("AGENTLAB_MODEL"):
        return os.environ["AGENTLAB_MODEL"]
    if mode == "live":
        from agentlab.live.spend import cheapest_model

        return cheapest_model()
    return model_catalog()["default"]


MODES = ("auto", "sim", "live", "replay")
"""The modes ``connect`` takes (``agentlab.live.session`` has the same tuple)."""


def resolve_mode(mode: str, base_url: str | None = None) -> Literal["sim", "live", "replay"]:
    """``"sim"``, ``"live"`` or ``"replay"`` for a requested mode; bad values raise ValueError naming the choices."""
    if mode not in MODES:
        close = difflib.get_close_matches(str(mode), MODES, n=1)
        raise ValueError(
            f"connect(mode={mode!r}): mode must be 'auto', 'sim', 'live' or 'replay'"
            f"{f'; did you mean {close[0]!r}?' if close else ''}"
        )
    if mode != "auto":
        return mode  # type: ignore[return-value]
    return "live" if (env_key() or base_url) else "sim"


def connect(
    mode: str = "auto",
    model: str | None = None,
    base_url: str | None = None,
    *,
    policy: Policy | None = None,
    parallel: bool = True,
    api_key: str | None = None,
    middleware: Sequence[Any] = (),
    quiet: bool = False,
    count_parts: bool = False,
    faults: Any = None,
    max_usd: float | None = None,
    record: str | os.PathLike | None = None,
    cassette: str | os.PathLike | None = None,
    transport: Any = None,
    **client_options: Any,
) -> anthropic.Anthropic:
    """A real ``anthropic.Anthropic`` client in ``"sim"``, ``"live"``, ``"replay"`` or ``"auto"`` mode.

    Args:
        mode: ``"auto"`` (live if ``ANTHROPIC_API_KEY`` is set, else sim), ``"sim"``, ``"live"`` or
            ``"replay"`` (answer from a cassette recorded live, offline: needs ``cassette=``).
        model: Default model for agentlab's loops on this client (``agentlab.model_of(client)``); live,
            the default is the cheapest active priced model.
        base_url: An Anthropic-compatible server (e.g. a local Ollama); implies live mode in ``auto``.
        policy: Sim only: what the simulated model writes (default ``CarefulAgent``).
        parallel: Sim only: the default policy asks for every independent tool in one turn, as the recorded
            real models do (pydantic-ai's cassettes); ``False`` for one call per turn (the course's old
            default; per request, ``tool_choice={..., "disable_parallel_tool_use": True}`` does the same).
        api_key: Live only: the key (default ``ANTHROPIC_API_KEY``); surrounding whitespace is trimmed.
        middleware: Extra SDK middleware, run inside the Meter.
        quiet: Do not print the one-line notice saying which mode is in use (in a notebook it is
            printed once per kernel, as a plain line; in a script on stderr).
        count_parts: Split every call's input into tool prompt, tool definitions, system, task,
            history and new with free ``count_tokens`` calls (up to five per call). The simulator
            reports the split itself, so this matters live (and for testing it against the simulator).
        faults: Sim only: seeded fault injection (``0.2``, ``"429=0.1,seed=7"``, a dict or a
            ``agentlab.sim.faults.Faults``); the SDK's own retries (``max_retries``, default 2) stay on.
        max_usd: A USD cap for everything this client sends: a call whose predicted upper bound
            (``agentlab.live.spend``) would take the session past it is not sent (``SpendRefused``;
            ``run_agent`` and the workflows end with ``USD_BUDGET``). An unpriced model is refused.
        record: Live (or sim): write every request and response to this vcrpy cassette (no key in it).
        cassette: Replay only: the cassette to answer from.
        transport: Live only: the httpx2 transport to send through (default: the network).
        client_options: Passed on to ``anthropic.Anthropic`` (e.g. ``max_retries``, ``timeout``).
    """
    check_options(client_options, [n for n in inspect.signature(connect).parameters if n != "client_options"])
    live_path, named = mode in ("auto", "live"), model  # what a live run would send is tallied (agentlab.live.costs)
    if mode == "auto" and policy is None and faults is None and base_url is None:  # agentlab.client.use(...)
        mode, cassette, record, max_usd = session_defaults(cassette, record, max_usd)
    chosen = resolve_mode(mode, base_url)
    if (record is not None and chosen == "replay") or (cassette is not None and chosen != "replay"):
        raise ValueError(
            f"connect(mode={mode!r}, {'record' if record is not None else 'cassette'}=...): record= "
            "goes with mode='live' (or 'sim'), cassette= with mode='replay'"
        )
    replayer = None
    if chosen == "replay":
        from agentlab.live.cassette import Replayer

        if cassette is None:
            raise ValueError(
                "connect(mode='replay') needs cassette=PATH: a file recorded with connect('live', record=PATH)"
            )
        replayer = Replayer.shared(cassette)  # every client of this process continues the same cassette
    model = model or (replayer.recorded_model() if replayer else None) or default_model(chosen)
    meter = Meter(count_tokens=count_parts)
    meter.live_path, meter.live_model = live_path, named
    chain: list[Any] = [meter]
    cap = None
    if max_usd is not None:
        from agentlab.live.spend import SessionCap

        cap = SessionCap(max_usd, meter)
        chain.append(cap)
    chain += list(middleware)
    spend = f"; session cap ${cap.max_usd:g}" if cap else ""
    if chosen == "sim":
        if base_url is not None or transport is not None:
            raise ValueError(
                "connect(mode='sim', base_url=...): the simulator runs in-process; drop base_url, "
                "or use mode='live' to reach the server at base_url"
            )
        sim = Simulator(policy, parallel=parallel, faults=faults)
        if model not in sim.models:
            hint = did_you_mean(model, sim.models) or "`agentlab models` lists them"
            raise ValueError(
                f"connect(model={model!r}): no such model; {hint} (the simulator answers to the models the "
                f"installed anthropic SDK lists; default: {default_model()})"
            )
        if faults is None:  # the simulator is deterministic: without faults a retry gives the same answer
            client_options.setdefault("max_retries", 0)
        answer: Any = sim.transport()
        if record is not None:  # a simulated run recorded too: its replay still says its tokens are estimates
            from agentlab.live.cassette import Recorder

            answer = Recorder.shared(answer, record)
        client = anthropic.Anthropic(
            api_key="sim-no-key-needed",
            base_url=SIM_BASE_URL,
            middleware=chain,
            http_client=httpx2.Client(transport=answer),
            **client_options,
        )
        client.agentlab_simulator = sim  # type: ignore[attr-defined]
        go_live = (
            'ANTHROPIC_API_KEY is set, but this client is simulated: connect("live") (or `--live` on the '
            "command line) uses the key."
            if env_key()
            else "Set ANTHROPIC_API_KEY to go live."
        )
        note = f"agentlab: simulated Claude ({model}), offline; token counts are estimates{spend}. {go_live}"
    elif replayer is not None:
        if faults is not None or base_url is not None:
            raise ValueError(
                "connect(mode='replay', ...): a replay answers from its cassette; drop faults and base_url"
            )
        client_options.setdefault("timeout", LIVE_TIMEOUT)
        client = anthropic.Anthropic(
            api_key="replay-no-key-needed",
            base_url=replayer.base_url(),
            middleware=chain,
            http_client=httpx2.Client(transport=replayer),
            **client_options,
        )
        client.agentlab_replayer = replayer  # type: ignore[attr-defined]
        install_notebook_handler()
        note = (
            f"agentlab: replaying {Path(cassette).name} ({len(replayer.cassette.data)} recorded calls to "
            f"{replayer.base_url()}), offline; usage is what was recorded{spend}."
        )
    else:
        if faults is not None:
            raise ValueError("connect(faults=...) injects faults into the simulator; use it with mode='sim'")
        key = clean_key(api_key) or env_key()
        remember(key)
        if not key and base_url is None:
            raise MissingAPIKey(
                "connect(mode='live') needs an API key: set the ANTHROPIC_API_KEY environment variable "
                "(or pass api_key=...). To run offline instead, use connect(mode='sim') or leave mode='auto' "
                "with no key set."
            )
        target = base_url or os.environ.get("ANTHROPIC_BASE_URL")
        gateway = bool(target) and (key or "").startswith(GATEWAY_TOKEN_PREFIX)  # a class gateway's token
        # a compatible server (neither Anthropic's API nor a class gateway): refused fields degrade (live/compat.py)
        if target and not is_anthropic(target) and not gateway:
            chain.insert(0, LocalServer(target))
        timeout = client_options.pop("timeout", LIVE_TIMEOUT)
        if record is not None or transport is not None:
            from agentlab.live.cassette import Recorder

            inner = transport or httpx2.HTTPTransport()
            sent = Recorder.shared(inner, record) if record is not None else inner
            client_options["http_client"] = httpx2.Client(transport=sent, timeout=timeout)
        client = anthropic.Anthropic(
            api_key=key or "no-key-for-local-server",
            base_url=base_url,
            middleware=chain,
            timeout=timeout,
            **client_options,
        )
        recording = f"; recording to {Path(record).name}" if record is not None else ""
        real = (
            "; usage and cost are real"
            if not target or is_anthropic(target)
            else " through the class gateway (your instructor's key, your budget there: its 429s say what is left)"
            if gateway
            else ", a server that is not Anthropic's API: usage is what it reports, its model is neither Claude nor "
            "the simulator"
        )
        note = (
            f"agentlab: live calls to {client.base_url} with {model}{real}"
            f"{spend or '; no spending cap (connect(max_usd=...))'}{recording}."
        )
        install_notebook_handler()
    meter.client = client
    client.agentlab_model = model  # type: ignore[attr-defined]
    client.agentlab_mode = chosen  # type: ignore[attr-defined]
    client.agentlab_cap = cap  # type: ignore[attr-defined]
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
    """Say which mode is in use: once per kernel as a plain line in a notebook, else on stderr; in the
    notebook's language (:func:`agentlab.views.i18n.tr`: the zh-CN edition reads it in Chinese)."""
    from agentlab.views.i18n import tr

    note = tr(note)
    if not _in_notebook():
        print(note, file=sys.stderr)
    elif note not in _shown:
        _shown.add(note)
        print(note)


def model_of(client: Any) -> str:
    """The default model a client was connected with (``default_model()`` for plain SDK clients)."""
    return getattr(client, "agentlab_model", None) or default_model()


class StandIn:
    """A client as a loop sees it, with one difference: ``messages.create`` is ``create``. Everything else (its
    Meter, its model, ``messages.count_tokens``...) is ``client``'s. Message Batches (``experiments.batching``)
    and message threads (``experiments.threads``) hand one to an ordinary ``run_agent``."""

    def __init__(self, client: Any, create: Any) -> None:
        self._client = client
        self.messages = _Messages(client.messages, create)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class _Messages:
    def __init__(self, messages: Any, create: Any) -> None:
        self._messages, self.create = messages, create

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)
