"""Where the spans go: an OTLP/JSON file, an OTLP/HTTP receiver after the run, or one as the run goes.

The network path is the official exporter (``opentelemetry-exporter-otlp-proto-http``); the file is the same
protobuf message in OTLP's JSON form (ids as hex, enums as numbers), so any OTLP reader takes either.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import random
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agentlab.otel.spans import Spans

STEP_NS = 1_000_000
"""A file's records are laid out this far apart (1 ms): a trace records their order, not their time."""
TIMEOUT_S = 5.0
"""How long one send to a receiver may take before it counts as failed."""


_quiet = threading.local()  # set while agentlab sends: the exporter's retry warnings are replaced by one line of ours


def _not_ours(record: logging.LogRecord) -> bool:
    return not getattr(_quiet, "on", False)


logging.getLogger(OTLPSpanExporter.__module__).addFilter(_not_ours)


def _export(exporter: OTLPSpanExporter, spans) -> SpanExportResult:
    _quiet.on = True
    try:
        return exporter.export(spans)
    finally:
        _quiet.on = False


def endpoint(url: str) -> str:
    """The traces endpoint for ``url``: a receiver's base address gets OTLP's ``/v1/traces``; a full path is kept.
    Anything but an http(s) address is refused with the fix."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"OTLP address {url!r}: give the receiver's http(s) address, e.g. http://localhost:4318 "
            "(an OpenTelemetry Collector) or http://localhost:6006 (Phoenix)"
        )
    return url if parts.path.rstrip("/").endswith("/v1/traces") else url.rstrip("/") + "/v1/traces"


def _ids(seed: bytes) -> Iterator[int]:
    """Span ids from ``seed``: the same file always exports the same ids (a receiver sees one trace, not two)."""
    n = 0
    while True:  # ends when the caller stops asking: one id per span
        n += 1
        yield int.from_bytes(hashlib.sha256(seed + n.to_bytes(8, "big")).digest()[:8], "big") or 1


def spans_of(records: list[dict], seed: bytes, start_ns: int | None = None) -> list[ReadableSpan]:
    """Every span of a trace's ``records`` (header first), laid out 1 ms apart from ``start_ns`` (default: now);
    ids drawn from ``seed`` (the file's bytes: the same file always gives the same ids)."""
    seed = hashlib.sha256(seed).digest()
    spans = Spans(records[0], int.from_bytes(seed[:16], "big") or 1, _ids(seed), clock="order")
    t0 = time.time_ns() if start_ns is None else start_ns
    out = []
    for i, record in enumerate(records):
        out += spans.add(record, t0 + i * STEP_NS)
    return out


def otlp_json(spans: list[ReadableSpan]) -> dict:
    """``spans`` as one OTLP/JSON ``ExportTraceServiceRequest``: protobuf's JSON with OTLP's two differences
    (trace and span ids as hex, not base64; enums as numbers)."""
    doc = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource in doc.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return doc


def write_json(spans: list[ReadableSpan], out: str | Path) -> Path:
    out = Path(out)
    out.write_text(json.dumps(otlp_json(spans), indent=1) + "\n", encoding="utf-8")
    return out


def send(spans: list[ReadableSpan], url: str) -> None:
    """Send ``spans`` to the receiver at ``url`` now; raises ConnectionError (one line) when it does not take them."""
    exporter = OTLPSpanExporter(endpoint=endpoint(url), timeout=TIMEOUT_S)
    try:
        ok = _export(exporter, spans) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()
    if not ok:
        raise ConnectionError(f"the OTLP receiver at {endpoint(url)} did not take the spans (is it running?)")


class _SayOnce(SpanExporter):
    """The live path's exporter: a failed send is said once, in one line, and nothing more is sent there."""

    def __init__(self, url: str) -> None:
        self.url, self.inner, self.dead = url, OTLPSpanExporter(endpoint=url, timeout=TIMEOUT_S), False

    def export(self, spans) -> SpanExportResult:  # type: ignore[override]
        if self.dead:
            return SpanExportResult.FAILURE
        try:
            result = _export(self.inner, spans)
        except Exception:  # noqa: BLE001  (a receiver must never break the run)
            result = SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS:
            self.dead = True
            print(
                f"agentlab: could not send spans to {self.url}; the run goes on and its trace file is whole "
                "(`agentlab trace export` sends it later)",
                file=sys.stderr,
            )
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


_processors: dict[str, BatchSpanProcessor] = {}  # one per receiver for the process: its thread sends in batches
_lock = threading.Lock()


class LiveSpans:
    """A trace's sink (``Trace(otlp=...)``): each record becomes spans on the wall clock as it is written; they
    are sent in the background, and at the run's end the rest is flushed (waiting at most ``TIMEOUT_S``)."""

    def __init__(self, url: str) -> None:
        url = endpoint(url)
        with _lock:
            if url not in _processors:
                _processors[url] = BatchSpanProcessor(_SayOnce(url), schedule_delay_millis=500)
            self.processor = _processors[url]
        self.spans: Spans | None = None
        self.broken = False

    def __call__(self, record: dict) -> None:
        if self.broken:
            return
        try:
            if self.spans is None:
                ids = iter(lambda: random.getrandbits(64) or 1, 0)
                self.spans = Spans(record, random.getrandbits(128) or 1, ids, "wall")
            for span in self.spans.add(record, time.time_ns()):
                self.processor.on_end(span)
            if record.get("event") == "stop":
                self.processor.force_flush(int(TIMEOUT_S * 1000))
        except Exception as e:  # noqa: BLE001  (spans must never break the run they describe)
            self.broken = True
            print(
                f"agentlab: no more spans for this run ({type(e).__name__}: {e}); its trace file is whole",
                file=sys.stderr,
            )
