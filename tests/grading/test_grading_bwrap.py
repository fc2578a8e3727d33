"""The bubblewrap command line of a student's sandbox (``agentlab.grading.bwrap``), read without running it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentlab.grading import bwrap


@pytest.fixture
def command(monkeypatch):
    monkeypatch.setattr(bwrap, "available", lambda: None)  # as where bwrap works, whether or not it is here
    monkeypatch.setattr(bwrap, "python_roots", lambda: ["/tmp/clone/.venv", "/usr/local/python"])
    cmd, _env, sandboxed = bwrap.sandbox_command(
        Path("/tmp/stage/lib"), Path("/tmp/stage/homes/s1"), 61001, Path("/tmp/stage/homes/s1-scratch")
    )
    assert sandboxed
    return cmd


def _mounts(cmd: list[str]) -> list[tuple[int, str]]:
    """(position, destination) of every bind and folder made inside the sandbox."""
    out = []
    for i, arg in enumerate(cmd):
        if arg in ("--ro-bind", "--bind"):
            out.append((i, cmd[i + 2]))
        elif arg == "--dir":
            out.append((i, cmd[i + 1]))
    return out


def test_what_lives_under_tmp_is_mounted_after_the_private_tmp_so_it_is_not_hidden(command):
    tmpfs = command.index("--tmpfs")
    assert command[tmpfs + 1] == "/tmp"
    under_tmp = [(i, dest) for i, dest in _mounts(command) if dest.startswith("/tmp/")]
    assert {"/tmp/clone/.venv", "/tmp/stage/homes/s1-scratch"} <= {d for _, d in under_tmp}
    assert all(i > tmpfs for i, _ in under_tmp), under_tmp  # a venv in a clone under /tmp must stay visible


def test_the_folders_on_the_way_are_made_traversable_and_only_scratch_is_writable(command):
    made = {command[i + 1]: command[i - 2 : i] for i, a in enumerate(command) if a == "--dir"}
    assert {"/tmp/clone", "/tmp/stage", "/tmp/stage/homes", "/usr/local"} <= set(made)
    assert all(perms == ["--perms", "0755"] for perms in made.values()), made  # bwrap alone would make them 0700
    writable = [command[i + 2] for i, a in enumerate(command) if a == "--bind"]
    assert writable == ["/tmp/stage/homes/s1-scratch"]
