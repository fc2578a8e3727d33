"""``agentlab eval``: n trials of the agent and the workflow over the task set, and their figures.

Offline (the default) on the simulator with seeded variation; ``--live`` on the real API, after a preview of
what it will send and through a spending cap (``--max-usd``), optionally recorded (``--record``) so that
``--replay`` shows the same eval offline.
"""

from __future__ import annotations

import argparse
import sys

LIVE_MAX_USD = 0.50
"""``--live``'s spending cap when ``--max-usd`` is not given, in USD: several times what the default eval (20 trials
of each variant on each task) costs at the live default model by the simulator's estimate (a test holds it so);
the preview prints that estimate for the trials asked."""


def _count(flag: str):
    def parse(value: str) -> int:
        if not value.isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(f"{flag} {value!r}: give a whole number >= 1, e.g. {flag} 20")
        return int(value)

    return parse


def add_commands(sub) -> None:
    e = sub.add_parser("eval", help="many trials of the agent and the workflow on the task set: pass@k, pass^k, cost")
    e.add_argument("--trials", type=_count("--trials"), default=20, help="trials of each variant per task (20)")
    e.add_argument("-k", type=_count("-k"), default=5, help="k of pass@k and pass^k (5; at most --trials)")
    e.add_argument("--variants", nargs="+", choices=["agent", "workflow"], default=["agent", "workflow"])
    e.add_argument("--out", default="eval.csv", help="the results, a row a trial; an existing file is resumed")
    where = e.add_mutually_exclusive_group()
    where.add_argument("--live", action="store_true", help="on the real API (ANTHROPIC_API_KEY), capped")
    where.add_argument("--replay", metavar="CASSETTE", help="replay a live eval recorded with --record, offline")
    e.add_argument(
        "--record", metavar="CASSETTE", help="with --live: record this session's calls, to --replay into a fresh --out"
    )
    e.add_argument("--max-usd", type=float, default=None, help=f"with --live: the cap (default {LIVE_MAX_USD:g})")
    e.add_argument("--model", default=None, help="with --live or --replay: the model (default: the client's)")
    e.set_defaults(handler=run)


def _preview(args: argparse.Namespace, model: str, cap: float) -> str:
    """What the live eval will send, from one simulated trial of each variant per task at ``model``."""
    from agentlab.evals.tasks import TASKS
    from agentlab.experiments.preview import preview

    calls, usd = 0, 0.0
    for task in TASKS:
        for variant in args.variants:
            one = preview(list(task.cities), model, variant)
            calls += one.calls * args.trials
            usd = usd + one.cost_usd * args.trials if one.cost_usd is not None and usd is not None else None
    cost = "an unknown price" if usd is None else f"about ${usd:.2f}"
    stop = "" if usd is None or usd <= cap else "; the cap stops it before the end: raise --max-usd to run it all"
    return (
        f"agentlab eval --live: about {calls} calls and {cost} at {model} (the simulator's estimate, one careful "
        f"run a trial), capped at ${cap:g}{stop}. Finished trials are kept in {args.out}."
    )


def run(args: argparse.Namespace) -> int:
    from agentlab.evals.trials import CapReached, run_trials, summarize

    if args.k > args.trials:
        print(
            f"agentlab eval: -k {args.k} needs at least {args.k} trials per task (--trials {args.trials})",
            file=sys.stderr,
        )
        return 2
    if (args.record or args.max_usd is not None) and not args.live:
        print("agentlab eval: --record and --max-usd go with --live", file=sys.stderr)
        return 2
    client = None
    if args.live or args.replay:
        from agentlab.client import MissingAPIKey, connect, model_of

        cap = args.max_usd if args.max_usd is not None else LIVE_MAX_USD
        try:
            if args.live:
                client = connect("live", model=args.model, max_usd=cap, record=args.record)  # says where calls go
                print(_preview(args, model_of(client), cap), file=sys.stderr)
            else:
                client = connect("replay", model=args.model, cassette=args.replay, quiet=True)
        except (MissingAPIKey, ValueError, OSError) as e:  # no key, a bad cap or model, no cassette
            print(f"agentlab eval: {e}", file=sys.stderr)
            return 2
    try:
        rows = run_trials(args.variants, args.trials, out=args.out, client=client)
    except CapReached as e:
        spent = client.agentlab_cap.spent()  # type: ignore[union-attr]
        print(
            f"agentlab eval: {e}: ${spent:.4f} spent; the finished trials are in {args.out}. Raise the cap and run "
            f"the same command to go on, e.g. --max-usd {client.agentlab_cap.max_usd * 4:g}",  # type: ignore[union-attr]
            file=sys.stderr,
        )
        return 1
    except (OSError, ValueError) as e:  # an unwritable --out, a results file of another shape or mode
        print(f"agentlab eval: {e}", file=sys.stderr)
        return 1
    print(summarize(rows, args.k).to_string(float_format=lambda x: f"{x:.3g}"))
    if client is None:
        print(
            "\n[scripted model] offline trials on the simulator with seeded variation at stand-in rates "
            "(agentlab/sim/models/varied.py): how our scripted model is written, not a measurement of Claude. "
            f"Rows: {args.out}"
        )
    else:
        print(f"\n{client.agentlab_mode} trials on {model_of(client)}: the API's usage and prices. Rows: {args.out}")
    return 0
