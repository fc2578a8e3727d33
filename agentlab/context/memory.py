"""Structured notes outside the window: a ``memory`` tool the model writes and reads across sessions.

The commands are the API's memory tool's (``memory_20250818``: ``view``, ``create``, ``str_replace``,
``insert``, ``delete``, ``rename``, paths under ``/memories``; read 2026-11-30 from
https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool and the installed SDK's
``beta_memory_tool_20250818_*_command.py``). Live, you may offer the API's own definition
``{"type": "memory_20250818", "name": "memory"}`` instead of this custom schema; the harness runs the
commands either way (the model only asks). Here it is offered as an ordinary tool with the same
command names and fields, so the simulator and the loop treat it like any other.

Sandboxed like ``save_note`` (``agentlab.sandbox.Folder``): every path must be ``/memories`` or below
it, and is reached relative to the open folder without following a link (``..``, absolute paths,
symlinks, hard links, NUL, device and over-long names refused); anything else is refused with
:class:`MemoryPathError` (a ``ToolError``, so the model reads it as an ``is_error`` result) and
nothing is touched. ``create`` never overwrites; writes go through a unique temporary file and
``os.replace``, and each command holds the folder's lock, so a refused, failed or concurrent command
loses nothing already written.

:func:`run_in_sessions` is the tactic: the task runs in sessions of a few turns each, every session
a fresh conversation (a clean window); what carries over is only what the model wrote to memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentlab.sandbox import Folder, SandboxPathError
from agentlab.tools import Tool, ToolError, tool

ROOT = "/memories"
"""The virtual folder the model sees."""
API_TOOL = {"type": "memory_20250818", "name": "memory"}
"""The API's own definition of the memory tool (client-run; the API supplies the schema)."""


class MemoryPathError(SandboxPathError):
    """A memory path outside ``/memories`` (or leading out of the folder): refused, nothing touched."""


def _names(folder: Folder, path: Any, field: str = "path") -> list[str]:
    """``path`` as checked names inside the folder (``[]``: ``/memories`` itself)."""
    if not isinstance(path, str) or not (path == ROOT or path.startswith(ROOT + "/")):
        raise MemoryPathError(
            f"memory {field} {path!r} is outside {ROOT}: every path must start with {ROOT}/, "
            f"e.g. {ROOT}/progress.md. Nothing was changed."
        )
    try:
        return folder.parts(path[len(ROOT) :].lstrip("/"), path)
    except SandboxPathError as e:
        raise MemoryPathError(str(e)) from None


def make_memory_tool(folder: str | Path) -> Tool:
    """The ``memory`` tool over ``folder`` (created on first write).

    Every file is reached relative to the open folder without following links (``sandbox.Folder``), and
    each command runs under the folder's writer lock, so concurrent sessions lose no write."""
    box = Folder(folder)

    @tool(name="memory", writes=("memory",))
    def memory(
        command: str,
        path: str = "",
        file_text: str = "",
        old_str: str = "",
        new_str: str = "",
        insert_line: int = 0,
        insert_text: str = "",
        old_path: str = "",
        new_path: str = "",
    ) -> str:
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
        try:
            with box.locked():
                return _run(
                    box, command, path, file_text, old_str, new_str, insert_line, insert_text, old_path, new_path
                )
        except MemoryPathError:
            raise
        except SandboxPathError as e:  # a link or a bad name met on the way: the same typed refusal
            raise MemoryPathError(str(e)) from None

    return memory


