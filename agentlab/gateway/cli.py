"""``agentlab gateway ...``: serve the class gateway, and the instructor's commands on its ledger.

``add_commands(subparsers)`` adds ``gateway`` with its sub-commands; each handler takes the parsed
``argparse.Namespace`` and returns the exit code (0 ok, 2 bad input). Implementations are imported when a
command runs, so ``agentlab``'s start-up does not pay for uvicorn or SQLite.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

DAY_USD = 0.50
"""A student's default budget per UTC day, in USD (the whole course live costs about $0.24 on the default
model, docs/en/live_cost.md: a day's budget runs it twice)."""
TERM_USD = 2.00
"""A student's default budget for the term, in USD (the course live about eight times)."""
PORT = 8787
"""``gateway serve``'s default port."""


def _usd(value: str) -> float:
    try:
        usd = float(value)
    except ValueError:
        usd = float("nan")
    if not 0 <= usd < float("inf"):
        raise argparse.ArgumentTypeError(f"{value!r} is not an amount of USD; give e.g. 0.50")
    return usd


def _per_minute(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--rpm {value!r}: give a whole number of requests a minute >= 1, e.g. 30")
    return int(value)


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    gw = subparsers.add_parser("gateway", help="the class gateway: one instructor key, a budget per student")
    sub = gw.add_subparsers(dest="gateway_command", required=True, metavar="ACTION")
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", required=True, type=Path, help="the ledger's SQLite file, e.g. class.sqlite")
    s = sub.add_parser("serve", parents=[db], help="forward students' Messages API requests with your key")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the room's network)")
    s.add_argument("--port", type=int, default=PORT, help=f"port (default {PORT})")
    s.add_argument("--upstream", default="anthropic", help="anthropic (default), sim, or a base URL")
    s.add_argument("--rpm", type=_per_minute, default=None, help="requests per minute per student (default 30)")
    s.add_argument("--log-bodies", action="store_true", help="keep every prompt and answer in the ledger (off: none)")
    a = sub.add_parser("add", parents=[db], help="add the students of a CSV (column 'name'); print each token once")
    a.add_argument("csv", type=Path, help="CSV with a 'name' column (optional: day_usd, term_usd, expires)")
    a.add_argument("--day-usd", type=_usd, default=DAY_USD, help=f"budget per UTC day (default {DAY_USD:.2f})")
    a.add_argument("--term-usd", type=_usd, default=TERM_USD, help=f"budget for the term (default {TERM_USD:.2f})")
    a.add_argument("--expires", default=None, help="last day a token works, YYYY-MM-DD (default: never)")
    a.add_argument("--tokens-dir", type=Path, default=None, help="write NAME.env per student here, not to stdout")
    p = sub.add_parser("spend", parents=[db], help="spend per student, as a table (and a plot with --png)")
    p.add_argument("--png", type=Path, default=None, help="also draw the spend per student here")
    b = sub.add_parser("budget", parents=[db], help="change a student's budgets, or the class's total")
    b.add_argument("name", nargs="?", help="the student (leave out with --class-usd)")
    b.add_argument("--day-usd", type=_usd, default=None)
    b.add_argument("--term-usd", type=_usd, default=None)
    b.add_argument("--class-usd", type=_usd, default=None, help="the whole class's total budget")
    b.add_argument("--no-class-usd", action="store_true", help="remove the class's total budget")
    r = sub.add_parser("revoke", parents=[db], help="refuse a student's token from now on")
    r.add_argument("name")
    e = sub.add_parser("export", parents=[db], help="write the ledger as CSV, one row per request")
    e.add_argument("out", type=Path)
    gw.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from agentlab.gateway.store import Store, utc_now

    command = args.gateway_command
    if command != "add" and not args.db.is_file():
        return _fail(command, f"--db {args.db}: no ledger there; `agentlab gateway add --db {args.db} CSV` makes one")
    try:
        if command == "serve":
            from agentlab.gateway.app import RPM
            from agentlab.gateway.serve import make_gateway, serve

            serve(make_gateway(str(args.db), args.upstream, args.rpm or RPM, args.log_bodies), args.host, args.port)
            return 0
        store = Store(args.db)
        if command == "add":
            return _add(store, args)
        if command == "spend":
            rows = store.spend(utc_now())
            print(_table(rows))
            if store.class_usd() is not None:
                print(f"class total: ${sum(r['term_usd'] for r in rows):.4f} spent of ${store.class_usd():.2f}")
            if args.png:
                from agentlab.gateway.plot import plot_spend

                plot_spend(rows).savefig(args.png, dpi=120, bbox_inches="tight")
                print(f"wrote {args.png}")
        elif command == "budget":
            student = args.day_usd is not None or args.term_usd is not None
            if bool(args.name) != student or (not student and args.class_usd is None and not args.no_class_usd):
                return _fail(
                    command, "name a student with --day-usd or --term-usd, or give --class-usd or --no-class-usd"
                )
            if args.name:  # first: an unknown name changes nothing
                store.update(args.name, day_usd=args.day_usd, term_usd=args.term_usd)
            if args.class_usd is not None or args.no_class_usd:
                store.set_class_usd(None if args.no_class_usd else args.class_usd)
        elif command == "revoke":
            store.update(args.name, revoked=True)
            print(f"{args.name}: token revoked")
        elif command == "export":
            print(f"wrote {store.export_csv(args.out)} requests to {args.out}")
        return 0
    except ValueError as e:
        return _fail(command, str(e))
    except (sqlite3.Error, OSError) as e:  # not a ledger, a folder that does not exist, a disk that is full
        return _fail(command, f"{args.db if isinstance(e, sqlite3.Error) else ''}: {e}".lstrip(": "))


def _add(store, args: argparse.Namespace) -> int:
    try:
        with open(args.csv, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        return _fail("add", f"{args.csv}: {e.strerror}")
    except UnicodeDecodeError:
        return _fail("add", f"{args.csv}: not UTF-8 text; save it as CSV UTF-8 (a spreadsheet's 'CSV UTF-8' format)")
    if not rows or "name" not in rows[0]:
        return _fail(
            "add",
            f"{args.csv}: needs a header line with a 'name' column (found {list(rows[0]) if rows else 'no rows'})",
        )
    if args.tokens_dir:
        args.tokens_dir.mkdir(parents=True, exist_ok=True)
    for line, row in enumerate(rows, start=2):
        path = args.tokens_dir / f"{(row['name'] or '').strip()}.env" if args.tokens_dir else None
        if path is not None and (path.exists() or path.is_symlink()):
            return _fail("add", f"{path} exists; give an empty --tokens-dir ({_before(line)})")
        try:
            day = float(row.get("day_usd") or args.day_usd)
            term = float(row.get("term_usd") or args.term_usd)
            token = store.add_student((row["name"] or "").strip(), day, term, row.get("expires") or args.expires)
        except ValueError as e:
            return _fail("add", f"{args.csv} line {line}: {e} ({_before(line)})")
        if path is not None:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(f"ANTHROPIC_API_KEY={token}\n")
        else:
            print(f"{row['name'].strip()},{token}")
    where = f" into {args.tokens_dir}/NAME.env" if args.tokens_dir else " (each token is shown this once)"
    print(f"added {len(rows)} students{where}", file=sys.stderr)
    return 0


def _before(line: int) -> str:
    """What an ``add`` stopped at ``line`` of the CSV had done."""
    return "no student was added" if line == 2 else f"the students of lines 2-{line - 1} were added"


def _table(rows: list[dict]) -> str:
    head = (
        f"{'student':<20} {'today':>9} {'day budget':>11} {'term':>9} {'term budget':>12} {'left':>9} {'requests':>9}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['student'][:20]:<20} {r['today_usd']:>9.4f} {r['day_budget']:>11.2f} {r['term_usd']:>9.4f} "
            f"{r['term_budget']:>12.2f} {r['left_usd']:>9.4f} {r['requests']:>9}"
            + ("  revoked" if r["revoked"] else "")
        )
    return "\n".join(lines)


def _fail(command: str, message: str) -> int:
    print(f"agentlab gateway {command}: {message}", file=sys.stderr)
    return 2
