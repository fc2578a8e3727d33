"""``CarefulAgent``: the simulated model's default policy, as a careful agent would act on the course's tasks.

It reads what the request asks for and answers with the policy written for it:

- a ReAct prompt (no ``tools``, a system prompt asking for ``Action Input:``): ``react.ReactWriter``;
- a workflow role (an output schema, a summariser or writer prompt, the adaptive task's tools): ``roles``;
- the city task ("which of X and Y is warmer? then save a note"): ``city_task.city_steps``.

How it reads errors (``reading.read_error``), by meaning: a transient error (timed out, unavailable,
rate limited, "try again") is retried with the same call up to 3 times (``reading.retry_limit``; the
bound is data in ``data/profiles.json`` with its source: the recorded real models retried once and
succeeded, and issue 19's "2-3 times" sets the stand-in bound); an error that says what to fix ("Did
you mean: X?") is retried once with the fix; not found, forbidden or impossible is not retried; a raw
traceback gets at most one blind retry. Then it gives up and says why, never inventing a number. This
is how the scripted model is written, not a measurement of Claude.
"""

from __future__ import annotations

from agentlab.sim.models.adaptive import adaptive_agent
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

    def __init__(self, parallel: bool = True) -> None:
        self.parallel = parallel
        """Ask for every pending ``get_weather`` in one turn (unless the request sets
        ``disable_parallel_tool_use``), as the recorded real models do; ``False``: one per turn."""

    def __call__(self, request: dict) -> Reply:
        if is_react_request(request):
            return ReactWriter()(request)  # prompted for ReAct: write Thought / Action prose
        role = role_for(request)  # what the request asks (system prompt, output schema, tools) picks a role
        if role is adaptive_agent:
            return adaptive_agent(request, self.parallel)  # tool calls, so it follows the parallel setting too
        if role is not None:
            return role(request)
        return city_steps(request, self.parallel)
