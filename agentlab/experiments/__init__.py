"""Experiments the notebooks run, as plain functions the tests run too: the replacement experiment
(agent vs workflow, and the variants), the five patterns next to the agent, and chapter 3's guards,
error recovery, parallel tools and ReAct."""
