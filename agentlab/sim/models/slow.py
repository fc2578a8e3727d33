"""Give the instant simulator a response time, for demos and benchmarks of concurrency.

``Latency(policy, seconds)`` answers as ``policy`` does after waiting ``seconds`` per request.
The wait runs in the calling thread (inside the SDK's transport), so threads calling the same client
overlap their waits exactly as they would overlap network round trips. Use it only where wall time
is the point (``benchmarks/``, notebook demos); tests keep the simulator instant.
"""

from __future__ import annotations

import time
from typing import Callable

from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.policy import Policy, Reply


class Latency:
    """A policy wrapper that waits before answering (see the module docstring)."""

    def __init__(
        self, policy: Policy | None = None, seconds: float = 0.05, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        if not isinstance(seconds, (int, float)) or seconds < 0:
            raise ValueError(f"Latency(seconds={seconds!r}): a wait in seconds >= 0, e.g. 0.05")
        self.policy = policy if policy is not None else CarefulAgent()
        """The policy that writes the answer."""
        self.seconds = float(seconds)
        """Seconds waited per request."""
        self.sleep = sleep
        """The wait function (inject a fake one to count waits without waiting)."""

    def __call__(self, request: dict) -> Reply:
        self.sleep(self.seconds)
        return self.policy(request)
