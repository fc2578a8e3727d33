"""Debian packages the suite needs (bubblewrap, Chromium), installed with apt-get where missing.

One helper for every conftest, and one lock for every process: on a fresh machine the grading tests'
bubblewrap and the browser test's Chromium were installed by two xdist workers at once, and the
second ``apt-get`` failed on dpkg's lock, so one worker graded without the sandbox while its child
processes found bwrap installed a moment later.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile

APT_S = 900
"""Seconds one apt-get command may take."""
LOCK = os.path.join(tempfile.gettempdir(), "agentlab-apt.lock")
"""Held while apt-get runs: one install at a time across pytest-xdist workers and the controller."""


def apt_install(binary: str, *packages: str) -> str | None:
    """Install ``packages`` unless ``binary`` (a command name or an absolute path) is already there;
    None when it is there afterwards, else why not."""

    def present() -> bool:
        return os.path.exists(binary) if os.path.isabs(binary) else shutil.which(binary) is not None

    if present():
        return None
    if os.geteuid() != 0:
        return "not root, so apt-get cannot install it"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even if this process dies
        if present():  # another process installed it while this one waited
            return None
        for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *packages]):
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=APT_S, env=env)
            except (OSError, subprocess.TimeoutExpired) as e:
                return f"{' '.join(cmd)}: {e}"
            if done.returncode != 0:
                return f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-400:]}"
    return None if present() else f"apt-get put no {binary} on this machine"
