"""The simulator held against recorded real traffic: its input-token estimate vs the API's real ``usage``.

Each recorded request (the bundled set, ``data/calibration.json.gz``, built by
``scripts/make_calibration_set.py`` from pydantic/pydantic-ai's cassettes, MIT, whose ``fit`` half the
estimator's figures are fitted on; the recordings of other public projects, never fitted on,
``data/unseen.json.gz``; or an instructor's own vcrpy cassettes) is sent to a fresh
:class:`~agentlab.sim.server.Simulator` exactly as recorded, under API version 2023-06-01 (cassettes keep no headers). The simulator either refuses it (its status and
reason are kept) or answers with an estimate; the real figure is the answer's ``input_tokens +
cache_creation_input_tokens + cache_read_input_tokens`` (the whole prompt, however it was cached).

Errors are relative, ``(estimate - real) / real``: the *absolute* error's median and 90th percentile,
and the median *signed* error (the bias: negative means the simulator counts too few). "Core" requests
are those with no server-side work (no server tool, MCP server or container), the set the issue's 5%
target is about; server-side steps add tokens no request body shows.

Components: real usage is one number, so a component's error is measured on the requests that carry
it (``tools``: custom tool definitions, hence the tool-use prompt; ``thinking``; ``images``: image or
document blocks; ``structured``: ``output_config.format``; ``server``: server-side tools, MCP servers,
containers and server-side compaction, whose summarising step the body does not show), next to
``plain`` requests that carry none of them.

Dates: a model retired since it was recorded would answer 404 today, so each request is replayed on a
simulator whose calendar (``SimClock(day=...)``) reads the day it was recorded: the cassette's
``recorded_at`` when it kept one (vcrpy writes it; the bundled set does not keep it), else, for a
request the API answered 200 on a model since retired, the day before that model's retirement (the API
answered it, so the model was still served). Anything else is replayed on today's date.
"""

from __future__ import annotations

import gzip
import json
import statistics
from dataclasses import dataclass, field
from datetime import date, timedelta
from importlib import resources
from pathlib import Path

VERSION = "2023-06-01"
"""The API version the recordings are replayed under (the one the SDK of their time sent)."""
FITTED_ON = "pydantic/pydantic-ai"
"""The project whose recordings (their ``fit`` half) the estimator's figures are fitted on."""
GROUPS = ("plain", "tools", "thinking", "images", "structured", "server")
"""Request kinds errors are reported by (see the module docstring)."""


@dataclass
class Row:
    """One recorded request, as the simulator saw it."""

    cassette: str
    """Where it was recorded (cassette path)."""
    model: str
    """The model asked for (its profile's id, so a dated alias counts with its model)."""
    split: str
    """``fit``, ``held_out`` or ``yours`` (a cassette given on the command line)."""
    real: int | None
    """The real prompt tokens (input + cache writes + cache reads), or ``None`` when the API refused it."""
    estimate: int | None = None
    """The simulator's estimate, or ``None`` when it refused the request."""
    refused: str = ""
    """The simulator's status and message when it refused the request (empty when it answered)."""
    groups: tuple[str, ...] = ()
    """The kinds of content the request carries (``GROUPS``)."""
    replayed_on: str = ""
    """The calendar day (ISO) the simulator was set to for this request (see the module docstring)."""
    parts: dict = field(default_factory=dict)
    """The estimate split by component (``tokens.input_parts``)."""
    source: str = ""
    """The project whose recordings it came from (``owner/name``), empty for a cassette given on the command line."""

    @property
    def core(self) -> bool:
        """No server-side work: what the body shows is what the model read."""
        return "server" not in self.groups

    @property
    def error(self) -> float | None:
        """``(estimate - real) / real``, or ``None`` when either is missing."""
        if self.estimate is None or not self.real:
            return None
        return (self.estimate - self.real) / self.real


def bundled() -> dict:
    """The bundled calibration set: source, commit, licence notice, split rule and records."""
    return _packaged("calibration.json.gz")


def unseen() -> dict:
    """Recordings from public projects the estimator was not fitted on (``data/unseen.json.gz``, built by
    ``scripts/make_unseen_set.py``): their provenance (``sources``) and records, each with its ``source``."""
    return _packaged("unseen.json.gz")


def _packaged(name: str) -> dict:
    return json.loads(gzip.decompress(resources.files("agentlab.sim").joinpath("data", name).read_bytes()))


