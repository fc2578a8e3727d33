"""gradebook over a class folder: correct, partial, broken, looping, noisy and zipped submissions."""

from __future__ import annotations

import csv
import shutil
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from agentlab.grading.gradebook import gradebook
from agentlab.grading.release import release_student
from agentlab.grading.submissions import Submission, SubmissionError, choose_modules, copy_modules, find_submissions
from agentlab.grading.table import CsvWriter, Progress, Row

PER_STUDENT = 120.0  # seconds for all of a student's tests
FLOOR = 8.0  # seconds each test may take at least: the fake course's tests take milliseconds, but a loaded
#             2-core machine has been seen to need over 3 s for one (the hangs below cost this much each)

NOISY = (
    "import atexit, sys\nprint('x' * 3_000_000)\n"
    "atexit.register(lambda: sys.stdout.write('y' * 3_000_000))  # after pytest: reaches the real stdout\n"
)
HANGS = (
    "import signal\n\n\ndef add(a, b):\n"
    "    signal.signal(signal.SIGALRM, signal.SIG_IGN)  # dodges the per-test timeout\n"
    "    while True:\n        pass\n"
)
LOOPS = ("    count = 0\n", "    count = 0\n    while count >= 0:  # forever\n        count += 0\n")
PRINTS = ("    secret_total = a + b", "    print('spam ' * 1_000_000)\n    secret_total = a + b")
GINA = '2.1: NotImplementedError: Exercise 2.1: call each step until one returns "done"; return how many steps ran.'


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def solutions(course: Path) -> tuple[str, str]:
    return tuple((course / "exercises" / name).read_text() for name in ("ex01_basics.py", "ex02_loop.py"))


def make_class(course: Path, folder: Path) -> None:
    EX01, EX02 = solutions(course)
    student = folder.parent / "student-edition"
    release_student(course, student)
    stub01 = (student / "exercises/ex01_basics.py").read_text()
    stub02 = (student / "exercises/ex02_loop.py").read_text()
    write(
        folder,
        {
            "alice/exercises/ex01_basics.py": EX01,
            "alice/exercises/ex02_loop.py": EX02,
            # her own tests and conftest are never used:
            "alice/exercises/tests/test_ex01_basics.py": "import pytest\n@pytest.mark.points(100)\ndef test_free():\n    pass\n",
            "alice/exercises/conftest.py": "raise SystemExit('sabotage')\n",
            "bob/ex01_basics.py": EX01.replace("text.split()", 'text.split(" ")'),  # modules directly; no ex02
            "carol/exercises/ex01_basics.py": EX01.replace("def add(a, b):", "def add(a, b)"),
            "carol/exercises/ex02_loop.py": EX02,
            "dave/exercises/ex01_basics.py": EX01,
            "dave/exercises/ex02_loop.py": EX02.replace(*LOOPS),
            "erin/exercises/ex01_basics.py": HANGS,
            "erin/exercises/ex02_loop.py": EX02,
            "frank/exercises/ex01_basics.py": NOISY + EX01.replace(*PRINTS),
            "frank/exercises/ex02_loop.py": EX02,
            "README.txt": "not a submission",
        },
    )
    with zipfile.ZipFile(folder / "gina.zip", "w") as zf:
        zf.writestr("exercises/ex01_basics.py", EX01)
        zf.writestr("exercises/ex02_loop.py", stub02)  # untouched stub
        zf.writestr("../../evil/ex02_loop.py", EX02)  # path escaping the folder: ignored
    assert "NotImplementedError" in stub01


