"""``CarefulAgent``: the simulated model's default policy for the course's tasks.

It reads the conversation and the offered tools the way a careful agent would:
for "which of X and Y is warmer, then save a note" it asks for ``get_weather`` once per city (one
per turn, or all in one turn when ``parallel=True`` and the request does not set
``disable_parallel_tool_use``), then ``save_note``, then ends its turn with text naming the warmer
city. Every number it writes comes from the tool results in the conversation, never from its own
data. A task it cannot do gets a short ``end_turn`` saying so.

Errors are read as a capable model reads them (``read_error``), in English or Chinese: an error
that says what to fix ("Did you mean: X?", a missing field, the valid tools) or to try again is acted
on once per distinct error text; a raw Python traceback gets at most one blind retry of the same
call. Then it gives up and says why (the error's last line), never inventing a number.
"""

from __future__ import annotations

from agentlab.sim.models.city_task import city_steps
from agentlab.sim.models.react import ReactWriter, is_react_request
from agentlab.sim.models.roles import role_for
from agentlab.sim.policy import Reply


class CarefulAgent:
    """The simulator's default policy (see the module docstring).

    A request prompting ReAct (no ``tools``, a system prompt asking for ``Action Input:``) is answered
    by ``react.ReactWriter``; a request that asks for a role (an output schema, a summariser or writer
    system prompt, the adaptive task's tools) by ``roles.role_for``; the city task by ``city_task.city_steps``.
    """

    def __init__(self, parallel: bool = False) -> None:
        self.parallel = parallel
        """Ask for every pending ``get_weather`` in one turn (unless the request disables it)."""

    def __call__(self, request: dict) -> Reply:
        if is_react_request(request):
            return ReactWriter()(request)  # prompted for ReAct: write Thought / Action prose
        role = role_for(request)  # what the request asks (system prompt, output schema, tools) picks a role
        if role is not None:
            return role(request)
        return city_steps(request, self.parallel)
