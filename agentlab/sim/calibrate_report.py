"""``agentlab calibrate``: the simulator's measured error against recorded real traffic, as a table and a figure.

The measuring is ``calibrate.py``; this module prints it (per model, per request kind, the refusals)
and draws it. ``agentlab/cli.py`` registers the subcommand without importing this module (start-up) and
calls :func:`run`.
"""

from __future__ import annotations

import argparse
import sys

from agentlab.sim.calibrate import (
    FITTED_ON,
    GROUPS,
    Row,
    bundled,
    by_group,
    by_source,
    read_cassettes,
    refusals,
    replay,
    summary,
    unseen,
)

MIN_N = 5
"""Held-out core requests a model needs before its median is held to the target."""
TARGET = 0.05
"""Median absolute error the estimator aims at per model (issue 19)."""


def rows_for(cassettes: list[str] | None = None, split: str = "held_out") -> list[Row]:
    """Replayed rows: the given cassettes; or the bundled pydantic-ai set's ``split`` (``held_out``, ``fit`` or
    ``all``); or ``unseen``, the other projects' recordings; or ``out_of_sample``: ``held_out`` and ``unseen``,
    every recording the estimator was not fitted on."""
    if cassettes:
        return replay(read_cassettes(cassettes))
    records = []
    if split != "unseen":
        own = f"{FITTED_ON} (held out)" if split in ("held_out", "out_of_sample") else FITTED_ON
        keep = {"out_of_sample": "held_out"}.get(split, split)
        records = [{**r, "source": own} for r in bundled()["records"] if keep == "all" or r["split"] == keep]
    if split in ("unseen", "out_of_sample"):
        records += unseen()["records"]
    return replay(records)


def _line(name: str, s: dict, target: bool = False, width: int = 30) -> str:
    flag = "  above target" if target and s["n"] >= MIN_N and s["median_abs"] > TARGET else ""
    return f"{name:{width}} {s['n']:4} {s['median_abs']:8.1%} {s['p90_abs']:8.1%} {s['bias']:+8.1%}{flag}"


def table(rows: list[Row]) -> str:
    """The report: per model (core requests, then all), per model and request kind, and the refusals."""
    head = f"{'model':30} {'n':>4} {'median':>8} {'p90':>8} {'bias':>8}"
    out = [
        "input tokens, simulator estimate vs real usage: |error| median and p90, signed median (bias)",
        "",
        "core requests (no server-side work)",
        head,
    ]
    out += [_line(m, s, target=True) for m, s in summary(rows).items()]
    out += [
        f"target: median at most {TARGET:.0%} for a model with {MIN_N}+ core requests",
        "",
        "all requests (server tools included)",
        head,
    ]
    out += [_line(m, s) for m, s in summary(rows, core_only=False).items()]
    sources = by_source(rows)
    if len({s for s, _ in sources}) > 1:
        width = max(len(f"{m} <- {s}") for s, m in sources)
        out += [
            "",
            "by source (core requests; none of these was fitted on)",
            f"{'model <- source':{width}}" + head[30:],
        ]
        out += [_line(f"{m} <- {s}", st, target=True, width=width) for (s, m), st in sources.items()]
    out += ["", "by request kind (a request counts in each kind it carries)", head]
    out += [
        _line(f"{m} {g}", s)
        for (m, g), s in sorted(by_group(rows).items(), key=lambda kv: (kv[0][0], GROUPS.index(kv[0][1])))
    ]
    out += ["", "no recording (figures are as published or stood in, error unknown): " + ", ".join(unrecorded())]
    refused = refusals(rows)
    out += ["", f"refused by the simulator though the API answered 200: {len(refused)}"]
    out += [f"  {r.model}  {r.cassette.rsplit('/', 1)[-1]}: {r.refused[:160]}" for r in refused]
    return "\n".join(out)


def unrecorded() -> list[str]:
    """Models the simulator answers for that have no recording in the calibration set (the default first)."""
    from agentlab.api.profiles import profile_data, profiles

    data = profile_data()
    recorded = set(data["measured"]["recorded"])
    ids = sorted({p.id for p in profiles().values() if not p.retired and p.id not in recorded})
    default = data["default"]
    return [f"{default} (the default)"] * (default in ids) + [i for i in ids if i != default]


def figure(rows: list[Row]):
    """A bar chart of each model's median absolute error (core requests), with the target line."""
    import matplotlib.pyplot as plt

    stats = summary(rows)
    names = list(stats)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(names) + 1.2))
    ax.barh(
        names,
        [100 * stats[n]["median_abs"] for n in names],
        color=["#c44" if stats[n]["median_abs"] > TARGET else "#4a4" for n in names],
    )
    for i, n in enumerate(names):
        ax.text(100 * stats[n]["median_abs"], i, f"  n={stats[n]['n']}", va="center", fontsize=8)
    ax.axvline(100 * TARGET, color="k", linestyle="--", linewidth=1)
    ax.invert_yaxis()
    ax.set_xlabel("median |estimate - real| / real, % (core requests)")
    ax.set_title("Simulated input tokens vs recorded real usage")
    fig.tight_layout()
    return fig


def unseen_sources() -> dict[str, dict]:
    """The other projects' recordings by name (``owner/name``): commit, its date, and its licence's first line."""
    return {
        src["repository"].removeprefix("https://github.com/"): {
            "commit": src["commit"][:12],
            "committed": src.get("committed", ""),
            "licence": next((line.strip() for line in src["licence"].splitlines() if line.strip()), ""),
        }
        for src in unseen()["sources"]
    }


def _sources(args: argparse.Namespace) -> str:
    """Where the rows came from, each source with its commit and licence."""
    if args.cassettes:
        return "your cassettes"
    named = []
    if args.split != "unseen":
        named.append(f"{FITTED_ON} {bundled()['commit'][:12]} ({args.split.replace('out_of_sample', 'held_out')}), MIT")
    if args.split in ("unseen", "out_of_sample"):
        named += [f"{name} {p['commit']}, {p['licence']}" for name, p in unseen_sources().items()]
    return "; ".join(named)


def run(args: argparse.Namespace) -> int:
    """``agentlab calibrate``: print the table (and write the figure), or with ``--loso`` the leave-one-source-out one."""
    if getattr(args, "loso", False):
        given = [
            *args.cassettes,
            *(["--png"] if args.png else []),
            *([f"--split {args.split}"] if args.split != "held_out" else []),
        ]
        if given:
            print(
                f"agentlab calibrate --loso: got {' '.join(given)}; --loso measures the bundled public sources, "
                "so give it no cassette, --split or --png",
                file=sys.stderr,
            )
            return 2
        from agentlab.sim.calibrate_loso import leave_one_out, loso_table

        print(loso_table(leave_one_out()))
        return 0
    try:
        rows = rows_for(args.cassettes, args.split)
    except (OSError, ValueError) as e:
        print(f"agentlab calibrate: could not read the cassettes: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("agentlab calibrate: no POST /v1/messages interaction in the cassettes given", file=sys.stderr)
        return 2
    print(f"{len(rows)} recorded requests from {_sources(args)}\n")
    print(table(rows))
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        figure(rows).savefig(args.png, dpi=110)
        print(f"\nfigure: {args.png}")
    return 0
