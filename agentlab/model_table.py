"""The simulator's model profiles as a table, with prices from genai-prices (``agentlab models``)."""

from __future__ import annotations

from .accounting import cost_usd
from .sim.profiles import Profile, profiles, read_date


def price_per_mtok(model: str) -> tuple[float | None, float | None]:
    """USD per million input tokens and per million output tokens (genai-prices), ``None`` when unknown."""
    per_k = (cost_usd(model, {"input_tokens": 1000}), cost_usd(model, {"output_tokens": 1000}))  # below long-context tiers
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
        out.append({"model": p.id, "status": p.status, "context": _k(p.context_window), "max_out": _k(p.max_output),
                    "tool_prompt": f"{p.tool_prompt[0]}/{p.tool_prompt[1]}{'*' if p.tool_prompt_note else ''}",
                    "tokenizer": f"x{p.tokenizer:g}", "forced": "yes" if p.forced_tool_choice else "no",
                    "prefill": "yes" if p.prefill else "no", "thinking": p.thinking,
                    "in_per_mtok": _money(inp), "out_per_mtok": _money(outp), "note": p.tool_prompt_note})
    return out


def models_table(include_retired: bool = False) -> str:
    """The profiles as aligned text, with a footnote for every stand-in figure and the sources' date."""
    table = rows(include_retired)
    cols = ["model", "status", "context", "max_out", "tool_prompt", "tokenizer", "forced", "prefill", "thinking",
            "in_per_mtok", "out_per_mtok"]
    heads = {"tool_prompt": "tool prompt auto/any", "forced": "forced tool_choice", "in_per_mtok": "$ in/MTok",
             "out_per_mtok": "$ out/MTok", "max_out": "max output"}
    widths = {c: max(len(heads.get(c, c)), *(len(r[c]) for r in table)) for c in cols}
    lines = ["  ".join(heads.get(c, c).ljust(widths[c]) for c in cols)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in cols) for r in table]
    notes = [f"* {r['model']}: {r['note']}" for r in table if r["note"]]
    lines += ["", *notes, "",
              f"Figures read {read_date()}; each figure's source is in agentlab/sim/data/profiles.json. "
              "Prices from genai-prices (unknown: no price known, never 0). Token counts in the simulator are estimates."]
    return "\n".join(lines)
