"""Grading for the exercises: student release, pytest points plugin, class gradebook.

- ``agentlab.grading.release``: ``release_student`` writes the student edition (solutions stubbed).
- ``agentlab.grading.plugin``: the pytest plugin behind ``make grade`` (points table, ``--grade-json``,
  warm-up before the first test, body-only time limits, ``@pytest.mark.forbids`` from ``forbid``).
- ``agentlab.grading.student_view``: what ``make grade`` prints (one line per exercise, the first
  failure in full with a short traceback, the total last).
- ``agentlab.grading.gradebook``: ``gradebook`` grades a folder of submissions into a CSV, ``-j N`` at
  a time, through warm workers (``pool``, ``worker``) that run each instructor test in a trusted fork
  inside a staging folder (``sandbox``), with credentials scrubbed (``credentials``); the student's
  functions run in a bubblewrap sandbox (``bwrap``, ``student_server``) reached only through a JSON
  channel where only data crosses (``channel``); feedback files, class summary and plot come from ``summary``.
- ``lazy_import``: how exercise tests import the student's module; ``shared``: trusted work a test
  needs (the grader's own measurement), computed once per worker before it forks.
"""

from agentlab.grading.lazy import lazy_import
from agentlab.grading.precompute import shared

__all__ = ["lazy_import", "shared"]
