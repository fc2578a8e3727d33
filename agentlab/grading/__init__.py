"""Grading for the exercises: student release, pytest points plugin, class gradebook.

- ``agentlab.grading.release``: ``release_student`` writes the student edition (solutions stubbed).
- ``agentlab.grading.plugin``: the pytest plugin behind ``make grade`` (points table, ``--grade-json``,
  warm-up before the first test, body-only time limits, ``@pytest.mark.forbids`` from ``forbid``).
- ``agentlab.grading.gradebook``: ``gradebook`` grades a folder of submissions into a CSV, ``-j N`` at
  a time, through warm workers (``pool``, ``worker``) that run each test in a confined fork
  (``confine``) inside a staging folder (``sandbox``), with credentials scrubbed (``credentials``).
- ``lazy_import``: how exercise tests import the student's module.
"""

from agentlab.grading.lazy import lazy_import

__all__ = ["lazy_import"]