def read_cassettes(paths: list[str]) -> list[dict]:
    """Records from vcrpy cassette files (YAML, or JSON), in the bundled set's shape (needs PyYAML for YAML)."""
    out = []
    for path in paths:
        text = Path(path).read_text("utf-8")
        if path.endswith(".json"):
            data = json.loads(text)
        else:
            try:
                import yaml
            except ImportError:  # pragma: no cover - vcrpy depends on it
                raise SystemExit(
                    "agentlab calibrate: reading YAML cassettes needs PyYAML (pip install pyyaml)"
                ) from None
            data = yaml.safe_load(text)
        for i, it in enumerate((data or {}).get("interactions") or []):
            req, res = it.get("request") or {}, it.get("response") or {}
            body = req.get("parsed_body")
            if not isinstance(body, dict) or "/v1/messages" not in str(req.get("uri", "")):
                continue
            parsed = res.get("parsed_body") or {}
            raw = res.get("body")
            raw = raw.get("string") if isinstance(raw, dict) else raw
            usage = parsed.get("usage") if isinstance(parsed, dict) else None
            if isinstance(parsed, dict) and "input_tokens" in parsed:
                usage = parsed
            if usage is None and isinstance(raw, str):
                usage = _stream_usage(raw)
            out.append(
                {
                    "cassette": path,
                    "index": i,
                    "split": "yours",
                    "model": body.get("model"),
                    "request": body,
                    "endpoint": "count_tokens" if "count_tokens" in req["uri"] else "messages",
                    "status": (res.get("status") or {}).get("code", 200),
                    "usage": usage,
                    "recorded_at": str(it.get("recorded_at") or "")[:10],
                }
            )
    return out


def _stream_usage(raw: str) -> dict | None:
    usage: dict = {}
    for line in raw.splitlines():
        if line.strip().startswith("data:"):
            try:
                event = json.loads(line.strip()[5:])
            except json.JSONDecodeError:
                continue
            usage.update(
                (event.get("message") or {}).get("usage") or {} if event.get("type") == "message_start" else {}
            )
            usage.update(event.get("usage") or {} if event.get("type") == "message_delta" else {})
    return usage or None


def groups_of(body: dict) -> tuple[str, ...]:
    """Which of ``GROUPS`` a request body carries."""
    tools = body.get("tools") or []
    kinds = {
        b.get("type")
        for m in body.get("messages") or []
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict)
    }
    kinds |= {
        b.get("type")
        for m in body.get("messages") or []
        if isinstance(m.get("content"), list)
        for t in m["content"]
        if isinstance(t, dict) and isinstance(t.get("content"), list)
        for b in t["content"]
        if isinstance(b, dict)
    }
    found = []
    if any(isinstance(t, dict) and t.get("type", "custom") == "custom" for t in tools):
        found.append("tools")
    if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive") or kinds & {"thinking", "redacted_thinking"}:
        found.append("thinking")
    if kinds & {"image", "document"}:
        found.append("images")
    if isinstance(body.get("output_config"), dict) and body["output_config"].get("format"):
        found.append("structured")
    if (
        any(isinstance(t, dict) and t.get("type", "custom") != "custom" for t in tools)
        or body.get("mcp_servers")
        or body.get("container")
        or kinds & {"server_tool_use", "mcp_tool_use", "web_search_tool_result", "compaction"}
        or any(
            isinstance(e, dict) and str(e.get("type", "")).startswith("compact")
            for e in (body.get("context_management") or {}).get("edits") or []
        )
    ):
        found.append("server")
    return tuple(found) or ("plain",)


def real_tokens(usage: dict | None) -> int | None:
    """The whole prompt the API counted: input + cache writes + cache reads."""
    if not isinstance(usage, dict) or "input_tokens" not in usage:
        return None
    return sum(
        int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )


def _profile_of(rec: dict):
    """The profile of the model a record asked for, or None."""
    from agentlab.api.profiles import profile

    return profile(rec.get("model")) if isinstance(rec.get("model"), str) else None


def model_id(rec: dict) -> str:
    """The model a record asked for, as its profile's id (a dated alias counts with its model)."""
    known = _profile_of(rec)
    return known.id if known else str(rec.get("model"))


