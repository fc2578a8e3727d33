"""pytest setup for the graded exercises (``make grade``).

Loads the agentlab grading plugin. The plugin registers the ``points`` and ``exercise`` markers,
gives graded tests without ``@pytest.mark.timeout`` a 10 s limit, prints the points table after
the run, and writes a JSON report with ``--grade-json PATH``. The gradebook copies this file
(never the student's) next to the instructor's tests.
"""

pytest_plugins = ["agentlab.grading.plugin"]
