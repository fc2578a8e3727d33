"""Sandboxes that hold under races: notes and memory written only inside their folder, no write lost (issue 22)."""

import os
import threading

import pytest

from agentlab.context.memory import MemoryPathError, make_memory_tool
from agentlab.sandbox import Folder, SandboxPathError
from agentlab.tools import run_tool, toolset
from agentlab.weather import make_save_note

ROUNDS = 300  # bounded: every loop below runs a fixed number of times


def _swapper(folder, target_name, outside, stop):
    """Swap ``target_name`` between a plain file and a symlink to ``outside``, atomically, until told to stop."""
    link = folder / ".swap-link"
    for i in range(100_000):
        if stop.is_set():
            return
        try:
            if i % 2:
                os.symlink(outside, link)
                os.replace(link, folder / target_name)
            else:
                (folder / target_name).unlink(missing_ok=True)
        except OSError:
            pass


def test_save_note_never_writes_outside_while_notes_md_is_swapped_for_a_symlink(tmp_path):
    folder, outside = tmp_path / "notes", tmp_path / "outside.md"
    folder.mkdir()
    outside.write_text("")
    stop = threading.Event()
    swapper = threading.Thread(target=_swapper, args=(folder, "notes.md", outside, stop))
    swapper.start()
    tools = toolset([make_save_note(folder)])
    try:
        outcomes = [run_tool(tools, "save_note", {"text": f"note {i}"}) for i in range(ROUNDS)]
    finally:
        stop.set()
        swapper.join(timeout=30)
    assert outside.read_text() == "", "a note escaped the sandbox"
    refused = [o for o in outcomes if o.is_error]
    assert all("outside the notes folder" in o.content for o in refused)


def test_concurrent_memory_writers_lose_no_insert(tmp_path):
    mem = make_memory_tool(tmp_path / "mem")
    tools = toolset([mem])
    assert not run_tool(tools, "memory", {"command": "create", "path": "/memories/log.md", "file_text": ""}).is_error
    writers, each, failures = 4, 50, []

    def write(w):
        for i in range(each):
            out = run_tool(
                tools,
                "memory",
                {"command": "insert", "path": "/memories/log.md", "insert_line": 0, "insert_text": f"w{w} i{i}"},
            )
            if out.is_error:
                failures.append(out.content)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    lines = (tmp_path / "mem" / "log.md").read_text().splitlines()
    assert failures == [] and sorted(lines) == sorted(f"w{w} i{i}" for w in range(writers) for i in range(each))
    assert os.listdir(tmp_path / "mem") == ["log.md"], "a temporary file was left behind"


def test_a_planted_symlink_at_the_old_temp_name_redirects_nothing(tmp_path):
    folder, outside = tmp_path / "mem", tmp_path / "outside.md"
    folder.mkdir()
    os.symlink(outside, folder / ".a.md.tmp")  # the fixed temp name the memory tool used to write through
    out = run_tool(
        toolset([make_memory_tool(folder)]), "memory", {"command": "create", "path": "/memories/a.md", "file_text": "x"}
    )
    assert not out.is_error and (folder / "a.md").read_text() == "x" and not outside.exists()


def test_a_folder_swapped_for_a_symlink_on_the_way_is_refused(tmp_path):
    folder, outside = tmp_path / "mem", tmp_path / "outside"
    (folder / "sub").mkdir(parents=True)
    outside.mkdir()
    stop = threading.Event()

    def swap():
        for i in range(100_000):
            if stop.is_set():
                return
            try:
                if i % 2:
                    os.rename(folder / "sub", folder / "sub-away")
                    os.symlink(outside, folder / "sub")
                else:
                    os.unlink(folder / "sub")
                    os.rename(folder / "sub-away", folder / "sub")
            except OSError:
                pass

    swapper = threading.Thread(target=swap)
    swapper.start()
    tools = toolset([make_memory_tool(folder)])
    try:
        for i in range(ROUNDS // 3):
            run_tool(tools, "memory", {"command": "create", "path": f"/memories/sub/n{i}.md", "file_text": "x"})
    finally:
        stop.set()
        swapper.join(timeout=30)
    assert os.listdir(outside) == [], "a memory file escaped the sandbox"


@pytest.mark.parametrize(
    "path, words",
    [
        ("../escape.md", "leads outside"),
        ("/etc/passwd", "is absolute"),
        ("a\x00b.md", "NUL"),
        ("CON", "device"),
        ("nul.txt", "device"),
        ("x" * 300 + ".md", "the limit is 255"),
        ("/".join(["d"] * 600), "the limit is 1024"),
        ("a\nb.md", "control character"),
        (7, "give the path as a string"),
    ],
)
def test_a_bad_name_is_refused_with_a_readable_error(tmp_path, path, words):
    with pytest.raises(SandboxPathError, match=words):
        Folder(tmp_path).parts(path, repr(path))


def test_memory_refuses_bad_names_and_links_naming_the_problem(tmp_path):
    folder = tmp_path / "mem"
    folder.mkdir()
    (tmp_path / "outside.md").write_text("secret")
    os.link(tmp_path / "outside.md", folder / "hard.md")
    os.symlink(tmp_path / "outside.md", folder / "soft.md")
    tools = toolset([make_memory_tool(folder)])
    for inp, words in [
        ({"command": "view", "path": "/memories/hard.md"}, "hard link"),
        ({"command": "str_replace", "path": "/memories/hard.md", "old_str": "secret", "new_str": "x"}, "hard link"),
        ({"command": "view", "path": "/memories/soft.md"}, "symlink"),
        ({"command": "create", "path": "/memories/AUX.md", "file_text": "x"}, "device"),
        ({"command": "create", "path": "/memories/a\x00.md", "file_text": "x"}, "NUL"),
    ]:
        out = run_tool(tools, "memory", inp)
        assert out.is_error and words in out.content, (inp, out.content)
    assert (tmp_path / "outside.md").read_text() == "secret"


def test_save_note_refuses_a_hard_link_to_an_outside_file(tmp_path):
    (tmp_path / "n").mkdir()
    (tmp_path / "outside.md").write_text("")
    os.link(tmp_path / "outside.md", tmp_path / "n" / "notes.md")
    out = run_tool(toolset([make_save_note(tmp_path / "n")]), "save_note", {"text": "x"})
    assert out.is_error and "hard link" in out.content and (tmp_path / "outside.md").read_text() == ""


def test_a_refusal_is_typed_for_the_memory_tool(tmp_path):
    folder = tmp_path / "mem"
    (folder).mkdir()
    os.symlink(tmp_path, folder / "link")
    with pytest.raises(MemoryPathError):
        make_memory_tool(folder).fn(command="create", path="/memories/link/x.md", file_text="x")
