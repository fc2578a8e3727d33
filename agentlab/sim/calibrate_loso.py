"""Leave one source out: fit the estimator's measured figures on every other public source, measure on the one left out.

The figures ``profiles.json`` calls ``measured`` (a model's hidden tool-use prompt beyond the published one, what a
deferred tool, a ``tool_use`` round trip, thinking, JSON outputs and a task budget add) are fitted on recorded real
requests that isolate one figure each (:func:`subsets`): a figure is the median of ``real - estimate`` over them.
The shipped figures were fitted on pydantic-ai's ``fit`` half only (``scripts/fit_calibration.py``). Here, for each
source in turn, every figure is fitted again from nothing on the *other* sources (pydantic-ai's whole set and the
other projects' recordings), and the source left out is measured with them: the error to expect on traffic the
figures never saw. A model with no fitting request among the others gets no figure (none is borrowed from another
model, as the shipped profiles borrow for a model with no recording).

    agentlab calibrate --loso
"""

from __future__ import annotations

import statistics
from collections import Counter
from contextlib import contextmanager
from typing import Iterator

from agentlab.sim.calibrate import FITTED_ON, Row, bundled, model_id, replay, unseen

STAGES = (
    ("tool_prompt_offset", "thinking_enabled", "thinking_adaptive", "structured_output", "task_budget"),
    ("deferred_tools",),
    ("tool_use_block",),
)
"""The figures in the order ``scripts/fit_calibration.py`` fits them, each stage on top of the ones before: the
tool-use prompt's offset (and the figures no other touches), then what a deferred tool adds to it, then a round trip
(whose requests may carry deferred tools too)."""


def sources() -> dict[str, list[dict]]:
    """Every recorded request, by the public project it was recorded in."""
    out: dict[str, list[dict]] = {FITTED_ON: [{**r, "source": FITTED_ON} for r in bundled()["records"]]}
    for r in unseen()["records"]:
        out.setdefault(str(r.get("source")), []).append(r)
    return out


def subsets(body: dict, row: Row) -> dict[str, float]:
    """The figures this request measures, each with its weight (``tool_use_block``: per block); none for a request
    with server-side work or images, which the figures do not cover."""
    if not row.core or "images" in row.groups:
        return {}
    kinds = [
        b.get("type")
        for m in body["messages"]
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict)
    ]
    tools, thinking = body.get("tools"), (body.get("thinking") or {}).get("type")
    oc = body.get("output_config") or {}
    out: dict[str, float] = {}
    if tools and not thinking and not oc.get("format") and not oc.get("task_budget"):
        n = kinds.count("tool_use")
        deferred = any(isinstance(t, dict) and t.get("defer_loading") for t in tools)
        out["tool_use_block" if n else "deferred_tools" if deferred else "tool_prompt_offset"] = n or 1
    one = len(body["messages"]) == 1
    if not tools and one and thinking in ("enabled", "adaptive") and not oc.get("format") and not oc.get("task_budget"):
        out[f"thinking_{thinking}"] = 1
    if not tools and not thinking and one and oc.get("format"):
        out["structured_output"] = 1
    if not tools and not thinking and oc.get("task_budget"):
        out["task_budget"] = 1
    return out


@contextmanager
def figures(by_model: dict[str, dict[str, float]]) -> Iterator[None]:
    """Every profile's measured figures replaced by ``by_model``'s (none for a model not in it), restored after."""
    from agentlab.api.profiles import profiles

    unique = {id(p): p for p in profiles().values()}.values()  # an alias maps to the same profile
    saved = [(p, dict(p.measured)) for p in unique]
    try:
        for p in unique:
            p.measured.clear()
            p.measured.update(by_model.get(p.id, {}))
        yield
    finally:
        for p, was in saved:
            p.measured.clear()
            p.measured.update(was)


def fit(records: list[dict]) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """The measured figures fitted from nothing on ``records``, by model (``STAGES`` in order), and how many requests
    of each model fitted one. Which figures a request measures does not depend on the figures, so after the first
    stage only the requests that measure a later stage's figures are replayed again."""
    fitted: dict[str, dict[str, float]] = {}
    with figures(fitted):
        first = replay(records)
    measures = [
        subsets(rec["request"], row) if row.estimate is not None and row.real is not None else {}
        for rec, row in zip(records, first)
    ]
    fitting = {}
    for row, used in zip(first, measures):
        fitting[row.model] = fitting.get(row.model, 0) + bool(used)
    for n, stage in enumerate(STAGES):
        picked = [i for i, used in enumerate(measures) if used.keys() & set(stage)]
        if n:
            with figures(fitted):
                rows = dict(zip(picked, replay([records[i] for i in picked])))
        else:
            rows = {i: first[i] for i in picked}
        found: dict[tuple[str, str], list[float]] = {}
        for i in picked:
            row = rows[i]
            for name in stage:
                if name in measures[i]:
                    found.setdefault((row.model, name), []).append((row.real - row.estimate) / measures[i][name])
        for (model, name), residuals in found.items():
            fitted.setdefault(model, {})[name] = round(statistics.median(residuals))
    return fitted, fitting