@pytest.mark.timeout(900)
def test_gradebook_over_a_class(course, tmp_path):
    make_class(course, tmp_path / "class")
    out, messages = tmp_path / "gradebook.csv", []
    rows = gradebook(
        tmp_path / "class",
        course,
        out,
        per_student_timeout=PER_STUDENT,
        test_floor=FLOOR,
        jobs=2,
        progress=messages.append,
    )

    table = list(csv.DictReader(out.open(newline="", encoding="utf-8")))
    assert list(table[0]) == [
        "student",
        "1.1",
        "1.1 possible",
        "1.2",
        "1.2 possible",
        "2.1",
        "2.1 possible",
        "total",
        "possible",
        "notes",
    ]
    assert {(r["1.1 possible"], r["1.2 possible"], r["2.1 possible"]) for r in table} == {("2", "3", "3")}
    scores = {r["student"]: (r["1.1"], r["1.2"], r["2.1"], r["total"], r["possible"]) for r in table}
    assert scores == {
        "alice": ("2", "3", "3", "8", "8"),
        "bob": ("2", "1", "0", "3", "8"),
        "carol": ("0", "0", "3", "3", "8"),
        "dave": ("2", "3", "0", "5", "8"),
        "erin": ("0", "0", "3", "3", "8"),  # her hang costs exercise 1.1 (and 1.2, missing), not 2.1
        "frank": ("2", "3", "3", "8", "8"),
        "gina": ("2", "3", "0", "5", "8"),
    }
    notes = {r["student"]: r["notes"] for r in table}
    assert notes["alice"] == notes["frank"] == ""
    assert notes["bob"].startswith("missing ex02_loop.py; 1.2: count_words('  two   words ') should return 2, got 7")
    assert "2.1: ModuleNotFoundError: No module named 'exercises.ex02_loop'" in notes["bob"]
    assert notes["carol"].startswith("1.1: SyntaxError: expected ':' (ex01_basics.py, line 4); 1.2: SyntaxError")
    assert "(2 tests)" in notes["carol"]
    timeout = f"took longer than {FLOOR:g} s: an endless loop, or a very busy machine; run it again to check"
    assert notes["dave"] == f"2.1: {timeout}"
    assert notes["erin"].startswith(f"1.1: {timeout}; 1.2: AttributeError"), notes["erin"]  # SIGALRM ignored: killed
    assert notes["gina"] == GINA

    assert [r.student for r in rows] == sorted(scores)
    assert messages[0] == "instructor solutions: 8/8"
    ends = [m for m in messages if m.startswith("[")]
    assert len(ends) == 7 and ends[-1].startswith("[7/7] ") and all(" left" in m for m in ends)
    assert sorted(m.split()[1] for m in ends) == sorted(scores)
    assert sum(m.lstrip().startswith("start ") for m in messages) == 7
    said = {m.split()[1]: m for m in ends}  # a student stopped by a time limit is told apart from a wrong answer
    assert ", 1 test stopped at a time limit;" in said["dave"] and "time limit" not in said["alice"]

    # Again, one student at a time: the same rows, whatever the order of work. Without dave and erin,
    # whose time limits would cost some 25 s more here and who are graded alike above.
    shutil.copytree(tmp_path / "class", tmp_path / "again", ignore=shutil.ignore_patterns("dave", "erin"))
    again = tmp_path / "again.csv"
    gradebook(
        tmp_path / "again",
        course,
        again,
        per_student_timeout=PER_STUDENT,
        test_floor=FLOOR,
        jobs=1,
        progress=lambda s: None,
    )
    first = [row for row in csv.reader(out.open(newline="", encoding="utf-8")) if row[0] not in ("dave", "erin")]
    assert list(csv.reader(again.open(newline="", encoding="utf-8"))) == first


@pytest.mark.timeout(900)
def test_an_interrupted_run_keeps_its_rows_and_resumes(course, tmp_path):
    make_class(course, tmp_path / "class")
    out = tmp_path / "gradebook.csv"
    header = "student,1.1,1.1 possible,1.2,1.2 possible,2.1,2.1 possible,total,possible,notes\r\n"
    out.write_text(header + "alice,2,2,3,3,3,3,8,8,\r\nbob,0,2,0,3,0,3,0,8,graded before the break\r\n", newline="")
    for name in ("carol", "dave", "erin", "frank"):
        shutil.rmtree(tmp_path / "class" / name)
    messages = []
    gradebook(tmp_path / "class", course, out, test_floor=FLOOR, resume=True, progress=messages.append)
    assert "resuming: 2 students already in" in " ".join(messages)
    assert sum(m.startswith("[") for m in messages) == 1  # only gina was graded
    table = [(r["student"], r["total"], r["notes"]) for r in csv.DictReader(out.open(newline="", encoding="utf-8"))]
    assert table == [("alice", "8", ""), ("bob", "0", "graded before the break"), ("gina", "5", GINA)]