def replay(records: list[dict]) -> list[Row]:
    """Send every record to a fresh simulator; one :class:`Row` per record."""
    import httpx2

    from agentlab.api.profiles import profile
    from agentlab.api.tokens import estimate_input_tokens, input_parts
    from agentlab.sim.budgets import BETA as BUDGET_BETA
    from agentlab.sim.budgets import task_budget_of
    from agentlab.sim.clock import SimClock
    from agentlab.sim.server import Simulator

    rows = []
    for rec in records:
        body = {k: v for k, v in rec["request"].items() if k != "stream"}
        path = "/v1/messages/count_tokens" if rec.get("endpoint") == "count_tokens" else "/v1/messages"
        headers = {"anthropic-version": VERSION, "content-type": "application/json"}
        if rec.get("beta") and task_budget_of(body) is not None:  # recorded: ?beta=true, not which beta headers
            headers["anthropic-beta"] = BUDGET_BETA
        request = httpx2.Request("POST", "https://api.anthropic.com" + path, json=body, headers=headers)
        known = _profile_of(rec)
        clock = SimClock(day=recorded_day(rec, known))
        response = Simulator(clock=clock).handle(request)
        answer = response.json()
        row = Row(
            str(rec["cassette"]),
            model_id(rec),
            rec.get("split", "yours"),
            real_tokens(rec.get("usage")) if rec.get("status", 200) == 200 else None,
            groups=groups_of(body),
            replayed_on=clock.start_day.isoformat(),
            source=str(rec.get("source", "")),
        )
        if response.status_code == 200:
            usage = answer.get("usage") or answer
            row.estimate = real_tokens(usage)
            row.parts = input_parts(body)
        else:
            row.refused = f"{response.status_code} {answer['error']['message']}"
            p = profile(row.model)
            if response.status_code == 404 and p is not None and p.retired:  # retired since it was recorded
                row.estimate, row.parts = estimate_input_tokens(body), input_parts(body)
        rows.append(row)
    return rows


def recorded_day(rec: dict, known: object = None) -> date:
    """The day ``rec`` is replayed on: its ``recorded_at``, else (answered 200, model since retired) the day
    before its model's retirement, else today (UTC)."""
    from agentlab.api.profiles import today

    if rec.get("recorded_at"):
        try:
            return date.fromisoformat(str(rec["recorded_at"])[:10])
        except ValueError:
            raise ValueError(
                f"calibration record {rec.get('cassette')}#{rec.get('index')}: recorded_at "
                f"{rec['recorded_at']!r} is not an ISO date (write it as 2026-03-06)"
            ) from None
    retires = getattr(known, "retires", None)
    if rec.get("status", 200) == 200 and retires is not None:
        return min(today(), retires - timedelta(days=1))
    return today()


def _stats(errors: list[float]) -> dict:
    abs_sorted = sorted(abs(e) for e in errors)
    p90 = abs_sorted[min(len(abs_sorted) - 1, int(0.9 * len(abs_sorted)))] if abs_sorted else float("nan")
    return {
        "n": len(errors),
        "median_abs": statistics.median(abs_sorted) if errors else float("nan"),
        "p90_abs": p90,
        "bias": statistics.median(errors) if errors else float("nan"),
    }


def summary(rows: list[Row], *, core_only: bool = True) -> dict[str, dict]:
    """Per model: ``n``, ``median_abs``, ``p90_abs``, ``bias`` (fractions) over its core (or all) requests."""
    by: dict[str, list[float]] = {}
    for r in rows:
        if r.error is not None and (r.core or not core_only):
            by.setdefault(r.model, []).append(r.error)
    return {m: _stats(e) for m, e in sorted(by.items(), key=lambda kv: -len(kv[1]))}


def by_source(rows: list[Row]) -> dict[tuple[str, str], dict]:
    """Per (source, model): the error statistics of its core requests."""
    by: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        if r.error is not None and r.core:
            by.setdefault((r.source, r.model), []).append(r.error)
    return {k: _stats(v) for k, v in sorted(by.items())}


def by_group(rows: list[Row]) -> dict[tuple[str, str], dict]:
    """Per (model, group): the error statistics of the requests carrying that group."""
    by: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        if r.error is not None:
            for g in r.groups:
                by.setdefault((r.model, g), []).append(r.error)
    return {k: _stats(v) for k, v in sorted(by.items())}


def refusals(rows: list[Row]) -> list[Row]:
    """Requests the API answered 200 and the simulator refused (retired models included, marked)."""
    return [r for r in rows if r.refused and r.real is not None]
