"""Model profiles: what the simulated API knows about each model id, read from ``data/profiles.json``.

One profile per exact model id (plus its dated aliases): no prefix matching, so a newer model never
silently inherits an older model's figures. The estimator (tool-use prompt, tokenizer factor), the
validator (limits, forced ``tool_choice``, prefill, sampling, thinking) and the policies' wrapper
(thinking blocks between tool calls) all read these profiles. Each figure names a source in the file.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class Profile:
    """One model as the simulator plays it."""

    id: str
    """The exact model id (``claude-sonnet-5-5``)."""
    name: str
    """Display name (``Claude Sonnet 5.5``)."""
    status: str
    """``active``, ``legacy``, ``deprecated`` (answers until ``retires``) or ``retired`` (answers ``404 not_found_error``)."""
    context_window: int
    """Maximum input tokens."""
    max_output: int
    """Maximum ``max_tokens``; above it the API answers 400."""
    tool_prompt: tuple[int, int]
    """Hidden tool-use system prompt tokens: (``auto``/``none``, ``any``/``tool``)."""
    tool_prompt_note: str
    """Empty when the figure is this model's own; else which model's figure stands in, and why."""
    tokenizer: float
    """Tokens per token of the reference (pre-Opus-4.7) tokenizer: about 1.3 for the newer tokenizer."""
    forced_tool_choice: bool
    """Whether ``tool_choice`` ``any``/``tool`` is accepted."""
    prefill: bool
    """Whether a final ``assistant`` message (prefill) is accepted."""
    sampling: str
    """Under API version 2023-06-01: ``any`` (accepted), ``defaults_only`` or ``none`` (deprecated)."""
    thinking: str
    """``none``, ``extended``, ``adaptive`` (off by default), ``adaptive_default`` or ``adaptive_always``."""
    thinking_types: tuple[str, ...]
    """Accepted ``thinking.type`` values."""
    thinking_between_tools: bool
    """Text the model writes between tool calls comes back in ``thinking`` blocks."""
    sources: dict
    """Source (URL and what it says) of each figure, by field."""
    aliases: tuple[str, ...] = ()
    """Other exact ids of the same model (dated snapshots)."""
    system_messages: bool = False
    """Whether ``role: "system"`` messages are accepted inside ``messages`` (recorded for Opus 4.8 and Fable 5)."""
    text_before_tool_use: bool = True
    """False where recorded real replies never put text before a ``tool_use`` (Sonnet 5 and Fable 5: 0 of 6)."""
    thinks_before_server_tools: bool = False
    """True where recorded real replies that use a server tool carry an empty signed ``thinking`` block before
    it though no ``thinking`` was asked for (Sonnet 5: 8 of 8 such replies; none in its 4 other replies)."""
    measured: dict = field(default_factory=dict)
    """Figures measured on recorded real traffic (``measured`` in the data file): hidden prompts, tool-use wrappers."""
    measured_note: str = ""
    """Whose measured figures these are: this model's own, or the stand-in model's (and why)."""
    retires: date | None = None
    """The day (UTC) from which the API answers ``404 not_found_error`` for this model; ``None``: none announced."""
    sampling_exclusive: bool = False
    """Whether ``temperature`` and ``top_p`` together are refused (the Claude 4.5 and 4.6 models)."""

    @property
    def retired(self) -> bool:
        """True when requests to this model fail with ``not_found_error`` today (the machine's UTC date)."""
        return self.retired_on(today())

    def retired_on(self, day: date) -> bool:
        """True when requests to this model made on ``day`` fail with ``not_found_error``."""
        return self.status == "retired" or (self.retires is not None and day >= self.retires)

    @property
    def thinks_by_default(self) -> bool:
        """True when a request without ``thinking`` runs with thinking on."""
        return self.thinking in ("adaptive_default", "adaptive_always")


@lru_cache(maxsize=1)
def profile_data() -> dict:
    """The whole of ``data/profiles.json`` (profiles, aliases, the default model, the date read)."""
    return json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))


