"""Prices: what a call's ``usage`` costs in USD, from genai-prices, and the model table (``agentlab models``).

One home for every price in the lab. :func:`cost_usd` is the only place that calls genai-prices; it
prices cache reads and writes apart from plain input, and 1-hour cache writes at their higher rate
when the usage carries the API's 5m / 1h split (``usage["cache_creation"]``). It reads the usage
through :class:`~agentlab.meter.usage.Usage`. A model with no known price costs ``None``, never 0.
:func:`price_source` names the price data and how recent it is, for every figure that shows money.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import metadata, resources

from agentlab.api.profiles import Profile, profiles, read_date
from agentlab.meter.usage import Usage

BATCH = {"processing": "batch"}
"""genai-prices' price context for a call served through the Message Batches API."""


@lru_cache(maxsize=4096)
def _price(model: str, usage: Usage, batch: bool = False) -> float | None:
    from genai_prices import extract_usage

    try:
        return float(
            extract_usage({"model": model, "usage": usage.as_api()}, provider_id="anthropic")
            .calc_price(price_context=BATCH if batch else None)
            .total_price
        )
    except LookupError:
        return None


def cost_usd(model: str, usage: dict | Usage, batch: bool = False) -> float | None:
    """USD price of one call's ``usage`` for ``model`` (genai-prices), or ``None`` if the price is unknown.

    ``usage`` is the API's usage JSON (missing counts are 0) or a :class:`~agentlab.meter.usage.Usage`.
    1-hour cache writes are priced at their rate when it says how many there were
    (``cache_creation.ephemeral_1h_input_tokens``). ``batch=True``: the call was served through the
    Message Batches API, billed at 50% of the standard price, cache reads and writes included
    (https://platform.claude.com/docs/en/build-with-claude/batch-processing#pricing); genai-prices keeps
    those rates as its ``processing: batch`` price variant.
    """
    return _price(model, usage if isinstance(usage, Usage) else Usage.from_api(usage), batch)


usage_cost_usd = cost_usd
"""The same function under the name notebook 09 teaches: it reads the 5m / 1h split of cache writes."""


_CHECKED = re.compile(r"(?:checked|verified|as of|retrieved)(?: on)?\s+(20\d\d-\d\d-\d\d)", re.IGNORECASE)


@lru_cache(maxsize=1)
def price_data_date() -> tuple[str, str | None]:
    """genai-prices' version and the newest date its bundled price data says it was checked on.

    The package carries no snapshot date field; its price notes say when prices were checked
    ("verified on 2026-10-14", "as of ..."), and the newest of those dates is the data's date.
    """
    version = metadata.version("genai-prices")
    text = resources.files("genai_prices").joinpath("data.py").read_text("utf-8")
    dates = _CHECKED.findall(text)
    return version, max(dates) if dates else None


def price_source() -> str:
    """One line naming the price data and its date."""
    version, date = price_data_date()
    return f"prices: genai-prices {version}, price data checked up to {date or 'an unstated date'}"


def long_prompt_tier(model: str) -> tuple[int, float, float] | None:
    """Where ``model`` charges more for a long prompt (genai-prices' first tier): the prompt size in tokens from
    which every token of a call is billed at the higher rates, and those input and output USD per million
    tokens; ``None`` for a model with one price at any length (or no known price)."""
    from datetime import datetime, timezone

    from genai_prices import data_snapshot
    from genai_prices.types import TieredPrices

    try:
        _, info = data_snapshot.get_snapshot().find_provider_model(model, None, "anthropic", None)
    except LookupError:
        return None
    prices = info.get_prices(datetime.now(timezone.utc))  # the price in force today, as cost_usd uses it
    tiered = prices.input_mtok if isinstance(prices.input_mtok, TieredPrices) else None
    if tiered is None or not tiered.tiers:
        return None
    first = tiered.tiers[0]
    out = prices.output_mtok
    out_rate = (
        next((t.price for t in out.tiers if t.start == first.start), out.base) if isinstance(out, TieredPrices) else out
    )
    return first.start, float(first.price), float(out_rate)


def price_per_mtok(model: str) -> tuple[float | None, float | None]:
    """USD per million input tokens and per million output tokens (genai-prices), ``None`` when unknown."""
    per_k = (
        cost_usd(model, {"input_tokens": 1000}),
        cost_usd(model, {"output_tokens": 1000}),
    )  # below long-context tiers
    return tuple(None if x is None else round(x * 1000, 6) for x in per_k)  # type: ignore[return-value]


def _money(x: float | None) -> str:
    return "unknown" if x is None else f"${x:g}"


def _k(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1000}K"


def rows(include_retired: bool = False) -> list[dict]:
    """One row per model (aliases folded into their model), newest table order."""
    seen: dict[str, Profile] = {}
    for p in profiles().values():
        if p.id not in seen and (include_retired or not p.retired):
            seen[p.id] = p
    out = []
    for p in seen.values():
        inp, outp = price_per_mtok(p.id)
        out.append(
            {
                "model": p.id,
                "status": _status(p),
                "context": _k(p.context_window),
                "max_out": _k(p.max_output),
                "tool_prompt": f"{p.tool_prompt[0]}/{p.tool_prompt[1]}{'*' if p.tool_prompt_note else ''}",
                "tokenizer": f"x{p.tokenizer:g}",
                "forced": "yes" if p.forced_tool_choice else "no",
                "prefill": "yes" if p.prefill else "no",
                "thinking": p.thinking,
                "in_per_mtok": _money(inp),
                "out_per_mtok": _money(outp),
                "note": p.tool_prompt_note,
            }
        )
    return out


def _status(p: Profile) -> str:
    """The lifecycle as of today: ``retired`` once past the retirement day, else the status and any day announced."""
    if p.retired:
        return "retired" + (f" {p.retires}" if p.retires else "")
    return p.status + (f", retires {p.retires}" if p.retires else "")


def models_table(include_retired: bool = False) -> str:
    """The profiles as aligned text, with a footnote for every stand-in figure and the sources' date."""
    table = rows(include_retired)
    cols = [
        "model",
        "status",
        "context",
        "max_out",
        "tool_prompt",
        "tokenizer",
        "forced",
        "prefill",
        "thinking",
        "in_per_mtok",
        "out_per_mtok",
    ]
    heads = {
        "tool_prompt": "tool prompt auto/any",
        "forced": "forced tool_choice",
        "in_per_mtok": "$ in/MTok",
        "out_per_mtok": "$ out/MTok",
        "max_out": "max output",
    }
    widths = {c: max(len(heads.get(c, c)), *(len(r[c]) for r in table)) for c in cols}
    lines = ["  ".join(heads.get(c, c).ljust(widths[c]) for c in cols)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in cols) for r in table]
    notes = [f"* {r['model']}: {r['note']}" for r in table if r["note"]]
    lines += [
        "",
        *notes,
        "",
        f"Figures read {read_date()}; each figure's source is in agentlab/api/data/profiles.json. "
        "Prices from genai-prices (unknown: no price known, never 0). Token counts in the simulator are estimates.",
    ]
    return "\n".join(lines)
