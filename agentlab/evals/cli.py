"""``agentlab eval``: n seeded trials of the agent and the workflow over the task set, offline, and their figures."""

from __future__ import annotations

import argparse
import sys


def _count(flag: str):
    def parse(value: str) -> int:
        if not value.isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(f"{flag} {value!r}: give a whole number >= 1, e.g. {flag} 20")
        return int(value)

    return parse


def add_commands(sub) -> None:
    e = sub.add_parser(
        "eval", help="many seeded trials of the agent and the workflow on the task set: pass@k, pass^k, cost"
    )
    e.add_argument("--trials", type=_count("--trials"), default=20, help="trials of each variant per task (20)")
    e.add_argument("-k", type=_count("-k"), default=5, help="k of pass@k and pass^k (5; at most --trials)")
    e.add_argument("--variants", nargs="+", choices=["agent", "workflow"], default=["agent", "workflow"])
    e.add_argument("--out", default="eval.csv", help="the results, a row a trial; an existing file is resumed")
    e.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from agentlab.evals.trials import run_trials, summarize

    if args.k > args.trials:
        print(
            f"agentlab eval: -k {args.k} needs at least {args.k} trials per task (--trials {args.trials})",
            file=sys.stderr,
        )
        return 2
    try:
        rows = run_trials(args.variants, args.trials, out=args.out)
    except (OSError, KeyError, ValueError) as e:  # an unwritable --out, a results file of another shape
        print(f"agentlab eval: {args.out}: {e}", file=sys.stderr)
        return 1
    rows = [r for r in rows if r["variant"] in args.variants and r["trial"] < args.trials]
    table = summarize(rows, args.k)
    print(table.to_string(float_format=lambda x: f"{x:.3g}"))
    print(
        f"\n[scripted model] offline trials on the simulator with seeded variation at stand-in rates "
        f"(agentlab/sim/models/varied.py): how our scripted model is written, not a measurement of Claude. "
        f"Rows: {args.out}"
    )
    return 0
