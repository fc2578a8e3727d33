"""A hostile class (25+ submissions): each tries one way to raise its grade, lower another's or read secrets.

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

pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading sandbox"),
]

STUB_HEADER = "import os, sys, json, glob, gc, atexit, pathlib, time, threading\n"
EVIDENCE = "EVIDENCE "
BUDGET_S = 60.0
"""The class's per-student deadline here (the gradebook's default is 120 s)."""
SLACK_S = 15.0
"""What a student may take past it: the runner's grace after a test's limit, a sandbox started afresh."""
"""An attack that gathers something reports it as its import error, which lands in the notes."""

ATTACKS = {
    # replaces the grading worker's verdict function and the plugin's recorder, as the cheat did
    "patch_verdict": """
import agentlab.grading.worker as w, agentlab.grading.plugin as p
w._verdict = lambda reports: ("passed", "")
def _record(grade, report, call, *rest):
    grade.outcome, grade.earned, grade.reason = "passed", grade.points, ""
p._record = _record
import _pytest.reports as r
r.TestReport.passed = property(lambda self: True)
""",
    # walks its own stack for the per-test secret and the result pipe, writes a forged "passed" everywhere
    "stack_secret": """
_hits = []
f = sys._getframe()
while f is not None:
    for k, v in f.f_locals.items():
        if k in ("nonce", "token", "fd", "write_end"):
            _hits.append(k)
    nonce = f.f_locals.get("nonce") or f.f_locals.get("token")
    for fd in range(0, 64):
        for nodeid in ("exercises/tests/test_ex01_basics.py::test_add",):
            try:
                os.write(fd, (json.dumps({"nonce": nonce, "nodeid": nodeid, "outcome": "passed", "reason": ""}) + "\\n").encode())
            except OSError:
                pass
    f = f.f_back
""",
    # registers a pytest hook at run time that turns every failure into a pass
    "pytest_hook": """
import pytest
class _Cheat:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.outcome = "passed"
        return report
_configs = [o for o in gc.get_objects() if type(o).__name__ == "Config" and hasattr(o, "pluginmanager")]
for c in _configs:
    c.pluginmanager.register(_Cheat(), "cheat")
""",
    # looks for any other readable copy of the instructor repo on the machine and takes its solutions
    "other_copy": """
_found = []
for root in ["/", "/tmp", "/root", "/home", "/work", "/srv", "/opt", COPY, REPO] + [str(pathlib.Path(sys.executable).resolve().parents[i]) for i in range(4)]:
    for pattern in ("exercises/ex01_basics.py", "*/exercises/ex01_basics.py", "*/*/exercises/ex01_basics.py"):
        try:
            for path in pathlib.Path(root).glob(pattern):
                text = path.read_text()
                if "BEGIN SOLUTION" in text:
                    exec(text, globals())
                    _found.append(str(path))
        except OSError:
            pass
if _found:
    raise ImportError("EVIDENCE " + json.dumps(_found))
""",
    # a double-forked, setsid process that outlives the test and keeps trying to write the CSV
    "survivor": """
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(600):
            try:
                pathlib.Path(CSV).write_text("survivor,8,8,8,24,8,\\n")
            except OSError:
                pass
            time.sleep(0.1)
    os._exit(0)
""",
    # reads every environment it can find: its own, /proc/self, every process's
    "env_reader": """
_seen = [json.dumps(dict(os.environ))]
for pid in ["self"] + [str(p) for p in range(1, 1 << 16) if os.path.exists(f"/proc/{p}/environ")]:
    try:
        _seen.append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
    except OSError:
        pass
_all = "\\n".join(_seen)
raise ImportError("EVIDENCE " + json.dumps({"environments": len(_seen), "path": "PATH" in _all, "key": "sk-ant" in _all, "token": "TOKEN" in _all}))
""",
    # plants files where the grader writes, points the summary elsewhere, rewrites another student's submission
    "plant_files": """
