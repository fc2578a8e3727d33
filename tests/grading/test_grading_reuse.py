"""One warm sandbox graded student after student: nothing one student leaves reaches the next.

As root with bubblewrap, a worker hands its sandbox on (``StudentSandbox.recycle``) instead of
starting a fresh one per student. One worker grades three students in order: the first leaves
everything it can (IPC objects, a POSIX message queue, a file in /tmp, a process that outlives it,
an honest ex02 module); the second only looks; the third is honest and must get full marks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from graded_class import evidence, grade_class

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux grading sandbox"),
]


SERVER = """
import ctypes, os
_NR = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(os.uname().machine)
_libc = ctypes.CDLL(None, use_errno=True)


def _add_key(keyring):
    return _libc.syscall(_NR[0], b"user", b"agentlab-left", b"left", 4, keyring) if _NR else -1


def _keys(keyring):  # how many keys the keyring holds (KEYCTL_READ gives 4 bytes a key)
    return _libc.syscall(_NR[1], 11, keyring, None, 0) // 4 if _NR else 0


def _server():
    ppid = os.getppid()
    return [ppid, open(f"/proc/{ppid}/stat").read().rsplit(")", 1)[1].split()[19]]
"""

LEAVES = (
    """import ctypes, json, os, time
"""
    + SERVER
    + """
libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT = 0o1000
made = {"shm": libc.shmget(0x5EED, 4096, IPC_CREAT | 0o666), "sem": libc.semget(0x5EED, 1, IPC_CREAT | 0o666),
        "msg": libc.msgget(0x5EED, IPC_CREAT | 0o666)}
keys = [_add_key(-4), _add_key(-5), _add_key(-3)]  # the uid's keyrings and the session one
mq = libc.mq_open(b"/agentlab-left", os.O_CREAT | os.O_RDWR, 0o666, None) if hasattr(libc, "mq_open") else -1
with open("/tmp/agentlab-left", "w") as f:
    f.write("left by the first student")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(120)
    os._exit(0)
raise ImportError("EVIDENCE " + json.dumps({"server": _server(), "made": made, "mq": mq, "keys": keys}))
"""
)

LOOKS = (
    """import json, os
"""
    + SERVER
    + """
_ipc = {}
for _kind in ("shm", "sem", "msg"):
    with open(f"/proc/sysvipc/{_kind}") as _f:
        _ipc[_kind] = len(_f.readlines()) - 1
_procs = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid() and os.stat(f"/proc/{p}").st_uid == os.getuid()]
raise ImportError("EVIDENCE " + json.dumps({"server": _server(), "tmp": sum(os.stat(os.path.join("/tmp", n)).st_uid != 0 for n in os.listdir("/tmp")), "ipc": _ipc,
                                            "procs": len(_procs), "files": len(os.listdir(os.path.dirname(__file__))),
                                            "keys": [_keys(-4), _keys(-5), _keys(-3)]}))
"""
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    tmp = tmp_path_factory.mktemp("reuse")
    course = Path(shutil.copytree(course_template, tmp / "course"))
    ex02 = (course / "exercises/ex02_loop.py").read_text()
    honest = (course / "exercises/ex01_basics.py").read_text()
    return grade_class(
        course,
        tmp,
        {
            "a_leaves": {"ex01_basics.py": LEAVES, "ex02_loop.py": ex02},
            "b_looks": {"ex01_basics.py": LOOKS},
            "c_honest": {"ex01_basics.py": honest, "ex02_loop.py": ex02},
        },
    )


def _reused() -> bool:
    from agentlab.grading import bwrap, confine, mounts

    return bwrap.available() is None and confine.is_root() and mounts.enabled()


def test_one_warm_sandbox_serves_the_students_one_after_another(graded):
    if not _reused():
        pytest.skip("without root and bubblewrap each student gets a fresh sandbox")
    assert evidence(graded, "a_leaves")["server"] == evidence(graded, "b_looks")["server"]


def test_the_next_student_finds_nothing_the_last_one_left(graded):
    left, seen = evidence(graded, "a_leaves"), evidence(graded, "b_looks")
    assert min(left["made"].values()) >= 0, left  # the first student did make its IPC objects
    assert left["mq"] == -1  # a POSIX message queue cannot be made at all (RLIMIT_MSGQUEUE is 0)
    assert (seen["tmp"], seen["procs"]) == (0, 0), seen
    assert seen["ipc"] == {"shm": 0, "sem": 0, "msg": 0}, seen
    assert seen["files"] == 1, seen  # its own ex01 only: the first student's ex02 is gone
    if os.uname().machine in ("x86_64", "aarch64"):
        assert min(left["keys"]) > 0, left  # the first student did add a key to each keyring
        assert seen["keys"] == [0, 0, 0], seen  # and none of them reached the next student


def test_a_module_the_student_did_not_hand_in_is_not_the_last_students(graded):
    assert graded["b_looks"]["2.1"] == "0", graded["b_looks"]["notes"]
    assert graded["a_leaves"]["2.1"] == "3"


def test_an_honest_student_after_them_gets_full_marks(graded):
    row = graded["c_honest"]
    assert (row["1.1"], row["1.2"], row["2.1"], row["notes"]) == ("2", "3", "3", ""), row


def test_a_file_of_the_same_size_and_time_at_the_same_path_is_compiled_anew(tmp_path):
    from agentlab.grading.student_server import _compile

    path, compiled = tmp_path / "ex01_basics.py", {}
    path.write_text("ANSWER = 1\n")
    first = _compile({"ex01_basics": str(path)}, compiled)[str(path)]
    stamp = path.stat()
    path.write_text("ANSWER = 2\n")  # the next student's file: same length, and the same time set below
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    second = _compile({"ex01_basics": str(path)}, compiled)[str(path)]
    space: dict = {}
    exec(second, space)
    assert first is not second and space["ANSWER"] == 2
