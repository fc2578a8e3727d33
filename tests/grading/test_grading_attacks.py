"""A hostile class: each submission tries one way to raise its grade, lower another's or read secrets.

One gradebook run over all of them (as root each runs as an unprivileged uid in its own namespaces;
see agentlab.grading.confine); each test below checks what became of one attack.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from agentlab.grading.gradebook import gradebook
from agentlab.grading.pool import student_uids
from agentlab.grading.release import release_student

SECRET = "sk-ant-api03-NOT-A-REAL-KEY-7f3a"

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading sandbox")]

STUB_HEADER = "import os, sys, json, glob, atexit, pathlib, time\n"

ATTACKS = {
    # patches the grading plugin (and pytest's report) when imported, to mark every test passed
    "patch_plugin": '''
import agentlab.grading.plugin as p
def _record(grade, report, call):
    grade.outcome, grade.earned, grade.reason = "passed", grade.points, ""
p._record = _record
import _pytest.reports as r
r.TestReport.passed = property(lambda self: True)
''',
    # an exit hook that rewrites every results file it can find and writes "passed" to every pipe
    "exit_hook": '''
def _forge():
    for path in glob.glob("/tmp/**/grade*.json", recursive=True) + glob.glob("**/*.json", recursive=True):
        try:
            pathlib.Path(path).write_text(json.dumps({"total": {"earned": 8, "possible": 8}}))
        except OSError:
            pass
    for fd in range(3, 64):
        for nodeid in ("exercises/tests/test_ex01_basics.py::test_add",):
            try:
                os.write(fd, (json.dumps({"nodeid": nodeid, "outcome": "passed", "reason": ""}) + "\\n").encode())
            except OSError:
                pass
atexit.register(_forge)
_forge()
''',
    # reads the instructor's solutions through sys.executable's path and through the repo path
    "read_solutions": '''
_found = []
try:
    for root in [pathlib.Path(sys.executable).resolve().parents[i] for i in range(4)] + [pathlib.Path(REPO)]:
        for pattern in ("exercises/ex01_basics.py", "*/exercises/ex01_basics.py"):
            try:
                paths = list(root.glob(pattern))
            except OSError:
                continue
            for path in paths:
                try:
                    exec(path.read_text(), globals())
                    _found.append(str(path))
                except OSError:
                    pass
finally:
    pathlib.Path(REPORT + ".read_solutions").write_text(json.dumps(_found))
''',
    # a double-forked, setsid process that outlives the test and keeps writing
    "survivor": '''
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(600):
            try:
                with open(REPORT + ".survivor", "a") as f:
                    f.write(f"{time.time()}\\n")
                pathlib.Path(CSV).write_text("survivor,8,8,8,24,8,\\n")
            except OSError:
                pass
            time.sleep(0.1)
    os._exit(0)
''',
    # prints every environment variable it can find: its own, /proc/self, its parent's and every ancestor's
    "env_reader": '''
_seen = [json.dumps(dict(os.environ))]
for pid in ["self"] + [str(p) for p in range(1, 1 << 16) if os.path.exists(f"/proc/{p}/environ")]:
    try:
        _seen.append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
    except OSError:
        pass
pathlib.Path(REPORT + ".env_reader").write_text("\\n".join(_seen))
''',
}


def _module(course: Path, attack: str, tmp: Path, spy: Path, csv_path: Path) -> str:
    """The student-edition ex01 with the attack prepended (so its answers are stubs)."""
    constants = f"REPO = {str(course)!r}\nREPORT = {str(spy / 'attack')!r}\nCSV = {str(csv_path)!r}\n"
    return STUB_HEADER + constants + ATTACKS[attack] + "\n" + (tmp / "student/exercises/ex01_basics.py").read_text()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    tmp = tmp_path_factory.mktemp("hostile")
    spy = Path(tempfile.mkdtemp(prefix="agentlab-attack-"))
    os.chmod(spy, 0o777)  # a world-writable spot where an attack reports what it saw
    course = course_template
    release_student(course, tmp / "student")
    out = tmp / "out" / "gradebook.csv"
    out.parent.mkdir()
    klass = tmp / "class"
    for attack in ATTACKS:
        (klass / attack).mkdir(parents=True)
        (klass / attack / "ex01_basics.py").write_text(_module(course, attack, tmp, spy, out))
    solved = (course / "exercises/ex01_basics.py").read_text()
    ex02 = (course / "exercises/ex02_loop.py").read_text()
    extras = {
        "extra_test_module": {"ex01_basics.py": (tmp / "student/exercises/ex01_basics.py").read_text(),
                              "ex99_test.py": "import pytest\n@pytest.mark.points(100)\ndef test_free():\n    pass\n",
                              "conftest.py": "raise SystemExit('sabotage')\n",
                              "tests/test_ex01_basics.py": "def test_add():\n    pass\n"},
        "os_exit": {"ex01_basics.py": solved.replace("    secret_words = text.split()",
                                                     "    import os; os._exit(3)\n    secret_words = text.split()"),
                    "ex02_loop.py": ex02},
        "memory_hog": {"ex01_basics.py": solved.replace("    secret_total = a + b",
                                                        "    hog = bytearray(3 << 30)\n    secret_total = a + b"),
                       "ex02_loop.py": ex02},
        # and one that imports standard modules the worker never loaded: they must be readable
        "zz_next_student": {"ex01_basics.py": "import colorsys, fractions, wave, tomllib\n" + solved,
                            "ex02_loop.py": ex02},
    }
    for name, files in extras.items():
        for rel, text in files.items():
            (klass / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (klass / name / rel).write_text(text)
    os.environ["ANTHROPIC_API_KEY"] = SECRET
    os.environ["COURSE_SERVICE_TOKEN"] = SECRET
    try:
        gradebook(klass, course, out, test_floor=3, jobs=2, progress=lambda s: None)
    finally:
        os.environ.pop("ANTHROPIC_API_KEY", None)
        os.environ.pop("COURSE_SERVICE_TOKEN", None)
    finished = time.time()
    csv_text = out.read_text()
    time.sleep(1.5)  # time for a survivor to show itself
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    yield {"rows": rows, "csv_text": csv_text, "out": out, "tmp": spy, "finished": finished}
    shutil.rmtree(spy, ignore_errors=True)


def _score(graded, student):
    r = graded["rows"][student]
    return r["1.1"], r["1.2"], r["2.1"]


def test_patching_the_plugin_or_pytest_earns_nothing(graded):
    assert _score(graded, "patch_plugin") == ("0", "0", "0")
    assert "NotImplementedError: Exercise 1.1" in graded["rows"]["patch_plugin"]["notes"]


def test_an_exit_hook_or_forged_pipe_messages_earn_nothing(graded):
    assert _score(graded, "exit_hook") == ("0", "0", "0")


def test_only_the_courses_exercise_modules_are_taken(graded):
    row = graded["rows"]["extra_test_module"]
    assert _score(graded, "extra_test_module") == ("0", "0", "0")
    assert "ignored ex99_test.py (not an exercise of this course)" in row["notes"]
    assert row["possible"] == "8"  # its 100-point test was never collected


def test_the_instructors_solutions_cannot_be_read(graded):
    assert _score(graded, "read_solutions") == ("0", "0", "0")
    seen = graded["tmp"] / "attack.read_solutions"
    assert seen.exists() and json_list(seen) == []  # the attack ran and found nothing to read


def test_nothing_a_submission_starts_outlives_it(graded):
    log = graded["tmp"] / "attack.survivor"
    assert log.exists(), "the survivor never ran"
    stamps = [float(x) for x in log.read_text().split()]
    assert max(stamps) < graded["finished"], "a process of the submission was still writing after the gradebook ended"
    assert graded["out"].read_text() == graded["csv_text"]
    assert "survivor,8" not in graded["csv_text"]
    assert not [p for p in Path("/proc").iterdir() if p.name.isdigit() and _uid(p) in student_uids()]


def test_no_secret_reaches_a_submission(graded):
    seen = (graded["tmp"] / "attack.env_reader").read_text()
    assert "PATH" in seen  # it did read environments
    assert SECRET not in seen
    assert SECRET not in graded["csv_text"]


def test_a_crash_costs_only_its_own_test(graded):
    r = graded["rows"]["os_exit"]
    assert _score(graded, "os_exit") == ("2", "0", "3")
    assert "exited with code 3 before it reported" in r["notes"]


def test_memory_is_capped(graded):
    r = graded["rows"]["memory_hog"]
    assert _score(graded, "memory_hog") == ("0", "3", "3")
    assert "1.1: MemoryError" in r["notes"]


def test_the_next_student_is_graded_untouched(graded):
    assert _score(graded, "zz_next_student") == ("2", "3", "3")
    assert graded["rows"]["zz_next_student"]["notes"] == ""


def json_list(path: Path) -> list:
    import json

    return json.loads(path.read_text())


def _uid(proc: Path) -> int:
    try:
        return proc.stat().st_uid
    except OSError:
        return -1


@pytest.mark.timeout(600)
def test_without_root_leftovers_still_die_and_crashes_stay_local(course, tmp_path, monkeypatch):
    """The ordinary-user path (no uid switch, no namespaces): the subreaper still kills a survivor."""
    from agentlab.grading import confine

    monkeypatch.setattr(confine, "is_root", lambda: False)
    spy = tmp_path / "spy"
    spy.mkdir()
    release_student(course, tmp_path / "student")
    solved = (course / "exercises/ex01_basics.py").read_text()
    ex02 = (course / "exercises/ex02_loop.py").read_text()
    out = tmp_path / "gradebook.csv"
    survivor = STUB_HEADER + f"REPORT = {str(spy / 'attack')!r}\nCSV = {str(out)!r}\n" + ATTACKS["survivor"]
    klass = tmp_path / "class"
    for name, files in {"survivor": {"ex01_basics.py": survivor + solved, "ex02_loop.py": ex02},
                        "os_exit": {"ex01_basics.py": solved.replace("    secret_words = text.split()",
                                                                     "    import os; os._exit(3)\n    secret_words = text.split()"),
                                    "ex02_loop.py": ex02}}.items():
        for rel, text in files.items():
            (klass / name).mkdir(parents=True, exist_ok=True)
            (klass / name / rel).write_text(text)
    gradebook(klass, course, out, test_floor=3, jobs=1, progress=lambda s: None)
    finished = time.time()
    time.sleep(1.5)
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    assert (rows["survivor"]["total"], rows["os_exit"]["total"]) == ("8", "5")
    stamps = [float(x) for x in (spy / "attack.survivor").read_text().split()]
    assert max(stamps) < finished, "a double-forked setsid process outlived its test"
