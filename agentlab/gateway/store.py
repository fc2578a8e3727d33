"""The gateway's ledger: students, their hashed tokens and budgets, and one row per request, in SQLite.

SQLite (the standard library's ``sqlite3``) in WAL mode, at a path the instructor chooses: one file, no
server, readable by the instructor's commands while the gateway writes. The gateway asks its ledger four
things (:class:`Ledger`), so a larger class could put Postgres behind the same methods later.

What is stored: a student's name, the SHA-256 of their token (tokens are 32 random bytes, so a fast hash
is enough; the token itself is shown once and never stored), their budgets, and per request the model,
the tokens by kind, the dollars, the status and the time. Never a prompt or a response body, unless the
instructor serves with ``--log-bodies`` (then the ``bodies`` table keeps both, by ledger row).

Money is kept in two columns: ``reserved_usd``, the request's worst case, written *before* it is
forwarded, and ``usd``, what its reported usage costs, written when it ends. A request in flight (or one
a crashed gateway never settled) counts at its reservation, so two requests at once cannot both pass a
budget that fits one (the reservation is checked and written in one ``BEGIN IMMEDIATE`` transaction).
The ``totals`` table holds what each student was charged each day, kept by triggers whenever a ledger row
is added, settled, corrected or deleted (by the gateway or by hand), so a budget check reads a row per day
of the term, not every request.
"""

from __future__ import annotations

import csv
import hashlib
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Protocol

from agentlab.api.wire import GATEWAY_TOKEN_PREFIX as TOKEN_PREFIX

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
"""A student's name: it names their token file, so letters, digits, ``.``, ``_`` and ``-`` only."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS students(
    name TEXT PRIMARY KEY, token_sha256 TEXT UNIQUE NOT NULL, day_usd REAL NOT NULL, term_usd REAL NOT NULL,
    expires TEXT, revoked INTEGER NOT NULL DEFAULT 0, added TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ledger(
    id INTEGER PRIMARY KEY, student TEXT NOT NULL, at TEXT NOT NULL, day TEXT NOT NULL, endpoint TEXT NOT NULL,
    model TEXT, status INTEGER, reserved_usd REAL NOT NULL, usd REAL, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, seconds REAL);
CREATE INDEX IF NOT EXISTS ledger_student_day ON ledger(student, day);
CREATE TABLE IF NOT EXISTS settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bodies(ledger_id INTEGER PRIMARY KEY, request BLOB NOT NULL, response BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS totals(student TEXT, day TEXT, charged REAL NOT NULL, PRIMARY KEY(student, day));
CREATE TRIGGER IF NOT EXISTS ledger_added AFTER INSERT ON ledger BEGIN
    INSERT INTO totals VALUES (NEW.student, NEW.day, COALESCE(NEW.usd, NEW.reserved_usd))
    ON CONFLICT(student, day) DO UPDATE SET charged = charged + excluded.charged;
END;
CREATE TRIGGER IF NOT EXISTS ledger_settled AFTER UPDATE OF usd, reserved_usd, student, day ON ledger BEGIN
    UPDATE totals SET charged = charged - COALESCE(OLD.usd, OLD.reserved_usd)
    WHERE student = OLD.student AND day = OLD.day;
    INSERT INTO totals VALUES (NEW.student, NEW.day, COALESCE(NEW.usd, NEW.reserved_usd))
    ON CONFLICT(student, day) DO UPDATE SET charged = charged + excluded.charged;
END;
CREATE TRIGGER IF NOT EXISTS ledger_removed AFTER DELETE ON ledger BEGIN
    UPDATE totals SET charged = charged - COALESCE(OLD.usd, OLD.reserved_usd)
    WHERE student = OLD.student AND day = OLD.day;
END;
"""
LEDGER_FIELDS = (
    "id, student, at, day, endpoint, model, status, reserved_usd, usd, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, seconds"
)
CHARGED = "COALESCE(usd, reserved_usd)"
"""What a ledger row counts against a budget: its settled cost, or its reservation while in flight."""


@dataclass(frozen=True)
class Student:
    """A student as the gateway knows them."""

    name: str
    """Their name (the CSV's ``name`` column)."""
    day_usd: float
    """Their budget per UTC day, in USD."""
    term_usd: float
    """Their budget for the whole term, in USD."""
    expires: str | None
    """The UTC date (``YYYY-MM-DD``) after which their token is refused, or None."""
    revoked: bool
    """True once the instructor revoked their token."""