def test_a_student_graded_long_gets_a_line_saying_so_and_what_will_stop_it():
    import threading

    said, heard = [], threading.Event()

    def say(line):
        said.append(line)
        if "still grading" in line:
            heard.set()

    clock = Progress(1, say, " (each test stops at its limit, 20 s; the whole submission at 120 s)", every=0.05)
    try:
        clock.start("erin")
        assert heard.wait(30), said
    finally:
        clock.close()
    line = next(ln for ln in said if "still grading" in ln)
    assert line.startswith("  erin: still grading after ") and line.endswith("the whole submission at 120 s)")
    clock.end(Row("erin", {"1.1": 0}, 0, 2, "", timed_out=2))
    assert ", 2 tests stopped at a time limit;" in said[-1]


def test_rows_are_on_disk_as_soon_as_a_student_is_done(tmp_path):
    path = tmp_path / "g.csv"
    writer = CsvWriter(path, {"1.1": 2}, [])
    writer.add(Row("=cmd|' /C calc'!A0", {"1.1": 1}, 1, 2, "-2+3"))
    writer.add(Row("\tab", {"1.1": 0}, 0, 2, "@SUM(A1)"))
    assert path.read_text().splitlines() == [
        "student,1.1,1.1 possible,total,possible,notes",
        "'=cmd|' /C calc'!A0,1,2,1,2,'-2+3",
        "'\tab,0,2,0,2,'@SUM(A1)",
    ]


def test_submission_layouts(tmp_path):
    write(
        tmp_path,
        {
            "s/alice/submitted/exercises/ex01_a.py": "",
            "s/alice/submitted/exercises/tests/ex09_t.py": "",
            "s/bob/ex01_a.py": "",
            "s/bob/old/ex01_a.py": "x",
            "s/.hidden/ex01_a.py": "",
            "s/empty/notes.txt": "",
        },
    )
    with zipfile.ZipFile(tmp_path / "s" / "carol.zip", "w") as zf:
        zf.writestr("carol/exercises/ex01_a.py", "")
    (tmp_path / "s" / "dan.zip").write_text("not a zip")
    subs = find_submissions(tmp_path / "s")
    assert [s.student for s in subs] == ["alice", "bob", "carol", "dan", "empty"]
    for sub, expected in zip(subs[:3], (["ex01_a.py"], ["ex01_a.py"], ["ex01_a.py"])):
        dest = tmp_path / "out" / sub.student
        dest.mkdir(parents=True)
        assert copy_modules(sub, dest) == expected
    assert (tmp_path / "out/bob/ex01_a.py").read_text() == ""  # the top-level one, not old/
    with pytest.raises(SubmissionError, match="cannot read the zip file"):
        copy_modules(subs[3], tmp_path)
    with pytest.raises(SubmissionError, match="no exNN_"):
        copy_modules(subs[4], tmp_path)
    preferred = PurePosixPath("exercises/ex01_a.py")
    assert choose_modules([PurePosixPath("x/ex01_a.py"), preferred]) == [preferred]
    assert isinstance(subs[0], Submission)


