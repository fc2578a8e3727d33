"""Structured notes outside the window: a ``memory`` tool the model writes and reads across sessions.

The commands are the API's memory tool's (``memory_20250818``: ``view``, ``create``, ``str_replace``,
``insert``, ``delete``, ``rename``, paths under ``/memories``; read 2026-11-30 from
https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool and the installed SDK's
``beta_memory_tool_20250818_*_command.py``). Live, you may offer the API's own definition
``{"type": "memory_20250818", "name": "memory"}`` instead of this custom schema; the harness runs the
commands either way (the model only asks). Here it is offered as an ordinary tool with the same
command names and fields, so the simulator and the loop treat it like any other.

Sandboxed like ``save_note``: every path must be ``/memories`` or below it, and resolve (symlinks
included) inside the folder given; anything else is refused with :class:`MemoryPathError` (a
``ToolError``, so the model reads it as an ``is_error`` result) and nothing is touched. ``create``
never overwrites, writes go through a temporary file and ``os.replace``, so a refused or failed
command loses nothing already written.

:func:`run_in_sessions` is the tactic: the task runs in sessions of a few turns each, every session
a fresh conversation (a clean window); what carries over is only what the model wrote to memory.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from agentlab.tools import Tool, ToolError, tool

ROOT = "/memories"
"""The virtual folder the model sees."""
API_TOOL = {"type": "memory_20250818", "name": "memory"}
"""The API's own definition of the memory tool (client-run; the API supplies the schema)."""


class MemoryPathError(ToolError):
    """A memory path outside ``/memories`` (or leading out of the folder): refused, nothing touched."""


def _resolve(folder: Path, path: Any) -> Path:
    if not isinstance(path, str) or not (path == ROOT or path.startswith(ROOT + "/")):
        raise MemoryPathError(f"memory path {path!r} is outside {ROOT}: every path must start with {ROOT}/, "
                              f"e.g. {ROOT}/progress.md. Nothing was changed.")
    target = (folder / path[len(ROOT):].lstrip("/")).resolve()
    if target != folder and folder not in target.parents:
        raise MemoryPathError(f"memory path {path!r} leads outside {ROOT} (via '..' or a symlink); "
                              f"use a path inside {ROOT}/. Nothing was changed.")
    return target


def _write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)  # atomic: the old content stays whole until the new one is complete


