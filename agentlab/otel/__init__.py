"""A run's trace as OpenTelemetry spans, for the viewers people already use on agent runs (Phoenix, Jaeger,
Langfuse, an OpenTelemetry Collector): anything that reads OTLP.

    agentlab trace export runs/agent.jsonl --otlp http://localhost:6006    # send a finished run (Phoenix)
    agentlab trace export runs/agent.jsonl --json agent.otlp.json          # an OTLP/JSON file, offline
    run_agent(client, task, tools, otlp="http://localhost:4318")          # spans sent as the run goes
    AGENTLAB_OTLP=http://localhost:4318 make lab                            # ... for every run of every notebook

The spans: one per run (``invoke_agent``, or ``invoke_workflow`` for a workflow), and under it one per model
call (``chat {model}``, from the trace's ``request`` event to its ``response``) and one per tool run
(``execute_tool {name}``, ``tool_call`` to ``tool_result``), its ``agentlab.chosen_by`` saying who chose
it: ``"model"``, or ``"code"`` for a workflow's ``code_step``. Every other event of the trace (a guard's
refusal, a compaction, a failed attempt...) is a span event on the span open at the time, so nothing of the
trace is left out. Names follow OpenTelemetry's GenAI semantic conventions (``gen_ai.*``), which upstream still
marks as *development*: they may change, and viewers read them as they stand.

Tokens: ``gen_ai.usage.input_tokens`` counts every input token, cache reads and writes included (the
convention's rule), where the API's own ``input_tokens`` leaves them out; the two cache parts are given apart
as ``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.cache_creation.input_tokens``.

Time: a trace file records the order of events, not their time (two simulated runs give byte-identical files).
Exported from a file, the records are laid out 1 ms apart from the moment of export and the run's span says
``agentlab.clock = "order"``: read the order and the nesting, never a duration. Sent as the run goes, every
span carries the wall clock (``"wall"``). A receiver that is down costs one line on stderr; the run goes on.

Needs the ``otel`` extra (``pip install 'agentlab[otel]'``; this repository's ``.venv`` has it), which the
default install leaves out; the rest of agentlab never imports it.
"""

from __future__ import annotations

EXTRA = "pip install 'agentlab[otel]'"


def live_sink(url: str):
    """The sink a :class:`agentlab.trace.Trace` feeds each record to; ImportError with the fix without the extra."""
    try:
        from agentlab.otel.export import LiveSpans
    except ImportError as e:
        raise ImportError(
            f"sending spans to {url} needs OpenTelemetry's SDK and exporter, which the default install leaves "
            f"out ({e.name} is missing): {EXTRA}"
        ) from None
    return LiveSpans(url)
