"""What the simulator adds to the API's wire format: its own response headers, read by ``agentlab.meter``.

The real API sends none of these, so a metered live response is told from a simulated one by their
absence. They live here, inside ``sim/``, so the simulator imports nothing from the harness; the
meter imports them from the simulator, never the other way round.
"""

SIM_HEADER = "agentlab-simulated"
"""Set on every simulated response: its token counts are the simulator's estimates."""

BREAKDOWN_HEADER = "agentlab-input-breakdown"
"""The parts of the request's input (``agentlab.api.tokens.input_parts``), as JSON."""

LATENCY_HEADER = "agentlab-simulated-latency-ms"
"""The simulated latency of the response, in milliseconds (``agentlab.sim.latency``)."""