_done = []
_out = os.path.dirname(CSV)
for how, path in [("symlink", os.path.join(_out, "gradebook-summary.md")), ("symlink", os.path.join(_out, "gradebook-feedback")),
                  ("write", os.path.join(_out, "planted.txt")), ("write", os.path.join(KLASS, "zz_next_student", "ex01_basics.py")),
                  ("write", os.path.join(KLASS, "honest_alice", "ex02_loop.py"))]:
    try:
        if how == "symlink":
            os.symlink("/tmp/agentlab-elsewhere", path)
        else:
            with open(path, "w") as f:
                f.write("def add(a, b):\n    return 0\n")
        _done.append(path)
    except OSError:
        pass
raise ImportError("EVIDENCE " + json.dumps(_done))
""",
    # fills every writable place it can reach
    "disk_fill": """
_written = 0
for folder in {"/tmp", os.getcwd(), os.environ.get("HOME", "/tmp"), os.environ.get("TMPDIR", "/tmp"), REPO, os.path.dirname(CSV)}:
    for n in range(8):
        try:
            with open(os.path.join(folder, f"agentlab-fill-{n}"), "wb") as f:
                for _ in range(64):
                    f.write(b"x" * (1 << 20))
                    _written += 1 << 20
        except (OSError, ValueError):
            pass
raise ImportError("EVIDENCE " + json.dumps({"written_mib": _written >> 20}))
""",
}

REFERENCE = """def add(a, b):
    total = 0
    for x in (a, b):
        total = total + x
    return int(total)


def count_words(text):
    words = [w for w in text.split() if w]
    return len(words)
"""
"""The lab's own answer to exercise 1, which its tests forbid (long enough that a copy of it is recognised)."""

MODULE_COPY = '''"""Warm-up exercises, answered by the reference loaded again under a name of the student's."""
import importlib.util

import agentlab.reference as _reference


def _copy():
    spec = importlib.util.spec_from_file_location("my_helpers", _reference.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def add(a, b):
    """Exercise 1.1: return the sum of a and b."""
    return _copy().add(a, b)


def count_words(text):
    """Exercise 1.2: count the words in text, splitting on any whitespace."""
    return _copy().count_words(text)
'''


SABOTAGE = {
    "ex01_basics.py": """import os, signal


def _stop_everyone_else():
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    try:
        os.kill(-1, signal.SIGKILL)  # every process this uid may signal, but itself
    except OSError:
        pass


def add(a, b):
    _stop_everyone_else()
    return a + b


def count_words(text):
    _stop_everyone_else()
    return len(text.split())
"""
}
"""Honest answers, but first a stop and a kill for every process its uid may reach, while the other worker grades
another student."""


def _sandboxed() -> bool:
    from agentlab.grading import confine
    from agentlab.grading.bwrap import available

    return available() is None and confine.is_root()


FORGED = '''"""The loop exercise, answered by asking the grader for whatever its channel might give."""
import json


def run_until_done(steps):
    """Exercise 2.1: forges every request the old object channel knew, on the handle of a step it was given."""
    peer, ref = steps[0]._peer, steps[0]._id
    found = []
    for op in ("getattr", "getitem", "len", "list", "str", "bool", "contains", "module_call", "get", "http", "call"):
        for target in (ref, 1, 0):
            message = {"op": op, "ref": target, "h": target, "args": ["__globals__"], "kwargs": {},
                       "module": "ex01_basics", "name": "add", "http": {"method": "GET", "url": "/v1/models"}}
            try:
                found.append([op, "answered " + repr(peer.request(message))[:40]])
            except Exception as e:
                found.append([op, type(e).__name__])
    refused = sum(kind == "PermissionError" for _op, kind in found)
    raise RuntimeError("EVIDENCE " + json.dumps({"refused": refused, "other": [f"{op} {kind}" for op, kind in found if kind != "PermissionError"]}))
'''


THREADED = '''"""Warm-up exercises, answered by the reference from a thread pool."""
import concurrent.futures, threading
import agentlab.reference as reference


def add(a, b):
    """Exercise 1.1: return the sum of a and b."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(reference.add, a, b).result()


def count_words(text):
    """Exercise 1.2: count the words in text, splitting on any whitespace."""
    out = []
    t = threading.Thread(target=lambda: out.append(reference.count_words(text)))
    t.start()
    t.join()
    return out[0]
'''