def test_feedback_files_summary_and_plot_next_to_the_csv(tmp_path):
    from agentlab.grading.summary import class_summary, feedback_markdown, write_reports
    from agentlab.grading.table import Row

    long = "; ".join(f"2.1: reason number {i} " + "x" * 60 for i in range(30))
    rows = [
        Row("ann", {"1.1": 2, "2.1": 0}, 2, 5, long[:1000], long),
        Row("li", {"1.1": 1, "2.1": 3}, 4, 5, "1.1: almost"),
        Row("zed", {"1.1": 0, "2.1": 0}, 0, 5, "no exNN_*.py exercise modules found"),
    ]
    possible = {"1.1": 2, "2.1": 3}
    write_reports(rows, ["1.1", "2.1"], possible, tmp_path / "book.csv", {"li": "zh-CN"})
    ann = (tmp_path / "book-feedback" / "ann.md").read_text("utf-8")
    assert "| 1.1 | 2/2 |" in ann and "reason number 29" in ann  # every reason, none cut
    assert "总分：4/5 分" in (tmp_path / "book-feedback" / "li.md").read_text("utf-8")
    summary = (tmp_path / "book-summary.md").read_text("utf-8")
    assert "mean: 2.00" in summary and "median: 2" in summary
    assert "| 1.1 | 2 | 1 | 1 | 1 | 1.00 |" in summary and "missing (no readable exercise module): zed" in summary
    assert (tmp_path / "book-totals.png").read_bytes()[:4] == b"\x89PNG"
    assert feedback_markdown(Row("x", {}, 0, 0, ""), [], {}).rstrip().endswith("every graded test passed.")
    assert class_summary([], [], {}).startswith("# Class summary")
    written = sorted(p.relative_to(tmp_path).as_posix().replace("book", "gradebook") for p in tmp_path.iterdir())
    assert written == ["gradebook-feedback", "gradebook-summary.md", "gradebook-totals.png"]
    root = Path(__file__).resolve().parents[2]
    for guide in ("README.md", "docs/en/README.md", "docs/zh-CN/README.md"):  # where an instructor looks
        text = (root / guide).read_text("utf-8")
        missing = [name for name in written if name not in text]
        assert not missing, f"{guide} does not say what the gradebook writes: {missing}"


def test_a_link_planted_where_the_gradebook_writes_is_replaced_never_followed(tmp_path):
    from agentlab.grading.summary import write_reports

    elsewhere, out = tmp_path / "elsewhere", tmp_path / "out"
    elsewhere.mkdir()
    out.mkdir()
    (elsewhere / "victim.md").write_text("keep me")
    for name in ("book-summary.md", "book-totals.png", "book.csv"):  # what an attacker plants beforehand
        (out / name).symlink_to(elsewhere / "victim.md")
    (out / "book-feedback").symlink_to(elsewhere, target_is_directory=True)
    rows = [Row("ann", {"1.1": 2}, 2, 2, "")]
    writer = CsvWriter(out / "book.csv", {"1.1": 2}, [])
    writer.add(rows[0])
    write_reports(rows, ["1.1"], {"1.1": 2}, out / "book.csv", {})
    assert (elsewhere / "victim.md").read_text() == "keep me" and sorted(p.name for p in elsewhere.iterdir()) == [
        "victim.md"
    ]
    for name in ("book-summary.md", "book-totals.png", "book.csv", "book-feedback"):
        assert not (out / name).is_symlink(), name
    assert (out / "book.csv").read_text().splitlines()[1] == "ann,2,2,2,2,"
    assert (out / "book-feedback" / "ann.md").is_file() and not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_a_row_is_never_appended_through_a_link_put_in_the_csvs_place(tmp_path):
    target = tmp_path / "target.csv"
    target.write_text("keep me\n")
    writer = CsvWriter(tmp_path / "g.csv", {"1.1": 2}, [])
    (tmp_path / "g.csv").unlink()
    (tmp_path / "g.csv").symlink_to(target)
    writer.add(Row("ann", {"1.1": 2}, 2, 2, ""))  # the table is written anew in its own file: no row is lost
    assert target.read_text() == "keep me\n" and not (tmp_path / "g.csv").is_symlink()
    assert (tmp_path / "g.csv").read_text().splitlines()[1:] == ["ann,2,2,2,2,"]


@pytest.mark.timeout(600)
def test_a_submission_changed_while_the_class_is_graded_is_graded_as_it_was_and_the_row_says_so(course, tmp_path):
    ex01, ex02 = solutions(course)
    stub = "def add(a, b):\n    return 0\n\n\ndef count_words(text):\n    return 0\n"
    write(tmp_path / "class", {"ada/ex01_basics.py": stub, "ada/ex02_loop.py": ex02, "bo/ex01_basics.py": ex01})

    def meddle(line):  # as ada's grading starts, her file is swapped for the solution
        if "ada" in line:
            (tmp_path / "class" / "ada" / "ex01_basics.py").write_text(ex01)

    rows = {r.student: r for r in gradebook(tmp_path / "class", course, tmp_path / "g.csv", jobs=1, progress=meddle)}
    assert rows["ada"].points["1.1"] == 0 and rows["ada"].points["2.1"] == 3, rows["ada"].notes
    assert "changed on disk while the class was being graded" in rows["ada"].notes
    assert "changed on disk" not in rows["bo"].notes


