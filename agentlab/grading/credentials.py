"""Keep the instructor's keys and tokens away from student code.

``scrub_environment()`` removes API keys, tokens, passwords and the like from this process's
own ``os.environ`` before the gradebook starts any worker, so neither a student's environment nor
its parent's holds them. (``/proc/<pid>/environ`` shows the environment a process *started* with:
the ``agentlab gradebook`` command therefore re-executes itself without them, see
``agentlab.grading.cli``; a student's uid cannot read a root process's ``/proc`` files anyway.)
"""

from __future__ import annotations

import os
import re

SECRET = re.compile(
    r"(^ANTHROPIC_|^OPENAI_|^AWS_|^GH_|^GITHUB_TOKEN|_KEY$|KEY_|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL"
    r"|^AUTH|_AUTH$)",
    re.IGNORECASE,
)
"""Environment variable names treated as credentials."""


def is_credential(name: str) -> bool:
    return SECRET.search(name) is not None


def scrub_environment(env: dict | None = None) -> list[str]:
    """Delete every credential-looking variable from ``env`` (default ``os.environ``); return their names."""
    env = os.environ if env is None else env
    names = sorted(k for k in env if is_credential(k))
    for name in names:
        del env[name]
    return names
