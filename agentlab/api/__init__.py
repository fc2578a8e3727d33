"""What the harness and the simulator both know about the Messages API and its models, and nothing else.

``profiles`` (each model's limits, tool-use prompt, lifecycle; ``data/profiles.json``; the model catalog and
its "did you mean"), ``tokens`` (the token estimator, with ``documents`` and ``images`` for those blocks),
``wire`` (the header names the simulator answers with and the meter reads) and ``request`` (option values
both sides check: effort levels, the task budget's beta and minimum). It imports nothing else of agentlab:
the harness (top level, ``meter/``, ``live/``) and ``sim/`` both import it, and neither imports the other
(``tests/test_layout.py`` holds all three rules).
"""
