"""Attacks through the folders a test hands the student's code (``tmp_path``): symlinks and quotas.

One gradebook run over a class whose exercise 3 writes into ``tmp_path``; the trusted test then reads
what was written. A planted symlink must not carry a secret into any answer, and filling the folder
(100,000 empty files, or more bytes than the cap) fails only that submission's own test.
"""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path

import pytest

from agentlab.grading import mounts
from agentlab.grading.gradebook import gradebook

SECRET = "instructor-secret-4b1d"

pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading sandbox"),
]

EX03 = '''"""Files in a folder the test gives."""
import os


def save_note(folder, text):
    """Exercise 3.1: write text to folder/note.txt."""
    with open(os.path.join(folder, "note.txt"), "w") as f:
        f.write(text)


def save_in(folder):
    """Exercise 3.2: write "ok" to folder/out/note.txt."""
    os.makedirs(os.path.join(folder, "out"))
    with open(os.path.join(folder, "out", "note.txt"), "w") as f:
        f.write("ok")


def make_files(folder):
    """Exercise 3.3: make three empty files in folder; return how many."""
    for n in range(3):
        open(os.path.join(folder, f"f{n}"), "w").close()
    return 3
'''

TEST_EX03 = """import pytest

from agentlab.grading import lazy_import

ex03 = lazy_import("exercises.ex03_files")


@pytest.mark.exercise("3.1")
@pytest.mark.points(1)
@pytest.mark.timeout(20)
def test_save_note(tmp_path):
    ex03.save_note(str(tmp_path), "hello")
    text = (tmp_path / "note.txt").read_text()
    assert text == "hello", f"note.txt should hold 'hello', got {text!r}"


@pytest.mark.exercise("3.2")
@pytest.mark.points(1)
@pytest.mark.timeout(20)
def test_save_in(tmp_path):
    ex03.save_in(str(tmp_path))
    text = (tmp_path / "out" / "note.txt").read_text()
    assert text == "ok", f"out/note.txt should hold 'ok', got {text!r}"


@pytest.mark.exercise("3.3")
@pytest.mark.points(1)
@pytest.mark.timeout(20)
def test_make_files(tmp_path):
    got = ex03.make_files(str(tmp_path))
    assert got == 3 and len(list(tmp_path.iterdir())) == 3, f"should make 3 files, got {got!r}"
"""

LINK_FILE = "def save_note(folder, text):\n    os.symlink(SECRET_FILE, os.path.join(folder, 'note.txt'))\n"
LINK_FOLDER = "def save_in(folder):\n    os.symlink(os.path.dirname(SECRET_FILE), os.path.join(folder, 'out'))\n"
MANY_FILES = (
    "def make_files(folder):\n"
    "    for n in range(100_000):\n"
    "        open(os.path.join(folder, f'f{n}'), 'w').close()\n"
    "    return 3\n"
)
BIG_FILES = (
    "def make_files(folder):\n"
    "    for n in range(8):  # 16 MB each: under the per-file limit, twice the folder's cap in all\n"
    "        with open(os.path.join(folder, f'f{n}'), 'wb') as f:\n"
    "            f.write(b'x' * (16 << 20))\n"
    "    return 3\n"
)
MANY_IN_TMP = (
    "def make_files(folder):\n"
    "    for n in range(100_000):\n"
    "        open(f'/tmp/f{n}', 'w').close()\n"
    "    for n in range(3):\n"
    "        open(os.path.join(folder, f'f{n}'), 'w').close()\n"
    "    return 3\n"
)


def _attack(secret_file: Path, override: str) -> str:
    """The honest module, one function replaced by the attack (defined after it, so it wins)."""
    return EX03 + f"\nSECRET_FILE = {str(secret_file)!r}\n\n\n" + override


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    tmp = tmp_path_factory.mktemp("scratch-attacks")
    course = Path(shutil.copytree(course_template, tmp / "course"))
    (course / "exercises" / "ex03_files.py").write_text(EX03)
    (course / "exercises" / "tests" / "test_ex03_files.py").write_text(TEST_EX03)
    secret = tmp / "private" / "note.txt"  # readable by the grader (root) only
    secret.parent.mkdir(mode=0o700)
    secret.write_text(SECRET)
    os.chmod(secret, 0o600)
    klass = tmp / "class"
    students = {
        "link_file": LINK_FILE,
        "link_folder": LINK_FOLDER,
        "many_files": MANY_FILES,
        "big_files": BIG_FILES,
        "many_in_tmp": MANY_IN_TMP,
        "zz_honest": "",
    }
    for name, override in students.items():
        (klass / name).mkdir(parents=True)
        (klass / name / "ex03_files.py").write_text(_attack(secret, override) if override else EX03)
    out = tmp / "out" / "gradebook.csv"
    out.parent.mkdir()
    gradebook(klass, course, out, test_floor=20, jobs=1, progress=lambda s: None)
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    written = "\n".join(p.read_text(errors="replace") for p in out.parent.rglob("*") if p.is_file())
    return {"rows": rows, "written": written}


def _score(graded, student):
    r = graded["rows"][student]
    return r["3.1"], r["3.2"], r["3.3"]


@pytest.mark.skipif(not mounts.enabled(), reason="the no-follow view is a mount: root only")
def test_a_planted_symlink_carries_no_secret_into_any_grade_or_note(graded):
    assert SECRET not in graded["written"]  # the CSV, feedback files, summary
    assert _score(graded, "link_file") == ("0", "1", "1"), graded["rows"]["link_file"]["notes"]
    assert _score(graded, "link_folder") == ("1", "0", "1"), graded["rows"]["link_folder"]["notes"]
    for student in ("link_file", "link_folder"):
        assert "Too many levels of symbolic links" in graded["rows"][student]["notes"], graded["rows"][student]


@pytest.mark.skipif(not mounts.enabled(), reason="the capped folders are mounts: root only")
@pytest.mark.parametrize("student", ["many_files", "big_files", "many_in_tmp"])
def test_filling_a_writable_folder_fails_only_its_own_test_with_a_readable_reason(graded, student):
    notes = graded["rows"][student]["notes"]
    assert _score(graded, student) == ("1", "1", "0"), notes
    assert "3.3: OSError" in notes and "No space left on device" in notes, notes
    assert f"hold at most {mounts.MAX_FILES} files each" in notes, notes


def test_honest_rows_beside_the_attacks_are_untouched(graded):
    assert _score(graded, "zz_honest") == ("1", "1", "1"), graded["rows"]["zz_honest"]["notes"]