def test_a_worker_that_cannot_start_reports_what_it_printed(course, tmp_path):
    conftest = course / "exercises" / "conftest.py"
    conftest.write_text(conftest.read_text() + "\nraise RuntimeError('the course conftest is broken: fix it')\n")
    write(tmp_path / "class", {"ada/ex01_basics.py": solutions(course)[0]})
    with pytest.raises(RuntimeError, match="stopped before collecting") as raised:
        gradebook(tmp_path / "class", course, tmp_path / "grades.csv", jobs=1, progress=lambda line: None)
    assert "the course conftest is broken: fix it" in str(raised.value)


@pytest.mark.timeout(600)
def test_a_worker_that_stops_answering_ends_the_class_at_its_deadline_and_keeps_the_rows(course, tmp_path, monkeypatch):
    """A grading worker stopped mid-student (SIGSTOP: wedged, or frozen by a debugger) would leave the gradebook
    waiting on it for ever. The parent waits the student's limit and a grace; then it kills the worker and stops
    the class with a message, the students graded before it in the CSV."""
    import os
    import signal
    import time

    from agentlab.grading import pool

    monkeypatch.setattr(pool, "ANSWER_GRACE_S", 2.0)
    EX01, EX02 = solutions(course)
    write(
        tmp_path / "class",
        {
            f"{s}/exercises/{n}": t
            for s in ("alice", "bob")
            for n, t in (("ex01_basics.py", EX01), ("ex02_loop.py", EX02))
        },
    )
    stopped: list[int] = []
    stopped_at: list[float] = []

    def progress(line: str) -> None:
        if line.strip().startswith("start bob ("):  # one job at a time: alice is graded; stop the worker now
            for pid in _grade_workers_of(os.getpid()):
                os.kill(pid, signal.SIGSTOP)
                stopped.append(pid)
                stopped_at.append(time.monotonic())

    out = tmp_path / "gradebook.csv"
    with pytest.raises(RuntimeError) as raised:
        gradebook(tmp_path / "class", course, out, jobs=1, per_student_timeout=20, test_floor=FLOOR, progress=progress)
    waited = time.monotonic() - stopped_at[0] if stopped_at else None
    assert stopped, "the test found no grading worker to stop"
    assert 20 + 2 - 1 < waited < 20 + 2 + 60, f"the class ended {waited:.1f} s after its worker stopped"
    assert "did not answer for bob within 20 s (the limit) + 2 s; it was stopped" in str(raised.value)
    assert "--resume" in str(raised.value)
    rows = [r["student"] for r in csv.DictReader(out.open(newline="", encoding="utf-8"))]
    assert rows == ["alice"], rows  # her row, whatever a busy machine made of her 20 s
    assert not any(os.path.exists(f"/proc/{pid}") for pid in stopped), "the worker was left stopped, not killed"


@pytest.mark.timeout(300)
def test_workers_that_do_not_finish_starting_stop_the_class_and_none_is_left_running(course, tmp_path, monkeypatch):
    import os

    from agentlab.grading import pool

    monkeypatch.setattr(pool, "STARTUP_S", 0.2)  # a worker collects and warms up for seconds: all of them are late
    EX01, EX02 = solutions(course)
    write(tmp_path / "class", {"alice/exercises/ex01_basics.py": EX01, "alice/exercises/ex02_loop.py": EX02})
    with pytest.raises(RuntimeError, match="did not finish starting .* within 0.2 s; it was stopped"):
        gradebook(tmp_path / "class", course, tmp_path / "g.csv", jobs=2, test_floor=FLOOR, progress=lambda _: None)
    assert _grade_workers_of(os.getpid()) == [], "a grading worker of this gradebook is still running"


def _grade_workers_of(parent: int) -> list[int]:
    """The pids of the grading workers (``pytest ... --grade-worker=FD``) whose parent is ``parent``."""
    import os

    found = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            ppid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if b"--grade-worker" in cmd and ppid == parent:
            found.append(pid)
    return found
