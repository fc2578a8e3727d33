"""Each notebook's experiment, as plain functions the notebook and its tests both call, its figure beside it.

- ``scaling`` (02): more cities, more turns, each re-sending more;
- ``comparison`` (02, 03, ``agentlab compare``): agent and workflow side by side;
- ``replacement``, ``variants``, ``city`` (03, 03b): the same task with the model or the code choosing
  each step, the variants the fixed path did not foresee, and the rerun-as-you-move widget;
- ``patterns``, ``speedup`` (04b): the five workflow patterns beside the agent; what parallel saves;
- ``who_decides`` (05): each guard against the misbehaving model it stops;
- ``recovery``, ``compounding`` (06): readable errors against raw tracebacks; per-step failures compounding over n steps;
- ``tool_speedup``, ``coupling`` (07): parallel tool calls, and the hidden-coupling bug;
- ``react_vs_native`` (08): prompted ReAct against native tool use;
- ``turn_costs``, ``preview``, ``sweeps`` (09): money and time per turn, a cost preview, sweeps;
- ``window_budget`` (10): the window as a budget, each call's parts as shares of it;
- ``position``, ``published`` (10): Lost in the Middle and context rot, cited, never simulated;
- ``multiplying``, ``capstone`` (12): tokens as agents multiply; the three questions from traces.

Notebooks 10 and 11 keep their experiments in their topic folders, ``agentlab.context`` and
``agentlab.injection``.
"""