def needs(body: dict) -> set[str]:
    """The measured figures the estimator adds to ``body`` (``api/tokens.py``: the tool-use prompt and what a
    deferred tool and a round trip add to it, thinking, JSON outputs, a task budget)."""
    out: set[str] = set()
    tools = body.get("tools")
    if tools:
        out.add("tool_prompt_offset")
        if any(isinstance(t, dict) and t.get("defer_loading") for t in tools):
            out.add("deferred_tools")
    blocks = [b for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"]]
    if any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks):
        out.add("tool_use_block")
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        out.add(f"thinking_{thinking['type']}")
    config = body.get("output_config")
    if isinstance(config, dict) and isinstance(config.get("format"), dict):
        out.add("structured_output")
    if isinstance(config, dict) and config.get("task_budget"):
        out.add("task_budget")
    return out


def leave_one_out() -> list[dict]:
    """One row per (source left out, model): its core requests' errors with the shipped figures and with figures
    fitted on the other sources only (``n``; ``fitted_on``: the model's requests among the others that fitted a
    figure, 0 when it got none; ``elsewhere``: the model's requests in the other sources at all; ``shipped`` and
    ``refit``: median absolute error; ``bias``: refit's; ``lacking``: the figures some of its requests need that
    the others did not fit, ``lacking_n`` those requests, ``covered``: the refit's error on the rest, or None)."""
    by_source, out = sources(), []
    for left, records in by_source.items():
        others = [r for name, recs in by_source.items() if name != left for r in recs]
        elsewhere = Counter(model_id(r) for r in others)
        shipped = replay(records)
        fitted, fitting = fit(others)
        with figures(fitted):
            refit = replay(records)
        for model in sorted({r.model for r in refit}):
            rows = [
                (a.error, b.error, needs(rec["request"]) - fitted.get(model, {}).keys())
                for rec, a, b in zip(records, shipped, refit)
                if b.model == model and b.core and b.error is not None
            ]
            if rows:
                covered = [abs(b) for _, b, missing in rows if not missing]
                out.append(
                    {
                        "source": left,
                        "model": model,
                        "n": len(rows),
                        "fitted_on": fitting.get(model, 0),
                        "elsewhere": elsewhere[model],
                        "shipped": statistics.median(abs(a) for a, _, _ in rows),
                        "refit": statistics.median(abs(b) for _, b, _ in rows),
                        "bias": statistics.median(b for _, b, _ in rows),
                        "lacking": sorted(set().union(*(missing for _, _, missing in rows))),
                        "lacking_n": sum(bool(missing) for _, _, missing in rows),
                        "covered": statistics.median(covered) if covered else None,
                    }
                )
    return out


BAR = 0.05
"""Issue 46's bar: a median absolute error of at most 5% on the source left out."""
MIN_REQUESTS = 5
"""The bar holds for a model with at least this many recorded requests in the source left out."""
WHY = {
    "en": {
        "few": "fewer than 5 requests",
        "within": "within 5%",
        "alone": "no other source records it: nothing to fit on",
        "unfitted": "the others' {elsewhere} requests of it fit no figure",
        "lacking": "{lacking_n} of {n} need a figure the others never fitted ({names}); the other {rest}: {covered}",
        "missed": "missed (bias {bias:+.1%})",
    },
    "zh-CN": {
        "few": "请求少于 5 个",
        "within": "在 5% 以内",
        "alone": "没有别的来源录制过它：无从拟合",
        "unfitted": "其余来源里它的 {elsewhere} 个请求都没有拟合出数字",
        "lacking": "{n} 个里有 {lacking_n} 个需要其余来源从未拟合的数字（{names}）；其余 {rest} 个：{covered}",
        "missed": "未达到（bias {bias:+.1%}）",
    },
}
"""What a row says of the bar, by :func:`kind`, as the CLI (en) and the simulator pages print it."""


