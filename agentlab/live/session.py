"""One process's choice of mode, set once by a notebook's parameter cell, and connect()'s keyword check.

``use(mode, cassette=, record=, max_usd=)`` records where every later ``connect()`` in auto mode sends
its calls (``connect`` reads it through :func:`session_defaults`); calling it again, as rerunning a
notebook does, starts the shared recordings and replays afresh.
"""

from __future__ import annotations

import difflib
import inspect
import os
from typing import Any

from agentlab.live.keys import env_key

MODES = ("auto", "sim", "live", "replay")
"""The modes ``connect`` takes."""

_defaults: dict[str, Any] = {}
"""What ``use()`` set for this process: the mode, cassette, recording and cap ``connect()`` applies."""


def use(
    mode: str = "auto",
    *,
    cassette: str | os.PathLike | None = None,
    record: str | os.PathLike | None = None,
    max_usd: float | None = None,
    confirm: bool = False,
) -> None:
    """Set, for every later ``connect()`` in this process that does not say otherwise, where calls go:
    ``"sim"``, ``"replay"`` (from ``cassette``), ``"live"`` (optionally recording to ``record``, capped at
    ``max_usd`` for the session) or ``"auto"``. A notebook's parameter cell calls it once (it returns
    nothing, so the cell shows nothing). Live, it first shows the notebook's expected cost and, above a
    threshold, asks to confirm (``confirm=True`` confirms ahead); live or replayed, it says that results
    marked [scripted model] describe the simulator (``agentlab.live.costs.announce``)."""
    from agentlab.live.cassette import forget
    from agentlab.live.costs import NotConfirmed, announce

    if mode not in MODES:
        close = difflib.get_close_matches(str(mode), MODES, n=1)
        raise ValueError(
            f"use(mode={mode!r}): mode must be 'auto', 'sim', 'live' or 'replay'"
            f"{f'; did you mean {close[0]!r}?' if close else ''}"
        )
    forget()
    if mode == "replay" and cassette is None:
        raise ValueError("agentlab.use('replay') needs cassette=PATH: a file recorded with record=PATH in live mode")
    _defaults.clear()
    try:
        announce("live" if mode == "auto" and env_key() else mode, max_usd, confirm)
    except NotConfirmed:
        _defaults["mode"] = "sim"  # a later cell run by hand stays offline
        raise
    _defaults.update(
        {
            k: v
            for k, v in {"mode": mode, "cassette": cassette, "record": record, "max_usd": max_usd}.items()
            if v is not None
        }
    )
    if record is not None and session_defaults(None, None, None)[0] == "live":
        from agentlab.live.cassette import begin

        begin(record)  # a notebook whose every call is simulated still leaves its (empty) cassette
    from agentlab.live.errors import install_notebook_handler

    install_notebook_handler()  # cells run out of order, an exercise edited unseen: one line each
    from agentlab.views.i18n import show_tables_in_language

    show_tables_in_language()  # a zh-CN notebook shows its tables' labels in Chinese (display only)


def session_defaults(cassette: Any, record: Any, max_usd: Any) -> tuple[str, Any, Any, Any]:
    """``(mode, cassette, record, max_usd)`` for a ``connect("auto")``: what ``use()`` set, where the call
    gave nothing of its own; ``"auto"`` and the call's values when ``use()`` was never called."""
    if not _defaults:
        return "auto", cassette, record, max_usd
    mode = _defaults.get("mode", "auto")
    if mode == "auto":
        mode = "live" if env_key() else "sim"
    if mode == "replay" and cassette is None:
        cassette = _defaults.get("cassette")
    if mode == "live" and record is None:
        record = _defaults.get("record")
    if mode in ("live", "replay") and max_usd is None:
        max_usd = _defaults.get("max_usd")
    return mode, cassette, record, max_usd


def check_options(options: dict, ours: list[str]) -> None:
    """Refuse a keyword neither ``connect()`` (``ours``) nor ``anthropic.Anthropic()`` takes, naming the closest."""
    import anthropic

    sdk = [
        n for n in inspect.signature(anthropic.Anthropic.__init__).parameters if n != "self" and not n.startswith("_")
    ]
    for name in options:
        if name not in sdk or name in ("middleware", "base_url", "api_key"):
            close = difflib.get_close_matches(name, [*ours, *sdk], n=3, cutoff=0.6)
            close.sort(key=lambda c: sorted(c) != sorted(name))  # a swapped pair of letters first: modle -> model
            raise TypeError(
                f"connect({name}=...): no such option{f'; did you mean {close[0]}=?' if close else ''} "
                f"(connect takes {', '.join(ours)}, and passes {', '.join(sdk)} on to anthropic.Anthropic)"
            )
