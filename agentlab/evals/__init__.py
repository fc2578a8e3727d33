"""Agents measured over many trials: how often each variant succeeds on the task set, what its runs cost,
and why the failures failed (``agentlab eval``).

- ``tasks.py``: the task set (the city task and its siblings) and the code that checks each trial's outcome;
- ``estimators.py``: pass@k and pass^k, unbiased, and their intervals;
- ``trials.py``: the trials (offline: the simulator with seeded variation; live: through a capped client), one row
  each, and the summary;
- ``plot.py``: pass@k and pass^k against k, with their intervals (notebook 14's figure).
"""
