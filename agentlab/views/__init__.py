"""Pictures of any run, drawn from its ``Run`` and its trace only (never from how it was produced).

- ``figures``: tokens per turn, agent against workflow, and the plotting helpers every figure shares;
- ``swimlane``: the course's four swim lanes (model, host application, your code, tools), as a sequence diagram;
- ``stepper``: a run call by call, the messages as each request carried them;
- ``widgets``: the notebook widgets (the stepper, experiment controls), with a static fallback;
- ``display``: short helpers for notebook cells (JSON of what went over the wire, a turns table);
- ``i18n`` and ``fonts``: every figure in the notebook's language, with CJK glyphs;
- ``style``: one colour-blind-safe palette (Okabe-Ito) and whole-number ticks on count axes, for every figure.

Figures of one experiment live beside it in ``agentlab.experiments``.
"""