def _run(
    box: Folder,
    command: str,
    path: str,
    file_text: str,
    old_str: str,
    new_str: str,
    insert_line: int,
    insert_text: str,
    old_path: str,
    new_path: str,
) -> str:
    if command == "rename":
        src, dst = _names(box, old_path, "old_path"), _names(box, new_path, "new_path")
        for field_name, value, where in (("old_path", old_path, src), ("new_path", new_path, dst)):
            if not where:
                raise ToolError(
                    f"rename {field_name}={value!r} is {ROOT} itself, which cannot be renamed or replaced; "
                    f"name a file or folder inside it, e.g. {ROOT}/notes.md."
                )
        if dst[: len(src)] == src:
            raise ToolError(
                f"rename new_path={new_path!r} is inside old_path={old_path!r}: a folder cannot move into itself; "
                "pick a new_path outside it."
            )
        try:
            box.rename(src, dst, old_path, new_path)
        except FileNotFoundError:
            raise ToolError(f"The path {old_path} does not exist.") from None
        except FileExistsError:
            raise ToolError(f"The destination {new_path} already exists; pick another name.") from None
        return f"Renamed {old_path} to {new_path}."
    names = _names(box, path)
    kind = box.kind(names, path)
    if command == "view":
        if kind == "dir" or (not names and kind is None):
            found = box.files(names, path) if kind == "dir" else []
            return f"Files in {path}:\n" + ("\n".join(f"{ROOT}/{f}" for f in found) or "(none)")
        if kind is None:
            raise ToolError(f"The path {path} does not exist. Create it with the create command.")
        lines = box.read(names, path).splitlines()
        return f"Content of {path}:\n" + "\n".join(f"{i:6d}\t{ln}" for i, ln in enumerate(lines, 1))
    if command == "create":
        if str(path).endswith("/") or not names:
            raise ToolError(
                f"create path={path!r} ends with '/', which names a folder; create makes a file: "
                f"drop the trailing slash and give a file name, e.g. {str(path).rstrip('/')}/notes.md."
            )
        try:
            box.write(names, file_text, path, exclusive=True)
        except FileExistsError:
            raise ToolError(f"The file {path} already exists; use str_replace or insert to change it.") from None
        return f"File created at {path}."
    if command in ("str_replace", "insert") and kind != "file":
        raise ToolError(f"The path {path} does not exist or is not a file.")
    if command == "str_replace":
        text = box.read(names, path)
        if text.count(old_str) != 1 or not old_str:
            raise ToolError(
                f"old_str must occur exactly once in {path}; it occurs {text.count(old_str) if old_str else 0} times."
            )
        box.write(names, text.replace(old_str, new_str), path)
        return f"Edited {path}."
    if command == "insert":
        lines = box.read(names, path).splitlines(keepends=True)
        if isinstance(insert_line, bool) or not 0 <= insert_line <= len(lines):
            raise ToolError(
                f"insert_line {insert_line} is out of range: {path} has {len(lines)} lines (use 0 to {len(lines)})."
            )
        add = insert_text if insert_text.endswith("\n") else insert_text + "\n"
        box.write(names, "".join(lines[:insert_line]) + add + "".join(lines[insert_line:]), path)
        return f"Inserted {len(add.splitlines())} line(s) into {path} after line {insert_line}."
    if command == "delete":
        if not names:
            raise ToolError(f"Refusing to delete {ROOT} itself; delete the files in it one by one.")
        if kind is None:
            raise ToolError(f"The path {path} does not exist.")
        box.delete(names, path)
        return f"Deleted {path}."
    raise ToolError(f"Unknown command {command!r}: use view, create, str_replace, insert, delete or rename.")


def run_in_sessions(
    client: Any,
    task: str,
    tools: list[Tool],
    *,
    turns_per_session: int,
    max_sessions: int,
    trace_dir: str | Path | None = None,
    **agent_options: Any,
) -> list:
    """Run ``task`` in fresh conversations of ``turns_per_session`` calls each until one ends by itself.

    Each session is its own ``run_agent`` (its own trace, ``session-N.jsonl`` in ``trace_dir``);
    returns the sessions' Runs. Bounded: at most ``max_sessions``.
    """
    from agentlab.loop import run_agent
    from agentlab.run import StopReason

    if not any(t.name == "memory" for t in tools):
        raise ValueError(
            "run_in_sessions(tools=...): offer a memory tool (make_memory_tool(folder)); "
            "without one nothing carries over from one session to the next"
        )
    runs = []
    for n in range(1, max_sessions + 1):
        trace = Path(trace_dir) / f"session-{n}.jsonl" if trace_dir else None
        run = run_agent(client, task, tools, max_turns=turns_per_session, trace=trace, **agent_options)
        runs.append(run)
        if run.stop_reason != StopReason.MAX_TURNS:
            break
    return runs
