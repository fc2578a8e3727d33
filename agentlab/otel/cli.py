"""``agentlab trace export RUN.jsonl --otlp URL | --json FILE``: a finished run's trace as OpenTelemetry spans."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_commands(sub) -> None:
    t = sub.add_parser("trace", help="a run's JSONL trace: export it as OpenTelemetry spans")
    tsub = t.add_subparsers(dest="trace_command", required=True, metavar="ACTION")
    e = tsub.add_parser(
        "export",
        help="send a trace to an OTLP receiver (Phoenix, Jaeger, a Collector) or write it as an OTLP/JSON file",
    )
    e.add_argument("run", metavar="RUN.jsonl", help="the trace file a run wrote (run_agent(trace=...), compare --out)")
    where = e.add_mutually_exclusive_group(required=True)
    where.add_argument("--otlp", metavar="URL", help="the receiver's address, e.g. http://localhost:6006 (Phoenix)")
    where.add_argument("--json", metavar="FILE", help="write an OTLP/JSON file instead (no receiver needed)")
    e.set_defaults(handler=run)


def file_spans(path: str | Path, start_ns: int | None = None) -> list:
    """The spans of the trace file at ``path`` (a broken file raises TraceFormatError naming the line)."""
    from agentlab.otel.export import spans_of
    from agentlab.trace import read_trace

    return spans_of(read_trace(path), start_ns)


def run(args: argparse.Namespace) -> int:
    from agentlab.otel import EXTRA
    from agentlab.trace import TraceFormatError

    try:
        from agentlab.otel.export import endpoint, send, write_json
    except ImportError as e:
        print(f"agentlab trace export: needs OpenTelemetry ({e.name} is missing): {EXTRA}", file=sys.stderr)
        return 2
    try:
        if args.otlp:
            endpoint(args.otlp)  # a malformed address is refused before the file is read
        spans = file_spans(args.run)
        if args.json:
            out = write_json(spans, args.json)
            print(f"{len(spans)} spans from {args.run} -> {out} (OTLP/JSON)")
        else:
            send(spans, args.otlp)
            print(f"{len(spans)} spans from {args.run} -> {endpoint(args.otlp)}")
    except FileNotFoundError:
        print(f"agentlab trace export: no trace file at {args.run}", file=sys.stderr)
        return 1
    except (OSError, ValueError, TraceFormatError) as e:  # no file, a broken trace, a bad address, no receiver
        print(f"agentlab trace export: {e}", file=sys.stderr)
        return 1
    return 0
