"""Grading for the exercises: student release, pytest points plugin, class gradebook.

- ``agentlab.grading.release``: ``release_student`` writes the student edition (solutions stubbed).
- ``agentlab.grading.plugin``: the pytest plugin behind ``make grade`` (points table, ``--grade-json``).
- ``agentlab.grading.gradebook``: ``gradebook`` grades a folder of submissions into a CSV.
- ``lazy_import``: how exercise tests import the student's module.
"""

from agentlab.grading.lazy import lazy_import

__all__ = ["lazy_import"]
