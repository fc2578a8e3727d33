"""Experiments the notebooks run: the replacement experiment (agent vs workflow, and the variants)
and the five patterns next to the agent on one shared task."""
