"""What agentlab adds to the API's wire format: the simulator's response headers, read by ``agentlab.meter``,
and the prefix of the class gateway's tokens.

The real API sends none of these headers, so a metered live response is told from a simulated one by
their absence. They live here, in the shared ``api/``, so the simulator and the harness both import them
and neither imports the other.
"""

SIM_HEADER = "agentlab-simulated"
"""Set on every simulated response: its token counts are the simulator's estimates."""

BREAKDOWN_HEADER = "agentlab-input-breakdown"
"""The parts of the request's input (``agentlab.api.tokens.input_parts``), as JSON."""

LATENCY_HEADER = "agentlab-simulated-latency-ms"
"""The simulated latency of the response, in milliseconds (``agentlab.sim.latency``)."""

GATEWAY_TOKEN_PREFIX = "agentlab-gw-"
"""What every token the class gateway (``agentlab gateway``) issues starts with: ``connect()`` reads it to
say that its live calls go through the gateway (which forwards them with the instructor's key)."""
