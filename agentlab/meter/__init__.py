"""What a call cost: the meter every client carries, and the pieces it is made of.

- ``middleware``: :class:`Meter`, SDK client middleware that records every Messages call, and ``meter_of(client)``;
- ``record``: :class:`CallRecord`, what it keeps of one call (usage, stop reason, time, conversation, re-prefill);
- ``conversations``: the keys that tell which conversation a call continues;
- ``usage``: :class:`Usage`, one call's token counts as one typed value (prompt total, ``+``);
- ``breakdown``: where a call's input went (tool-use prompt, tool definitions, system, task, history, new);
- ``stream``: metering streamed answers and every HTTP attempt (retries included);
- ``latency``: a call's latency, simulated or measured;
- ``prices``: the one place that prices a ``usage`` (genai-prices), the price data's date, ``agentlab models``.

Import what you need from its module (``from agentlab.meter.middleware import Meter``); the most used
names are also at the top level (``agentlab.Meter``, ``agentlab.cost_usd``).
"""
