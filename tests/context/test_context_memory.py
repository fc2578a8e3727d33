"""The memory tool: the API's commands, sandboxed to its folder, carrying the task across sessions."""

from __future__ import annotations

import os

import pytest

import agentlab
from agentlab.context import (
    MemoryPathError,
    check_report,
    make_memory_tool,
    report_cities,
    report_task,
    run_in_sessions,
)
from agentlab.context.compare import MODEL
from agentlab.sim.models.context_agent import ContextAgent
from agentlab.tools import run_tool, toolset
from agentlab.weather import make_get_weather


def _run(tool, **inp):
    return run_tool(toolset([tool]), "memory", inp)


def test_each_command_of_the_api_works_inside_the_folder(tmp_path):
    mem = make_memory_tool(tmp_path)
    assert not _run(mem, command="create", path="/memories/a.md", file_text="one\ntwo\n").is_error
    assert not _run(mem, command="insert", path="/memories/a.md", insert_line=1, insert_text="one and a half").is_error
    assert not _run(mem, command="str_replace", path="/memories/a.md", old_str="two", new_str="2").is_error
    assert (tmp_path / "a.md").read_text() == "one\none and a half\n2\n"
    assert "     2\tone and a half" in _run(mem, command="view", path="/memories/a.md").content
    assert not _run(mem, command="rename", old_path="/memories/a.md", new_path="/memories/b.md").is_error
    assert "/memories/b.md" in _run(mem, command="view", path="/memories").content
    assert not _run(mem, command="delete", path="/memories/b.md").is_error and not (tmp_path / "b.md").exists()


@pytest.mark.parametrize("path", ["/etc/passwd", "/memories/../escape.md", "memories/a.md", "/memoriesX/a.md"])
def test_a_path_outside_the_folder_is_refused_and_nothing_written_is_lost(tmp_path, path):
    folder = tmp_path / "mem"
    mem = make_memory_tool(folder)
    _run(mem, command="create", path="/memories/keep.md", file_text="precious\n")
    for inp in (
        {"command": "create", "path": path, "file_text": "x"},
        {"command": "delete", "path": path},
        {"command": "rename", "old_path": "/memories/keep.md", "new_path": path},
    ):
        out = _run(mem, **inp)
        assert out.is_error and "outside /memories" in out.content or "leads outside" in out.content
    assert (folder / "keep.md").read_text() == "precious\n" and sorted(os.listdir(folder)) == ["keep.md"]
    assert not (tmp_path / "escape.md").exists()


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    folder, outside = tmp_path / "mem", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "link").symlink_to(outside)
    out = _run(make_memory_tool(folder), command="create", path="/memories/link/x.md", file_text="x")
    assert out.is_error and "leads outside" in out.content and not (outside / "x.md").exists()


def test_the_escape_error_is_typed():
    assert issubclass(MemoryPathError, agentlab.ToolError)


def test_create_never_overwrites(tmp_path):
    mem = make_memory_tool(tmp_path)
    _run(mem, command="create", path="/memories/a.md", file_text="first\n")
    assert _run(mem, command="create", path="/memories/a.md", file_text="second\n").is_error
    assert (tmp_path / "a.md").read_text() == "first\n"


def test_a_second_session_reads_the_notes_and_fetches_only_what_is_missing(tmp_path):
    client = agentlab.connect("sim", model=MODEL, policy=ContextAgent(), quiet=True)
    cities = report_cities(10)
    tools = [make_get_weather(7), make_memory_tool(tmp_path / "mem")]
    runs = run_in_sessions(client, report_task(cities), tools, turns_per_session=6, max_sessions=5, trace_dir=tmp_path)
    assert len(runs) >= 2 and check_report(runs[-1].final_text, cities)["correct"]
    fetched = [r["input"]["city"] for run in runs for r in run.tool_results if r["name"] == "get_weather"]
    assert len(fetched) <= len(cities) + len(
        runs
    )  # at most one lookup per session is repeated (its result came after the last call)
    assert max(t.input_tokens for r in runs for t in r.turns) < 6 * 900  # each session's window starts clean
    assert all((tmp_path / f"session-{i}.jsonl").exists() for i in range(1, len(runs) + 1))


def test_sessions_without_a_memory_tool_are_refused(tmp_path):
    with pytest.raises(ValueError, match="memory tool"):
        run_in_sessions(
            agentlab.connect("sim", quiet=True), "task", [make_get_weather(0)], turns_per_session=2, max_sessions=2
        )


def test_a_refused_edit_leaves_the_file_as_it_was(tmp_path):
    mem = make_memory_tool(tmp_path)
    _run(mem, command="create", path="/memories/a.md", file_text="x\nx\n")
    for inp in (
        {"command": "insert", "path": "/memories/a.md", "insert_line": 9, "insert_text": "late"},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": "y"},
        {"command": "delete", "path": "/memories"},
        {"command": "explode", "path": "/memories/a.md"},
    ):
        out = _run(mem, **inp)
        assert out.is_error, inp
    assert (tmp_path / "a.md").read_text() == "x\nx\n"
    assert (
        "out of range: /memories/a.md has 2 lines"
        in _run(mem, command="insert", path="/memories/a.md", insert_line=9, insert_text="z").content
    )


def test_renaming_the_memories_folder_itself_is_refused_naming_the_field(tmp_path):
    mem = make_memory_tool(tmp_path / "mem")
    _run(mem, command="create", path="/memories/keep.md", file_text="precious\n")
    for inp, field_name in (
        ({"old_path": "/memories", "new_path": "/memories/x"}, "old_path"),
        ({"old_path": "/memories/keep.md", "new_path": "/memories"}, "new_path"),
    ):
        out = _run(mem, command="rename", **inp)
        assert out.is_error and f"rename {field_name}='/memories' is /memories itself" in out.content, out.content
        assert "OSError" not in out.content
    _run(mem, command="create", path="/memories/d/a.md", file_text="a\n")
    out = _run(mem, command="rename", old_path="/memories/d", new_path="/memories/d/e")
    assert out.is_error and "inside old_path='/memories/d'" in out.content
    assert (tmp_path / "mem" / "keep.md").read_text() == "precious\n" and (tmp_path / "mem" / "d" / "a.md").exists()


def test_create_with_a_trailing_slash_is_refused_and_makes_no_file(tmp_path):
    mem = make_memory_tool(tmp_path)
    out = _run(mem, command="create", path="/memories/dir/", file_text="x")
    assert out.is_error and "create path='/memories/dir/' ends with '/'" in out.content
    assert not (tmp_path / "dir").exists()