def make_memory_tool(folder: str | Path) -> Tool:
    """The ``memory`` tool over ``folder`` (created on first write)."""
    base = Path(folder).resolve()

    @tool(name="memory", writes=("memory",))
    def memory(command: str, path: str = "", file_text: str = "", old_str: str = "", new_str: str = "",
               insert_line: int = 0, insert_text: str = "", old_path: str = "", new_path: str = "") -> str:
        """Your notes that outlive this conversation: view, create, str_replace, insert, delete or rename files under /memories.

        Args:
            command: One of "view", "create", "str_replace", "insert", "delete", "rename".
            path: The file or folder, e.g. "/memories/progress.md" (every command but rename).
            file_text: create: the new file's content.
            old_str: str_replace: the exact text to replace (must occur once).
            new_str: str_replace: the replacement.
            insert_line: insert: the line after which to insert (0 = at the top).
            insert_text: insert: the text to insert.
            old_path: rename: the current path.
            new_path: rename: the new path.
        """
        if command == "rename":
            src, dst = _resolve(base, old_path), _resolve(base, new_path)
            for field_name, value, where in (("old_path", old_path, src), ("new_path", new_path, dst)):
                if where == base:
                    raise ToolError(f"rename {field_name}={value!r} is {ROOT} itself, which cannot be renamed or replaced; "
                                    f"name a file or folder inside it, e.g. {ROOT}/notes.md.")
            if src in dst.parents:
                raise ToolError(f"rename new_path={new_path!r} is inside old_path={old_path!r}: a folder cannot move into itself; "
                                "pick a new_path outside it.")
            if not src.exists():
                raise ToolError(f"The path {old_path} does not exist.")
            if dst.exists():
                raise ToolError(f"The destination {new_path} already exists; pick another name.")
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
            return f"Renamed {old_path} to {new_path}."
        target = _resolve(base, path)
        if command == "view":
            if target.is_dir() or (path == ROOT and not target.exists()):
                found = sorted(p.relative_to(base).as_posix() for p in target.rglob("*") if p.is_file()) if target.exists() else []
                return f"Files in {path}:\n" + ("\n".join(f"{ROOT}/{f}" for f in found) or "(none)")
            if not target.exists():
                raise ToolError(f"The path {path} does not exist. Create it with the create command.")
            lines = target.read_text(encoding="utf-8").splitlines()
            return f"Content of {path}:\n" + "\n".join(f"{i:6d}\t{ln}" for i, ln in enumerate(lines, 1))
        if command == "create":
            if str(path).endswith("/"):
                raise ToolError(f"create path={path!r} ends with '/', which names a folder; create makes a file: "
                                f"drop the trailing slash and give a file name, e.g. {str(path).rstrip('/')}/notes.md.")
            if target.exists():
                raise ToolError(f"The file {path} already exists; use str_replace or insert to change it.")
            _write(target, file_text)
            return f"File created at {path}."
        if command in ("str_replace", "insert") and not target.is_file():
            raise ToolError(f"The path {path} does not exist or is not a file.")
        if command == "str_replace":
            text = target.read_text(encoding="utf-8")
            if text.count(old_str) != 1 or not old_str:
                raise ToolError(f"old_str must occur exactly once in {path}; it occurs {text.count(old_str) if old_str else 0} times.")
            _write(target, text.replace(old_str, new_str))
            return f"Edited {path}."
        if command == "insert":
            lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
            if isinstance(insert_line, bool) or not 0 <= insert_line <= len(lines):
                raise ToolError(f"insert_line {insert_line} is out of range: {path} has {len(lines)} lines (use 0 to {len(lines)}).")
            add = insert_text if insert_text.endswith("\n") else insert_text + "\n"
            _write(target, "".join(lines[:insert_line]) + add + "".join(lines[insert_line:]))
            return f"Inserted {len(add.splitlines())} line(s) into {path} after line {insert_line}."
        if command == "delete":
            if target == base:
                raise ToolError(f"Refusing to delete {ROOT} itself; delete the files in it one by one.")
            if not target.exists():
                raise ToolError(f"The path {path} does not exist.")
            shutil.rmtree(target) if target.is_dir() else target.unlink()
            return f"Deleted {path}."
        raise ToolError(f"Unknown command {command!r}: use view, create, str_replace, insert, delete or rename.")

    return memory


def run_in_sessions(client: Any, task: str, tools: list[Tool], *, turns_per_session: int, max_sessions: int,
                    trace_dir: str | Path | None = None, **agent_options: Any) -> list:
    """Run ``task`` in fresh conversations of ``turns_per_session`` calls each until one ends by itself.

    Each session is its own ``run_agent`` (its own trace, ``session-N.jsonl`` in ``trace_dir``);
    returns the sessions' Runs. Bounded: at most ``max_sessions``.
    """
    from agentlab.loop import run_agent
    from agentlab.run import StopReason

    if not any(t.name == "memory" for t in tools):
        raise ValueError("run_in_sessions(tools=...): offer a memory tool (make_memory_tool(folder)); "
                         "without one nothing carries over from one session to the next")
    runs = []
    for n in range(1, max_sessions + 1):
        trace = Path(trace_dir) / f"session-{n}.jsonl" if trace_dir else None
        run = run_agent(client, task, tools, max_turns=turns_per_session, trace=trace, **agent_options)
        runs.append(run)
        if run.stop_reason != StopReason.MAX_TURNS:
            break
    return runs
