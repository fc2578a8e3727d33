"""Grading for the exercises: student release, pytest points plugin, class gradebook.

The rooms:

- ``release``: ``release_student`` writes the student edition (solutions stubbed).
- ``plugin`` (with ``student_view``, ``feedback``, ``forbid``): what ``make grade`` runs in one process, the student's
  (``feedback`` shows the tests' messages in Chinese to a zh-CN student).
  It provides the points table, ``--grade-json``, the warm-up, the time limits and
  ``@pytest.mark.forbids``.
- ``gradebook`` (with ``submissions``, ``table``, ``summary``, ``credentials``): grades a class into a CSV.
- The gradebook's processes, each line below one process, and what crosses between them:

  ``agentlab gradebook`` (``gradebook``, ``pool``)
      reads and hashes every submission, then writes the CSV, the feedback, the summary and the plot.
      It sends a worker one JSON job per student and gets one JSON line per student back.
  -> worker (``worker``: warm pytest, the instructor's tests collected; one per ``-j``)
      forks one trusted runner per student and sends it one test index and nonce per line.
  -> trusted runner (``runner``)
      runs the instructor's test. As root it has an unprivileged uid and namespaces of its own
      (``confine``). Its only channel to the student's code is ``channel``: JSON values, call-only
      function handles, and the client as its HTTP API (``api_pipe``).
  -> sandbox (``bwrap``: bubblewrap, the student's uid, ``mounts``)
      -> ``student_server``: warm, it never runs student code.
      -> ``student_process``: runs the student's module, sealed by ``forbid.seal`` when the test forbids
         a reference, and answers the channel.

- ``lazy_import``: how exercise tests import the student's module.
- ``answered`` (``checks``): whether a conversation a student's loop returned answers every ``tool_use``.
- ``shared``: trusted work a test needs (the grader's own measurement), computed once per worker before
  it forks.
"""

from agentlab.grading.checks import answered
from agentlab.grading.lazy import lazy_import
from agentlab.grading.precompute import shared

__all__ = ["answered", "lazy_import", "shared"]