def kind(row: dict) -> str:
    """What ``row`` says of the 5% bar: ``few`` requests to judge, ``within`` it, or why it misses: ``alone`` (no
    other source records the model), ``unfitted`` (the others' requests of it fit no figure), ``lacking`` (some
    of its requests need a figure the others never fitted), or ``missed`` (none of these)."""
    if row["n"] < MIN_REQUESTS:
        return "few"
    if row["refit"] <= BAR:
        return "within"
    if row["elsewhere"] == 0:
        return "alone"
    if row["fitted_on"] == 0:
        return "unfitted"
    return "lacking" if row["lacking_n"] else "missed"


def why(row: dict, lang: str = "en") -> str:
    """:func:`kind`, in words."""
    shown = {**row, "covered": "—" if row["covered"] is None else f"{row['covered']:.1%}"}
    return WHY[lang][kind(row)].format(**shown, rest=row["n"] - row["lacking_n"], names=", ".join(row["lacking"]))


SUMMARY = {
    "en": (
        "Of the {judged} rows held to it: {within} within it; {alone} of a model no other source records "
        "(nothing to fit on); {unfitted} of a model whose requests in the other sources fit no figure; {lacking} "
        "where some requests need a figure the other sources never fitted (the column names it, with the error "
        "on the row's other requests: over 5% in {over} of them); {missed} missed for none of these reasons."
    ),
    "zh-CN": (
        "按这个标准衡量的 {judged} 行里：{within} 行在 5% 以内；{alone} 行的模型没有别的来源录制过（无从拟合）；"
        "{unfitted} 行的模型在其余来源里的请求都没有拟合出数字；{lacking} 行有一部分请求需要其余来源从未拟合过的数字"
        "（最后一栏写出是哪些，以及这一行其余请求的误差，其中 {over} 行仍超过 5%）；{missed} 行不属于以上任何一种，"
        "却仍未达到。"
    ),
}


def summary(rows: list[dict], lang: str = "en") -> str:
    """How many rows held to the bar are of each :func:`kind`, in words (the simulator pages' paragraph)."""
    kinds = [kind(r) for r in rows]
    counts = {k: kinds.count(k) for k in WHY["en"]}
    over = sum(k == "lacking" and (r["covered"] is None or r["covered"] > BAR) for k, r in zip(kinds, rows))
    return SUMMARY[lang].format(**counts, judged=len(rows) - counts["few"], over=over)


LOSO_ABOUT = (
    "agentlab calibrate --loso, by model: each public source left out in turn, the estimator's figures fitted on the "
    "other sources only and measured on it ('error': the median absolute relative error of its input tokens, a "
    "fraction: 0.0557 is 5.6%), for every model with at least "
    "5 requests in the source left out; 'bar' says what the row says of the 5% bar and 'why' why it misses it. "
    "Written by scripts/build_kit.py pages with docs/*/simulator_results.md; tests/sim/test_calibrate_loso.py "
    "holds it to a fresh run."
)
"""What ``profiles.json``'s ``measured.loso`` holds, said there."""


def loso_by_model(rows: list[dict]) -> dict:
    """The rows held to the 5% bar, by model, as ``profiles.json`` keeps them (``measured.loso``): how far each
    model's estimate is off on a source no figure was fitted on, and why it misses the bar."""
    out: dict = {"_about": LOSO_ABOUT}
    for r in ordered(rows):
        if kind(r) != "few":
            out.setdefault(r["model"], []).append(
                {"left_out": r["source"], "n": r["n"], "error": round(r["refit"], 4), "bar": kind(r), "why": why(r)}
            )
    return out


def ordered(rows: list[dict]) -> list[dict]:
    """The rows by model, then most requests first: the order of the CLI's table and the docs' one."""
    return sorted(rows, key=lambda r: (r["model"], -r["n"]))


def loso_table(rows: list[dict]) -> str:
    """The rows as the CLI prints them, each with what it says of the 5% bar (:func:`why`)."""
    lines = [
        "Leave one source out: each source's core requests measured with the shipped figures (fitted on half of",
        "pydantic-ai's, so its rows are partly in sample) and with figures fitted from nothing on the other sources",
        "only ('fitted on': the model's requests there that fitted one; 0: it got none). Median absolute error;",
        "bias of the refit; the 5% bar (issue 46) for a model with 5 requests or more in the source left out.",
        f"  {'model':20} {'left out':32} {'n':>4} {'fitted on':>9}  {'shipped':>8}  {'refit':>8}  {'bias':>7}  5% bar",
    ]
    for r in ordered(rows):
        lines.append(
            f"  {r['model']:20} {r['source']:32} {r['n']:4} {r['fitted_on']:9}  {r['shipped']:8.1%}  "
            f"{r['refit']:8.1%}  {r['bias']:+7.1%}  {why(r)}"
        )
    return "\n".join(lines)
