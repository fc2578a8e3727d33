"""pytest setup for the graded exercises (``make grade``).

Loads the agentlab grading plugin. The plugin registers the ``points`` and ``exercise`` markers,
gives graded tests without ``@pytest.mark.timeout`` a 10 s limit, prints the points table after
the run, and writes a JSON report with ``--grade-json PATH``. The gradebook copies this file
(never the student's) next to the instructor's tests. Graded tests use the simulated model only:
API credentials are removed from the environment for every test.
"""

import pytest

pytest_plugins = ["agentlab.grading.plugin"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
