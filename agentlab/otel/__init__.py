"""A run's trace as OpenTelemetry spans, for the viewers people already use on agent runs (Phoenix, Jaeger,
Langfuse, an OpenTelemetry Collector): anything that reads OTLP.

    agentlab trace export runs/agent.jsonl --otlp http://localhost:6006    # send a finished run (Phoenix)
    agentlab trace export runs/agent.jsonl --json agent.otlp.json          # an OTLP/JSON file, offline
    run_agent(client, task, tools, otlp="http://localhost:4318")          # spans sent as the run goes
    AGENTLAB_OTLP=http://localhost:4318 make lab                            # ... for every run of every notebook

The spans: one per run (``invoke_agent``, or ``invoke_workflow`` for a workflow), and under it one per model
call the trace records (``chat {model}``, from its ``request`` event to its ``response``) and one per tool run
(``execute_tool {name}``, ``tool_call`` to ``tool_result``), its ``agentlab.chosen_by`` saying who chose
it: ``"model"``, or ``"code"`` for a workflow's ``code_step``. Every field of those records is an attribute
(``agentlab.request.*``, ``agentlab.response.*``, ``agentlab.call.*``, ``agentlab.result.*``, ``agentlab.stop.*``)
and every other event (a guard's refusal, a compaction, a failed attempt...) a span event on the span it
concerns, so nothing of the trace is left out. A compaction's summarising call is such an event, not a
``chat`` span: the trace records it as one ``compaction`` event. Names follow OpenTelemetry's GenAI semantic
conventions (``gen_ai.*``), which upstream still marks as *development*: they may change, and viewers read
them as they stand.

Errors: a call with no reply, a tool that failed or was blocked, and a run that ended in an error or was
cut off (a trace without ``stop``) are spans with an error status and ``error.type``; a failed attempt the
SDK retried successfully is only an event.

Tokens: ``gen_ai.usage.input_tokens`` counts every input token, cache reads and writes included (the
convention's rule), where the API's own ``input_tokens`` leaves them out; the two cache parts are given apart
as ``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.cache_creation.input_tokens``.

Time and ids: a trace file records the order of events, not their time (two simulated runs give
byte-identical files). Exported from a file, the records are laid out 1 ms apart from the moment of export
and the run's span says ``agentlab.clock = "order"``: read the order and the nesting, never a duration. Ids
are new at each export, so exporting one file twice shows two runs. Sent as the run goes, every span carries
the wall clock (``"wall"``) and leaves within half a second on a thread of its own: the run never waits for
a receiver. One that is down costs one line on stderr; sends pause 30 s after a failure, then try again.

Needs the ``otel`` extra (``pip install 'agentlab[otel]'``; this repository's ``.venv`` has it), which the
default install leaves out; the rest of agentlab never imports it.
"""

from __future__ import annotations

import sys

EXTRA = "pip install 'agentlab[otel]'"


def live_sink(url: str, from_env: bool = False):
    """The sink a :class:`agentlab.trace.Trace` feeds each record to. Without the extra, or with an address that
    is no http(s) URL: an error with the fix; when the address came from ``$AGENTLAB_OTLP`` (``from_env``), one
    line said once instead, and ``None`` (the runs go on without spans)."""
    try:
        from agentlab.otel.export import LiveSpans

        return LiveSpans(url)
    except ImportError as e:
        why = (
            f"sending spans to {url} needs OpenTelemetry's SDK and exporter, which the default install leaves "
            f"out ({e.name} is missing): {EXTRA}"
        )
        if not from_env:
            raise ImportError(why) from None
    except ValueError as e:
        if not from_env:
            raise
        why = str(e)
    global _said
    if not _said:
        _said = True
        print(f"agentlab: AGENTLAB_OTLP={url!r}: {why}; runs go on without spans", file=sys.stderr)
    return None


_said = False  # the one line for a bad $AGENTLAB_OTLP is said once a process