PROCESSES = '''"""Warm-up exercises, answered by the reference in a Python process of their own."""
import subprocess, sys


def _reference(call):
    done = subprocess.run([sys.executable, "-c", f"import agentlab.reference as r; print(r.{call})"],
                          capture_output=True, text=True, timeout=30)
    return int(done.stdout) if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def add(a, b):
    """Exercise 1.1: return the sum of a and b."""
    return _reference(f"add({a!r}, {b!r})")


def count_words(text):
    """Exercise 1.2: count the words in text, splitting on any whitespace."""
    return _reference(f"count_words({text!r})")
'''


def _module(course: Path, attack: str, student: Path, constants: str) -> str:
    """The student-edition ex01 with the attack prepended (so its answers are stubs)."""
    return STUB_HEADER + constants + ATTACKS[attack] + "\n" + (student / "exercises/ex01_basics.py").read_text()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    tmp = tmp_path_factory.mktemp("hostile")
    course = Path(shutil.copytree(course_template, tmp / "course"))
    # a reference the exercise 1 tests forbid, for the thread attack
    (course / "agentlab" / "reference.py").write_text(REFERENCE)
    test01 = course / "exercises" / "tests" / "test_ex01_basics.py"
    test01.write_text(
        test01.read_text().replace(
            "import pytest\n",
            "import pytest\n\npytestmark = pytest.mark.forbids('agentlab.reference.add', "
            "'agentlab.reference.count_words', why='write it yourself')\n",
            1,
        )
    )
    copy = Path(tempfile.mkdtemp(prefix="agentlab-copy-"))  # another readable copy of the instructor repo
    shutil.copytree(course, copy / "course-copy")
    for folder in [copy, *copy.rglob("*")]:
        os.chmod(folder, 0o755 if folder.is_dir() else 0o644)
    release_student(course, tmp / "student")
    out = tmp / "out" / "gradebook.csv"
    out.parent.mkdir()
    klass = tmp / "class"
    constants = f"REPO = {str(course)!r}\nCOPY = {str(copy)!r}\nCSV = {str(out)!r}\nKLASS = {str(klass)!r}\n"
    for attack in ATTACKS:
        for variant in ("", "_and_loop"):  # each attack on its own, and once more with an honest ex02 beside it
            (klass / f"{attack}{variant}").mkdir(parents=True)
            (klass / f"{attack}{variant}" / "ex01_basics.py").write_text(
                _module(course, attack, tmp / "student", constants)
            )
            if variant:
                shutil.copy(course / "exercises/ex02_loop.py", klass / f"{attack}{variant}")
    solved = (course / "exercises/ex01_basics.py").read_text()
    ex02 = (course / "exercises/ex02_loop.py").read_text()
    extras = {
        "threads": {"ex01_basics.py": THREADED, "ex02_loop.py": ex02},
        "processes": {"ex01_basics.py": PROCESSES, "ex02_loop.py": ex02},
        "forged_requests": {"ex02_loop.py": FORGED},
        "module_copy": {"ex01_basics.py": MODULE_COPY, "ex02_loop.py": ex02},
        "pasted_reference": {"ex01_basics.py": '"""The reference, pasted."""\n\n\n' + REFERENCE, "ex02_loop.py": ex02},
        "channel_bomb": {
            "ex01_basics.py": "def add(a, b):\n    return 'x' * (40 << 20)  # longer than a message may be\n\n"
            "def count_words(text):\n    deep = []\n    for _ in range(200_000):\n        deep = [deep]\n    return deep\n",
            "ex02_loop.py": ex02,
        },
        "lying_object": {
            "ex01_basics.py": "class _Yes:\n    def __eq__(self, other):\n        return True\n\n"
            "class _Str(str):\n    def __eq__(self, other):\n        return True\n\n"
            "def add(a, b):\n    return _Yes()\n\ndef count_words(text):\n    return _Str('no')\n"
        },
        "always_equal": {
            "ex01_basics.py": "class _Eq(int):\n    def __eq__(self, other):\n        return True\n\n"
            "def add(a, b):\n    return _Eq(0)\n\ndef count_words(text):\n    return _Eq(0)\n"
        },
        "extra_test_module": {
            "ex01_basics.py": (tmp / "student/exercises/ex01_basics.py").read_text(),
            "ex99_test.py": "import pytest\n@pytest.mark.points(100)\ndef test_free():\n    pass\n",
            "conftest.py": "raise SystemExit('sabotage')\n",
            "tests/test_ex01_basics.py": "def test_add():\n    pass\n",
        },
        "os_exit": {
            "ex01_basics.py": solved.replace(
                "    secret_words = text.split()", "    import os; os._exit(3)\n    secret_words = text.split()"
            ),
            "ex02_loop.py": ex02,
        },
        "kills_its_server": {
            "ex01_basics.py": solved.replace(
                "    secret_total = a + b",
                "    import os, signal; os.kill(os.getppid(), signal.SIGKILL)\n    secret_total = a + b",
            ),
            "ex02_loop.py": ex02,
        },
        "memory_hog": {
            "ex01_basics.py": solved.replace(
                "    secret_total = a + b", "    hog = bytearray(3 << 30)\n    secret_total = a + b"
            ),
            "ex02_loop.py": ex02,
        },
        "honest_alice": {"ex01_basics.py": solved, "ex02_loop.py": ex02},
        "honest_bob": {"ex01_basics.py": solved.replace("text.split()", 'text.split(" ")')},
        "honest_carol": {"ex02_loop.py": ex02},
        "exits_at_import": {"ex01_basics.py": "import os\nos._exit(0)\n", "ex02_loop.py": ex02},
        # and one that imports standard modules the server never loaded: they must be readable
        "zz_next_student": {
            "ex01_basics.py": "import colorsys, fractions, wave, tomllib\n" + solved,
            "ex02_loop.py": ex02,
        },
    }
    if _sandboxed():  # only in the sandbox: elsewhere its uid is ours, and it would stop this very test run
        extras["sabotage"] = SABOTAGE | {"ex02_loop.py": ex02}
    for name, files in extras.items():
        for rel, text in files.items():
            (klass / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (klass / name / rel).write_text(text)
    assert len(list(klass.iterdir())) >= 25
    said: list[str] = []
    os.environ["ANTHROPIC_API_KEY"] = SECRET
    os.environ["COURSE_SERVICE_TOKEN"] = SECRET
    try:
        gradebook(klass, course, out, per_student_timeout=BUDGET_S, test_floor=3, jobs=2, progress=said.append)
    finally:
        os.environ.pop("ANTHROPIC_API_KEY", None)
        os.environ.pop("COURSE_SERVICE_TOKEN", None)
    finished = time.time()
    csv_text = out.read_text()
    time.sleep(1.5)  # time for a survivor to show itself
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    took = {m.split()[1]: float(m.split(" in ")[1].split(" s")[0]) for m in said if m.startswith("[")}
    yield {
        "rows": rows,
        "csv_text": csv_text,
        "out": out,
        "finished": finished,
        "course": course,
        "copy": copy,
        "took": took,
    }
    shutil.rmtree(copy, ignore_errors=True)


def _score(graded, student):
    r = graded["rows"][student]
    return r["1.1"], r["1.2"], r["2.1"]


def _evidence(graded, student) -> dict | list:
    import json

    notes = graded["rows"][student]["notes"]
    assert EVIDENCE in notes, notes
    return json.loads(notes.split(EVIDENCE, 1)[1].split(";")[0].removesuffix("..."))


@pytest.mark.parametrize(
    "attack",
    [
        "patch_verdict",
        "stack_secret",
        "pytest_hook",
        "other_copy",
        "env_reader",
        "disk_fill",
        "survivor",
        "plant_files",
    ],
)
def test_an_attack_on_the_grader_scores_zero(graded, attack):
    assert _score(graded, attack) == ("0", "0", "0"), graded["rows"][attack]["notes"]
    assert _score(graded, attack + "_and_loop") == ("0", "0", "3"), graded["rows"][attack + "_and_loop"]["notes"]


def test_patching_the_verdict_or_pytest_changes_nothing_the_grader_reads(graded):
    assert "NotImplementedError: Exercise 1.1" in graded["rows"]["patch_verdict"]["notes"]
    assert "NotImplementedError: Exercise 1.1" in graded["rows"]["pytest_hook"]["notes"]  # no pytest to hook into


def test_no_copy_of_the_instructors_repo_is_readable(graded):
    assert "NotImplementedError: Exercise 1.1" in graded["rows"]["other_copy"]["notes"]  # found nothing: no EVIDENCE
    assert EVIDENCE not in graded["rows"]["other_copy"]["notes"]


def test_forbids_holds_in_threads_the_submission_starts(graded):
    notes = graded["rows"]["threads"]["notes"]
    assert _score(graded, "threads") == ("0", "0", "3"), notes
    assert "write it yourself; agentlab.reference.add is the reference" in notes
    assert "1.2: IndexError" in notes  # the refused call raised in the thread, which so returned nothing


def test_forbids_holds_for_a_copy_of_the_reference_loaded_or_pasted(graded):
    for student in ("module_copy", "pasted_reference"):
        notes = graded["rows"][student]["notes"]
        assert _score(graded, student) == ("0", "0", "3"), notes
        assert "write it yourself; a copy of agentlab.reference.add or agentlab.reference.count_words" in notes, notes


def test_forbids_holds_in_python_processes_the_submission_starts(graded):
    notes = graded["rows"]["processes"]["notes"]
    assert _score(graded, "processes") == ("0", "0", "3"), notes
    assert "write it yourself; agentlab.reference.add is the reference" in notes, notes  # the refusal, from the child


def test_an_object_that_equals_everything_earns_nothing(graded):
    assert _score(graded, "always_equal") == ("0", "0", "0"), graded["rows"]["always_equal"]["notes"]


def test_disk_filling_stays_inside_the_sandbox(graded):
    written = _evidence(graded, "disk_fill")["written_mib"]
    from agentlab.grading.bwrap import TMP_BYTES, available

    if available() is None:
        assert written <= TMP_BYTES >> 20  # only the private, size-capped /tmp was writable
    for folder in (graded["course"], graded["out"].parent, Path(tempfile.gettempdir())):
        assert not list(folder.glob("agentlab-fill-*")), folder


def test_nothing_a_submission_starts_outlives_it(graded):
    assert graded["out"].read_text() == graded["csv_text"]
    assert "survivor,8" not in graded["csv_text"]
    assert not [p for p in Path("/proc").iterdir() if p.name.isdigit() and _uid(p) in student_uids()]


def test_no_secret_reaches_a_submission(graded):
    seen = _evidence(graded, "env_reader")
    assert seen["path"] and not seen["key"] and not seen["token"], seen  # it read environments: no key in any
    assert SECRET not in graded["csv_text"]


def test_a_crash_costs_only_its_own_test(graded):
    r = graded["rows"]["os_exit"]
    assert _score(graded, "os_exit") == ("2", "0", "3")
    assert "exited with code 3 before it returned" in r["notes"]
    assert _score(graded, "kills_its_server") == ("0", "3", "3"), graded["rows"]["kills_its_server"]["notes"]


def test_memory_is_capped(graded):
    r = graded["rows"]["memory_hog"]
    assert _score(graded, "memory_hog") == ("0", "3", "3")
    assert "1.1: MemoryError" in r["notes"]


def test_honest_rows_are_untouched(graded):
    assert _score(graded, "honest_alice") == ("2", "3", "3") and graded["rows"]["honest_alice"]["notes"] == ""
    assert _score(graded, "honest_bob") == ("2", "1", "0")
    assert _score(graded, "honest_carol") == ("0", "0", "3")
    assert _score(graded, "exits_at_import") == ("0", "0", "3")
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
    release_student(course, tmp_path / "student")
    solved = (course / "exercises/ex01_basics.py").read_text()
    ex02 = (course / "exercises/ex02_loop.py").read_text()
    out = tmp_path / "gradebook.csv"
    survivor = STUB_HEADER + f"CSV = {str(out)!r}\n" + ATTACKS["survivor"]
    klass = tmp_path / "class"
    for name, files in {
        "survivor": {"ex01_basics.py": survivor + solved, "ex02_loop.py": ex02},
        "os_exit": {
            "ex01_basics.py": solved.replace(
                "    secret_words = text.split()", "    import os; os._exit(3)\n    secret_words = text.split()"
            ),
            "ex02_loop.py": ex02,
        },
    }.items():
        for rel, text in files.items():
            (klass / name).mkdir(parents=True, exist_ok=True)
            (klass / name / rel).write_text(text)
    gradebook(klass, course, out, test_floor=3, jobs=1, progress=lambda s: None)
    time.sleep(1.5)
    rows = {r["student"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    assert (rows["survivor"]["total"], rows["os_exit"]["total"]) == ("8", "5"), [r["notes"] for r in rows.values()]
    assert "survivor,8" not in out.read_text(), "a double-forked setsid process outlived its test"


def test_a_forged_request_on_the_channel_gets_a_refusal_never_an_object(graded):
    found = _evidence(graded, "forged_requests")
    assert found == {"refused": 32, "other": ["call TypeError"]}, found  # the test's own step, called with an argument
    assert _score(graded, "forged_requests") == ("0", "0", "0"), graded["rows"]["forged_requests"]["notes"]


def test_signalling_every_process_it_can_reaches_only_its_own(graded):
    if "sabotage" not in graded["rows"]:
        pytest.skip("needs the bubblewrap sandbox as root: elsewhere the student's uid is the grader's own")
    assert _score(graded, "sabotage") == ("2", "3", "3"), graded["rows"]["sabotage"]["notes"]  # nor its own grader
    assert _score(graded, "honest_alice") == ("2", "3", "3") and _score(graded, "zz_next_student") == ("2", "3", "3")


def test_every_student_is_done_within_the_per_student_deadline(graded):
    """The deadline covers all a student costs (sandbox starts included), whatever the student does; the old
    object channel's bombs cost 150-200 s each. Slack: the grace before a hung test process is killed, and
    the fresh sandbox that follows it."""
    took = graded["took"]
    assert len(took) == len(graded["rows"])
    over = {student: s for student, s in took.items() if s > BUDGET_S + SLACK_S}
    assert not over, (
        f"over {BUDGET_S:g} s (+{SLACK_S:g} s slack): {over}; slowest: {max(took.items(), key=lambda x: x[1])}"
    )


def test_a_channel_bomb_costs_its_own_tests_and_nothing_else(graded):
    notes = graded["rows"]["channel_bomb"]["notes"]
    assert _score(graded, "channel_bomb") == ("0", "0", "3"), notes  # the next test, in a fresh sandbox, still runs
    # 40 MiB is refused as too long, or (on a loaded machine) its test runs out of time building it first
    assert "1.1: ChannelClosed: a message was too long" in notes or "1.1: took longer than" in notes, notes
    assert "1.2: RecursionError" in notes, notes


def test_a_value_that_lies_about_equality_arrives_as_plain_data_or_not_at_all(graded):
    notes = graded["rows"]["lying_object"]["notes"]
    assert _score(graded, "lying_object") == ("0", "0", "0"), notes
    assert "type _Yes cannot cross" in notes and "got 'no'" in notes, notes


def test_nothing_is_planted_where_the_grader_writes_or_in_another_submission(graded):
    from agentlab.grading.bwrap import available

    if available() is not None:  # without the sandbox the student's code can write what this account can
        assert _evidence(graded, "plant_files") == []
    out = graded["out"].parent
    assert not (out / "planted.txt").exists() and not (out / "gradebook-summary.md").is_symlink()
    assert _score(graded, "zz_next_student") == ("2", "3", "3") and _score(graded, "honest_alice") == ("2", "3", "3")
