"""Where the spans go: an OTLP/JSON file, an OTLP/HTTP receiver after the run, or one as the run goes.

The network path is the official exporter (``opentelemetry-exporter-otlp-proto-http``); the file is the same
protobuf message in OTLP's JSON form (ids as hex, enums as numbers), so any OTLP reader takes either.
"""

from __future__ import annotations

import atexit
import base64
import json
import logging
import sys
import threading
import time
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


def spans_of(records: list[dict], start_ns: int | None = None) -> list[ReadableSpan]:
    """Every span of a trace's ``records`` (header first), laid out 1 ms apart from ``start_ns`` (default: now).
    A trace cut off before its ``stop`` (a killed run) ends where its records end, its run span an error."""
    spans, out = Spans(clock="order"), []
    t0 = time.time_ns() if start_ns is None else start_ns
    for i, record in enumerate(records):
        out += spans.add(record, t0 + i * STEP_NS)
    return out + spans.finish(t0 + max(len(records) - 1, 0) * STEP_NS)


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


COOL_DOWN_S = 30.0
"""After a failed send the live path sends nothing to that receiver for this long, then tries again."""


class _Receiver(SpanExporter):
    """The live path's exporter, one per receiver, run by its batch processor's thread (never the run's): the
    first failed send is said in one line; after any failure it rests ``COOL_DOWN_S`` and then tries again, so a
    receiver started late gets the runs that follow."""

    def __init__(self, url: str) -> None:
        self.url, self.inner = url, OTLPSpanExporter(endpoint=url, timeout=TIMEOUT_S)
        self.said, self.resting_until = False, 0.0

    def export(self, spans) -> SpanExportResult:  # type: ignore[override]
        if time.monotonic() < self.resting_until:
            return SpanExportResult.FAILURE
        try:
            result = _export(self.inner, spans)
        except Exception:  # noqa: BLE001  (a receiver must never break the run)
            result = SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS:
            self.resting_until = time.monotonic() + COOL_DOWN_S
            if not self.said:
                self.said = True
                print(
                    f"agentlab: could not send spans to {self.url}; runs go on and their trace files are whole "
                    f"(`agentlab trace export` sends one later); trying again in {COOL_DOWN_S:g} s",
                    file=sys.stderr,
                )
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


_processors: dict[str, BatchSpanProcessor] = {}  # one per receiver for the process: its thread sends in batches
_lock = threading.Lock()


def _flush_at_exit() -> None:
    for processor in list(_processors.values()):
        processor.shutdown()  # what the last runs ended is sent before the interpreter goes


class LiveSpans:
    """A trace's sink (``Trace(otlp=...)``): each record becomes spans on the wall clock as it is written. They
    are handed to the receiver's batch processor, whose own thread sends them within half a second: the run never
    waits for a receiver, and the spans still waiting when the interpreter exits are sent then."""

    def __init__(self, url: str) -> None:
        url = endpoint(url)
        with _lock:
            if not _processors:
                atexit.register(_flush_at_exit)
            if url not in _processors:
                _processors[url] = BatchSpanProcessor(_Receiver(url), schedule_delay_millis=500)
            self.processor = _processors[url]
        self.spans = Spans(clock="wall")
        self.broken = False

    def __call__(self, record: dict) -> None:
        if self.broken:
            return
        try:
            for span in self.spans.add(record, time.time_ns()):
                self.processor.on_end(span)
        except Exception as e:  # noqa: BLE001  (spans must never break the run they describe)
            self.broken = True
            print(
                f"agentlab: no more spans for this run ({type(e).__name__}: {e}); its trace file is whole",
                file=sys.stderr,
            )