@dataclass(frozen=True)
class OverBudget(Exception):
    """A request whose worst case would cross a budget; nothing was forwarded."""

    budget: str
    """Which budget: ``"daily"``, ``"term"`` or ``"class"``."""
    limit_usd: float
    """That budget, in USD."""
    left_usd: float
    """What was left of it before this request, in USD."""
    needed_usd: float
    """The request's worst case, in USD."""
    resets: str | None
    """When it resets (ISO time, UTC), or None for a budget that does not."""


def _day(text: str | None) -> str | None:
    """A stored expiry as YYYY-MM-DD (ledgers of the first version kept ``2026-9-30`` as written)."""
    try:
        return None if text is None else datetime.strptime(text, "%Y-%m-%d").date().isoformat()
    except ValueError:
        return text


def hash_token(token: str) -> str:
    """The hex SHA-256 the ledger keeps of ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def utc_now() -> datetime:
    """Now, in UTC (the ledger's clock; tests pass their own ``now`` instead)."""
    return datetime.now(timezone.utc)


class Ledger(Protocol):
    """What the gateway asks of its ledger per request: the plug point a Postgres ledger would fill."""

    def student(self, token: str) -> Student | None: ...

    def reserve(self, student: Student, endpoint: str, model: str | None, usd: float, now: datetime) -> int: ...

    def settle(self, row: int, status: int, usd: float, tokens: dict[str, int], seconds: float,
               model: str | None = None) -> None: ...  # fmt: skip

    def keep_bodies(self, row: int, request: bytes, response: bytes) -> None: ...


class Store:
    """The ledger in one SQLite file (see the module's docstring). Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        """The database file."""
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._db.execute("BEGIN IMMEDIATE")  # a ledger written before the totals existed: count its rows once,
        try:  # with every writer held off, so no row is counted twice or missed
            if self._db.execute("SELECT 1 FROM settings WHERE key = 'totals'").fetchone() is None:
                self._db.execute("DELETE FROM totals")
                self._db.execute(
                    f"INSERT INTO totals SELECT student, day, SUM({CHARGED}) FROM ledger GROUP BY student, day"
                )
                self._db.execute("INSERT INTO settings VALUES ('totals', 'kept by triggers')")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def add_student(self, name: str, day_usd: float, term_usd: float, expires: str | None = None) -> str:
        """Add ``name`` with these budgets and return their new token (shown once: only its hash is kept)."""
        if not NAME.match(name or ""):
            raise ValueError(f"student name {name!r}: use letters, digits, '.', '_' or '-' (it names a file)")
        for field, usd in (("day_usd", day_usd), ("term_usd", term_usd)):
            if not 0 <= usd < float("inf"):
                raise ValueError(f"{name}: {field} {usd!r} is not a number of USD >= 0 (e.g. 0.50)")
        if expires is not None:  # kept as YYYY-MM-DD whatever was written (2026-9-30 too): it is compared as text
            expires = datetime.strptime(expires, "%Y-%m-%d").date().isoformat()  # ValueError names the value
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO students VALUES (?, ?, ?, ?, ?, 0, ?)",
                    (name, hash_token(token), day_usd, term_usd, expires, utc_now().isoformat(timespec="seconds")),
                )
            except sqlite3.IntegrityError:
                raise ValueError(f"student {name!r} is already in {self.path}; `budget` or `revoke` changes them")
        return token

    def student(self, token: str) -> Student | None:
        """The student this token belongs to, or None for a token the gateway never issued."""
        with self._lock:
            row = self._db.execute(
                "SELECT name, day_usd, term_usd, expires, revoked FROM students WHERE token_sha256 = ?",
                (hash_token(token),),
            ).fetchone()
        return None if row is None else Student(row[0], row[1], row[2], _day(row[3]), bool(row[4]))

    def update(self, name: str, *, day_usd: float | None = None, term_usd: float | None = None,
               revoked: bool | None = None) -> None:  # fmt: skip
        """Change a student's budgets or revoke their token; ``ValueError`` for a name not in the ledger."""
        changes = {
            k: v for k, v in (("day_usd", day_usd), ("term_usd", term_usd), ("revoked", revoked)) if v is not None
        }
        with self._lock:
            for column, value in changes.items():  # column names come from the tuple above, never from input
                cur = self._db.execute(f"UPDATE students SET {column} = ? WHERE name = ?", (value, name))
                if cur.rowcount == 0:
                    raise ValueError(f"no student {name!r} in {self.path}; `agentlab gateway spend` lists them")

    def class_usd(self) -> float | None:
        """The class's total budget in USD, or None when none is set."""
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key = 'class_usd'").fetchone()
        return None if row is None else float(row[0])

    def set_class_usd(self, usd: float | None) -> None:
        """Set (or, with None, remove) the class's total budget."""
        with self._lock:
            if usd is None:
                self._db.execute("DELETE FROM settings WHERE key = 'class_usd'")
            else:
                self._db.execute("INSERT OR REPLACE INTO settings VALUES ('class_usd', ?)", (repr(float(usd)),))

    def reserve(self, student: Student, endpoint: str, model: str | None, usd: float, now: datetime) -> int:
        """Write a ledger row reserving ``usd`` for ``student``'s request, or raise :class:`OverBudget` (and write
        nothing) when it would cross their daily or term budget or the class's. Returns the row's id."""
        day = now.date().isoformat()
        tomorrow = (datetime.combine(now.date(), datetime.min.time(), timezone.utc) + timedelta(days=1)).isoformat()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                spent_day, spent_term = self._db.execute(
                    "SELECT COALESCE(SUM(CASE WHEN day = ? THEN charged END), 0), COALESCE(SUM(charged), 0) "
                    "FROM totals WHERE student = ?",
                    (day, student.name),
                ).fetchone()
                checks = [("term", student.term_usd, spent_term, None), ("daily", student.day_usd, spent_day, tomorrow)]
                total = self._db.execute("SELECT value FROM settings WHERE key = 'class_usd'").fetchone()
                if total is not None:  # the budgets that do not reset are named first
                    spent = self._db.execute("SELECT COALESCE(SUM(charged), 0) FROM totals").fetchone()[0]
                    checks.insert(0, ("class", float(total[0]), spent, None))
                for budget, limit, spent, resets in checks:
                    if usd > 0 and spent + usd > limit:
                        raise OverBudget(budget, limit, max(limit - spent, 0.0), usd, resets)
                cur = self._db.execute(
                    "INSERT INTO ledger (student, at, day, endpoint, model, reserved_usd) VALUES (?, ?, ?, ?, ?, ?)",
                    (student.name, now.isoformat(timespec="milliseconds"), day, endpoint, model, usd),
                )
                self._db.execute("COMMIT")
                return int(cur.lastrowid)
            except BaseException:
                if self._db.in_transaction:  # SQLite may have rolled back already (a full disk, say)
                    self._db.execute("ROLLBACK")
                raise

    def settle(self, row: int, status: int, usd: float, tokens: dict[str, int], seconds: float,
               model: str | None = None) -> None:  # fmt: skip
        """Record how request ``row`` ended: its status, its cost (0 for a request that generated nothing) and
        its tokens by kind (``input``, ``output``, ``cache_read``, ``cache_write``)."""
        with self._lock:
            self._db.execute(
                "UPDATE ledger SET status = ?, usd = ?, input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, "
                "cache_write_tokens = ?, seconds = ?, model = COALESCE(?, model) WHERE id = ?",
                (status, usd, *(tokens.get(k, 0) for k in ("input", "output", "cache_read", "cache_write")),
                 seconds, model, row),
            )  # fmt: skip

    def keep_bodies(self, row: int, request: bytes, response: bytes) -> None:
        """Keep request ``row``'s bodies (only when the instructor serves with ``--log-bodies``)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO bodies VALUES (?, ?, ?)", (row, request, response))

    def spend(self, now: datetime) -> list[dict]:
        """Per student: their budgets, what they spent today and this term (USD), what is left, their requests."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT s.name, s.day_usd, s.term_usd, s.revoked, "
                f"COALESCE(SUM(CASE WHEN l.day = ? THEN {CHARGED} END), 0), COALESCE(SUM({CHARGED}), 0), "
                "COUNT(l.id) FROM students s LEFT JOIN ledger l ON l.student = s.name GROUP BY s.name ORDER BY s.name",
                (now.date().isoformat(),),
            ).fetchall()
        return [
            {"student": n, "today_usd": d, "term_usd": t, "day_budget": db, "term_budget": tb,
             "left_usd": max(min(db - d, tb - t), 0.0), "requests": k, "revoked": bool(r)}
            for n, db, tb, r, d, t, k in rows
        ]  # fmt: skip

    def export_csv(self, out: Path) -> int:
        """Write the whole ledger to ``out`` as CSV (one row per request); returns the rows written."""
        with self._lock:
            cur = self._db.execute(f"SELECT {LEDGER_FIELDS} FROM ledger ORDER BY id")
            rows = cur.fetchall()
        with open(out, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow([c.strip() for c in LEDGER_FIELDS.split(",")])
            writer.writerows(rows)
        return len(rows)
