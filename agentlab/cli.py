"""``agentlab`` command line: ``compare``, ``serve``, ``eval``, ``trace export``, the instructor's grading commands
and the class gateway."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from agentlab.weather import weather_table


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port {value!r} is not a number; use e.g. --port 8765") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"--port {port} is out of range; use 1024-65535 (0 picks a free port)")
    return port


def _city(value: str) -> str:
    if value.strip().casefold() in weather_table():
        return value
    close = difflib.get_close_matches(value, sorted({n for r in weather_table().values() for n in r["names"]}), n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "see `agentlab cities` for the list"
    raise argparse.ArgumentTypeError(f"unknown city {value!r}; {hint}")


LIVE_MAX_USD = 0.10
"""``agentlab compare --live``'s spending cap when ``--max-usd`` is not given, in USD: several times what the
two-city comparison costs on claude-opus-5 by the simulator's estimate (a test holds it so), so only a runaway
run or a long list of cities meets it."""


def _usd(value: str) -> float:
    try:
        usd = float(value)
    except ValueError:
        usd = float("nan")
    if not 0 < usd < float("inf"):
        raise argparse.ArgumentTypeError(
            f"--max-usd {value!r}: a cap is a positive number of US dollars, e.g. "
            f"--max-usd 0.25 (default {LIVE_MAX_USD:g})"
        )
    return usd


def _default_model() -> str:
    """The simulator's default model, read from its data file (without importing the SDK)."""
    from importlib import resources

    return json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))["default"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentlab", description="A teaching lab for the LLM agent loop.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = sub.add_parser(
        "compare", help="run the city task as agent and as workflow; print a table (and a PNG with --png)"
    )
    c.add_argument(
        "--cities",
        nargs="+",
        type=_city,
        default=["Paris", "London"],
        metavar="CITY",
        help="two or more cities from the bundled data (default: Paris London)",
    )
    c.add_argument(
        "--model",
        default=None,
        help=f"model id (default: {_default_model()}; with --live the cheapest active priced model; or $AGENTLAB_MODEL)",
    )
    c.add_argument(
        "--live", action="store_true", help="call the real API (needs ANTHROPIC_API_KEY); default: simulator"
    )
    c.add_argument("--record", default=None, metavar="CASSETTE", help="with --live: record every call to this file")
    c.add_argument(
        "--replay", default=None, metavar="CASSETTE", help="answer from a cassette recorded with --record, offline"
    )
    c.add_argument(
        "--max-usd",
        type=_usd,
        default=None,
        metavar="USD",
        help=f"with --live: the session's spending cap in USD (default {LIVE_MAX_USD:g}): a call that could "
        "take the session past it is not sent",
    )
    c.add_argument(
        "--png",
        default=None,
        metavar="FILE",
        help="also draw the figure to FILE, e.g. compare.png (default: the table only, which needs no matplotlib)",
    )
    c.add_argument("--out", default="runs", help="folder for traces and notes (default: runs)")
    c.add_argument("--lang", choices=["en", "zh"], default="en", help="task language (default: en)")

    s = sub.add_parser("serve", help="serve the simulated Messages API on http://127.0.0.1:PORT")
    s.add_argument("--port", type=_port, default=8765, help="port on 127.0.0.1 (default: 8765)")
    s.add_argument(
        "--one-per-turn",
        action="store_true",
        help="the simulated model asks for one tool per turn (default: every independent tool in one turn, "
        "as recorded real models do)",
    )
    s.add_argument(
        "--parallel", action="store_true", help=argparse.SUPPRESS
    )  # the default now; kept so old commands run
    s.add_argument(
        "--faults",
        default=None,
        metavar="SPEC",
        help="inject seeded faults, e.g. 0.2 or '429=0.1,529=0.05,500=0.05,slow=0.1:0.5,at=3:429,seed=7'",
    )

    m = sub.add_parser("models", help="the simulator's model profiles (limits, tool-use prompt, behaviour) and prices")
    m.add_argument("--all", action="store_true", help="include retired models")

    sub.add_parser("cities", help="list the cities in the bundled weather data")

    v = sub.add_parser(
        "preview", help="run the city task on the simulator: about how many calls, tokens, USD and seconds"
    )
    v.add_argument(
        "--cities",
        nargs="+",
        type=_city,
        default=["Paris", "London"],
        metavar="CITY",
        help="one or more cities from the bundled data (default: Paris London)",
    )
    v.add_argument("--model", default=None, help="model id to price (default: claude-sonnet-5-5, or $AGENTLAB_MODEL)")
    v.add_argument("--workflow", action="store_true", help="preview the workflow instead of the agent")
    v.add_argument("--cache", action="store_true", help="the agent with prompt-cache breakpoints")
    k = sub.add_parser("calibrate", help="the simulator's token estimate against recorded real API traffic, per model")
    k.add_argument(
        "cassettes",
        nargs="*",
        metavar="CASSETTE",
        help="vcrpy cassette files of real traffic (default: the bundled set from pydantic/pydantic-ai)",
    )
    k.add_argument(
        "--split",
        choices=["held_out", "fit", "all", "unseen", "out_of_sample"],
        default="held_out",
        help="what to report on: the bundled pydantic-ai set's held_out (default), fit or all part; unseen: the "
        "other public projects' recordings, never fitted on; out_of_sample: held_out and unseen, by source",
    )
    k.add_argument("--png", default=None, help="also write the figure here")
    k.add_argument(
        "--loso",
        action="store_true",
        help="leave one source out: measure each public source with figures fitted on the others only",
    )
    k.set_defaults(handler=_calibrate)  # the implementation is imported when the command runs, not on every start
    try:
        from agentlab.grading.cli import add_commands  # light: it imports its implementations when a command runs
    except ImportError:  # grading is optional for the core commands
        pass
    else:
        add_commands(sub)
    from agentlab.gateway.cli import add_commands as add_gateway  # light: imports its implementation when run

    add_gateway(sub)
    from agentlab.otel.cli import add_commands as add_trace  # light: OpenTelemetry is imported when it runs

    add_trace(sub)
    from agentlab.evals.cli import add_commands as add_eval  # light: the trials are imported when it runs

    add_eval(sub)
    return p


def _calibrate(args: argparse.Namespace) -> int:
    from agentlab.sim.calibrate_report import run

    return run(args)


def cmd_compare(args: argparse.Namespace) -> int:
    from anthropic import APIError

    from agentlab.client import MissingAPIKey, connect
    from agentlab.experiments.comparison import compare, comparison_table
    from agentlab.live.errors import explain
    from agentlab.live.keys import env_key

    if len(args.cities) < 2:
        print(f"agentlab compare: --cities needs two or more cities, got {args.cities}", file=sys.stderr)
        return 2
    if args.record and not args.live:
        print("agentlab compare: --record goes with --live (a replay reads a recorded cassette)", file=sys.stderr)
        return 2
    mode = "replay" if args.replay else "live" if args.live else "sim"
    max_usd = args.max_usd if args.max_usd is not None or mode != "live" else LIVE_MAX_USD
    try:  # live and replay count each call's parts (free count_tokens calls), so every row of the table is filled
        client = connect(
            mode, model=args.model, count_parts=mode != "sim", record=args.record, cassette=args.replay, max_usd=max_usd
        )
    except (MissingAPIKey, ValueError) as e:  # no key, or a --model typo: one line with the fix, not a traceback
        print(f"agentlab compare: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    try:
        agent, workflow = compare(client, args.cities, out / "notes", trace_dir=out, lang=args.lang)
    except APIError as e:  # 401, 429, no network, a timeout...: one line saying what to do, not a traceback
        print(f"agentlab compare: {explain(e, client.base_url)}", file=sys.stderr)
        return 1
    print(f"task: {agent.messages[0]['content']}\n")
    print(comparison_table([agent, workflow]))
    print(f"\nagent answer:    {agent.final_text}\nworkflow answer: {workflow.final_text}")
    capped = _cap_stop(client, [agent, workflow])
    if capped:
        print(capped, file=sys.stderr)
    elif mode == "sim" and env_key():
        print(_going_live(args.cities))
    if not args.png:
        print(f"\ntraces: {out}/agent.jsonl, {out}/workflow.jsonl   (add --png compare.png for the figure)")
        return 1 if capped else 0
    import matplotlib

    matplotlib.use("Agg")
    from agentlab.views.figures import plot_comparison

    plot_comparison([agent, workflow]).savefig(args.png, dpi=110)
    print(f"\nfigure: {args.png}   traces: {out}/agent.jsonl, {out}/workflow.jsonl")
    return 1 if capped else 0


def _cap_stop(client, runs) -> str | None:
    """One line when the spending cap stopped a run: which cap, what was spent, how to raise it."""
    cap = getattr(client, "agentlab_cap", None)
    stopped = [r.kind for r in runs if r.stop_reason.value == "usd_budget"]
    if not stopped or cap is None:
        return None
    refused = cap.last_refusal
    could = (
        f" and the next call could have cost up to ${refused.predicted:.4f}" if refused and refused.predicted else ""
    )
    return (
        f"agentlab compare: the spending cap --max-usd {cap.max_usd:g} stopped the {' and the '.join(stopped)} "
        f"before its next call: ${cap.spent():.4f} spent so far{could}, so nothing more was sent (the table shows "
        f"what ran). Raise the cap to go on, e.g. --max-usd {cap.max_usd * 4:g}"
    )


def _going_live(cities: list[str]) -> str:
    """What `agentlab compare --live` would cost, from the same runs on the simulator at the live default model."""
    from agentlab.client import default_model
    from agentlab.experiments.preview import preview

    model = default_model("live")
    agent, workflow = (preview(cities, model, kind) for kind in ("agent", "workflow"))
    usd = None if None in (agent.cost_usd, workflow.cost_usd) else agent.cost_usd + workflow.cost_usd
    cost = "an unknown price" if usd is None else f"about ${usd:.4f}"
    return (
        f"\nANTHROPIC_API_KEY is set: `agentlab compare --live` runs this on the real API: about "
        f"{agent.calls + workflow.calls} calls, {agent.input_tokens + workflow.input_tokens:,} input tokens and "
        f"{cost} at {model} (the simulator's estimate of the same two runs), capped at ${LIVE_MAX_USD:.2f} unless "
        "--max-usd says otherwise."
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "compare":
        return cmd_compare(args)
    if args.command == "serve":
        from agentlab.sim.faults import as_faults
        from agentlab.sim.serve import serve
        from agentlab.sim.server import Simulator

        try:
            faults = as_faults(
                float(args.faults) if args.faults and args.faults.replace(".", "", 1).isdigit() else args.faults
            )
        except ValueError as e:
            print(f"agentlab serve: --faults {args.faults!r}: {e}", file=sys.stderr)
            return 2
        serve(args.port, Simulator(parallel=not args.one_per_turn, faults=faults))
        return 0
    if args.command == "models":
        from agentlab.meter.prices import models_table

        print(models_table(include_retired=args.all))
        return 0
    if args.command == "preview":
        from agentlab.experiments.preview import preview

        if args.workflow and args.cache:
            print(
                "agentlab preview: --cache applies to the agent only (the workflow re-sends nothing)", file=sys.stderr
            )
            return 2
        try:
            print(preview(args.cities, args.model, "workflow" if args.workflow else "agent", args.cache).line())
        except ValueError as e:
            print(f"agentlab preview: {e}", file=sys.stderr)
            return 2
        return 0
    if args.command == "cities":
        from agentlab.weather import city_names

        print("\n".join(f"{en}  {zh}" for en, zh in zip(city_names("en"), city_names("zh"))))
        return 0
    return args.handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