def _build(row: dict, rows: dict[str, dict], data: dict) -> Profile:
    src = data["sources"]
    if row.get("tool_prompt"):
        prompt, note = row["tool_prompt"], ""
    else:
        other = rows[row.get("tool_prompt_from") or data["fallback_tool_prompt"]["from"]]
        prompt = other["tool_prompt"]
        note = (
            f"{other['name']} figure stands in: {row.get('tool_prompt_note') or data['fallback_tool_prompt']['note']}"
        )
    sources = {
        field: src[row[key]]
        for field, key in (
            ("limits", "limits_source"),
            ("tokenizer", "tokenizer_source"),
            ("forced_tool_choice", "forced_source"),
            ("prefill", "prefill_source"),
            ("sampling", "sampling_source"),
            ("thinking", "thinking_source"),
        )
    }
    sources["tool_prompt"] = src[row.get("tool_prompt_source", "tool_prompt")]
    measured, measured_note = _measured(row, data)
    sources["measured"] = data["measured"]["source"]
    for key in (
        "system_messages",
        "retires",
        "sampling_exclusive",
        "text_before_tool_use",
        "thinks_before_server_tools",
    ):
        if row.get(f"{key}_source"):
            sources[key] = src[row[f"{key}_source"]]
    return Profile(
        id=row["id"],
        name=row["name"],
        status=row["status"],
        context_window=row["context_window"],
        max_output=row["max_output"],
        tool_prompt=(prompt["auto_none"], prompt["any_tool"]),
        tool_prompt_note=note,
        tokenizer=float(row["tokenizer"]),
        forced_tool_choice=row["forced_tool_choice"],
        prefill=row["prefill"],
        sampling=row["sampling"],
        thinking=row["thinking"],
        thinking_types=tuple(row["thinking_types"]),
        thinking_between_tools=row["thinking_between_tools"],
        sources=sources,
        aliases=tuple(row.get("aliases", ())),
        measured=measured,
        measured_note=measured_note,
        system_messages=bool(row.get("system_messages", False)),
        retires=date.fromisoformat(row["retires"]) if row.get("retires") else None,
        sampling_exclusive=bool(row.get("sampling_exclusive", False)),
        text_before_tool_use=bool(row.get("text_before_tool_use", True)),
        thinks_before_server_tools=bool(row.get("thinks_before_server_tools", False)),
    )


def _measured(row: dict, data: dict) -> tuple[dict, str]:
    """The model's measured figures: its own where it has recordings, else its tokenizer generation's stand-in's."""
    table = data["measured"]
    if row["id"] not in table["recorded"]:
        return {}, f"{row['name']}: no recording, so no measured figure (its figures are as published or stood in)"
    own = {k: v for k, v in table["by_model"].get(row["id"], {}).items() if not k.startswith("_")}
    stand_in = table["stand_in"][str(float(row["tokenizer"]))]
    if stand_in == row["id"]:
        return own, f"{row['name']}: measured on its own recordings"
    borrowed = {k: v for k, v in table["by_model"][stand_in].items() if not k.startswith("_")}
    missing = sorted(set(borrowed) - set(own))
    note = f"{row['name']}: " + (
        "measured on its own recordings"
        if not missing
        else f"{', '.join(missing)} from {stand_in} (no fit recording of this model shows it)"
    )
    return {**borrowed, **own}, note


@lru_cache(maxsize=1)
def profiles() -> dict[str, Profile]:
    """Every profile by exact id, aliases included (an alias maps to the same profile)."""
    data = profile_data()
    rows = {r["id"]: r for r in data["profiles"]}
    out: dict[str, Profile] = {}
    for row in data["profiles"]:
        p = _build(row, rows, data)
        for key in (p.id, *p.aliases):
            out[key] = p
    return out


def profile(model: str) -> Profile | None:
    """The profile for exactly ``model``, or ``None`` (no prefix matching)."""
    return profiles().get(model)


def read_date() -> str:
    """When the figures in the profile table were read."""
    return profile_data()["read"]


def today(clock: object = None) -> date:
    """The day the simulator plays: the clock's own ``today()`` (a ``SimClock``), else the machine's UTC date."""
    own = getattr(clock, "today", None)
    return own() if callable(own) else datetime.now(timezone.utc).date()


DEFAULT_MODEL: str = profile_data()["default"]
"""The model used when none is given (``data/profiles.json``; ``AGENTLAB_MODEL`` overrides it, see ``client.default_model``)."""


def model_catalog(day: date | None = None) -> dict:
    """The default model and every id the simulator answers to on ``day`` (default: today, UTC): the profiles not retired."""
    day = day or today()
    return {"default": DEFAULT_MODEL, "models": sorted(k for k, p in profiles().items() if not p.retired_on(day))}


def did_you_mean(asked: str, known=None) -> str | None:
    """``"did you mean 'a' or 'b'?"`` for the ids close to ``asked`` among ``known`` (default: today's
    catalog), or None when none is close: the one suggestion that every "no such model" message gives."""
    close = difflib.get_close_matches(
        str(asked), sorted(known if known is not None else model_catalog()["models"]), n=3, cutoff=0.6
    )
    return f"did you mean {' or '.join(map(repr, close))}?" if close else None
