"""pytest setup for the graded exercises (``make grade``).

Loads the agentlab grading plugin. The plugin registers the ``points``, ``exercise`` and
``forbids`` markers, imports the SDK and the lab and builds a simulated client once before the
first test (so no test's time limit pays for that), times only each test's body, prints the
points table after the run, and writes a JSON report with ``--grade-json PATH``. The gradebook
uses this file (never the student's) next to the instructor's tests. Graded tests use the
simulated model only: API credentials are removed from the environment for every test.
"""

import pytest

pytest_plugins = ["agentlab.grading.plugin"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
