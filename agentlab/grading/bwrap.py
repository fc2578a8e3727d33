"""Start a student's sandbox (``agentlab.grading.student_server``) with Debian's bubblewrap.

bubblewrap (``bwrap``, what Flatpak uses) builds the sandbox from an allow-list: the Python
installation and the virtual environment read-only, the system's shared libraries read-only, the
staged lab read-only at ``/lab``, the student's own folder read-only at ``/student``, a scratch
folder for the tests' own folders (``tmp_path``) writable at the same path as outside, a private
``/tmp`` capped at ``TMP_BYTES`` (as root, it and the scratch folder are tmpfs mounts capped in
bytes and files, the scratch one no-follow for the trusted side: ``agentlab.grading.mounts``), its
own ``/proc`` and ``/dev``, and nothing else: no other file of the machine (so no copy of the
instructor's repository, wherever it is), no network
(``--unshare-net``), its own pid, IPC and UTS namespaces, an empty environment. As root the
server drops to a fresh uid per worker before any student code runs; otherwise bwrap runs in a
user namespace as the caller.

Where ``bwrap`` is missing or namespaces are not allowed, ``sandbox_command`` returns a plain
command and ``notice`` says so in one line (the student grading their own work needs no sandbox;
a class gradebook does).
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentlab.grading import mounts

TMP_BYTES = 64 << 20
"""Size of the sandbox's private /tmp (its only writable place)."""
STUDENT_DIR = "/student"
"""Where the student's folder appears inside the sandbox."""
LAB_DIR = "/lab"
"""Where the staged lab package appears inside the sandbox."""
RESET_S = 10.0
"""How long ``recycle`` waits for the server's answer before giving the sandbox up."""
CLOSE_S = 1.0
"""How long ``close`` lets the server end by itself before killing the sandbox."""
RESET_BYTES = 1 << 20
"""Most bytes ``recycle`` reads while looking for that answer (a pipe holds 64 KiB)."""


def python_roots() -> list[str]:
    """The folders of the Python installation and venv (outermost only)."""
    paths = sorted(
        {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages())}
    )
    return [p for p in paths if not any(p != q and p.startswith(q + os.sep) for q in paths)]


def interpreter() -> str:
    """``sys.executable`` with its folder resolved, its own name kept.

    Through a symlinked folder (``ln -s /elsewhere/.venv .venv``) the path as given does not exist
    inside the sandbox, and a bind of it would bind the bare interpreter the venv's ``bin/python``
    points at: that finds no ``pyvenv.cfg`` beside it, so the venv's site-packages vanish and the
    first import of the SDK (e.g. resolving a ``forbids`` name) fails. The folder resolved, the venv
    is found again; the name kept (``bin/python`` may itself be a symlink), Python still sees the venv.
    """
    return os.path.join(os.path.realpath(os.path.dirname(sys.executable)), os.path.basename(sys.executable))


def _system_libs() -> list[str]:
    return [p for p in ("/usr/lib", "/usr/lib64", "/usr/lib32") if os.path.isdir(p) and not os.path.islink(p)]


@functools.lru_cache(maxsize=1)
def available() -> str | None:
    """None if bwrap works here, else the one-line reason it does not."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    cmd = [exe, *_namespaces(), "--ro-bind", "/", "/", "true"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap could not start ({e})"
    if done.returncode != 0:
        return f"bwrap cannot create namespaces here ({(done.stderr.strip().splitlines() or ['?'])[-1]})"
    return None


def notice() -> str | None:
    """The one line to print when grading without the sandbox."""
    why = available()
    return (
        None
        if why is None
        else (
            f"note: {why}; student code runs in a separate process without the "
            "bubblewrap sandbox (apt-get install bubblewrap for the full isolation)"
        )
    )


def _namespaces() -> list[str]:
    ns = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"]
    if os.geteuid() != 0:
        ns.insert(0, "--unshare-user")
    return ns


def sandbox_command(
    lab: Path, student: Path, uid: int | None, scratch: Path, tmp: Path | None = None
) -> tuple[list[str], dict[str, str], bool]:
    """(argv, environment, sandboxed) that starts the student server for ``student``'s folder; ``scratch`` is
    bound writable at its own path, so a folder a test hands the student's code means the same inside;
    ``tmp`` (a capped mount, ``agentlab.grading.mounts``) becomes /tmp, else a private tmpfs of ``TMP_BYTES``."""
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONPATH": LAB_DIR,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "MPLCONFIGDIR": "/tmp",
    }
    exe = interpreter()
    server = [exe, "-m", "agentlab.grading.student_server"]
    if available() is not None:
        env.update(PYTHONPATH=str(lab), HOME=str(student), TMPDIR=str(student), MPLCONFIGDIR=str(student))
        return server + (["--uid", str(uid)] if uid is not None else []), env, False
    cmd = ["bwrap", *_namespaces(), "--clearenv"]
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    # /tmp's tmpfs first: the venv or the grading stage may live under /tmp, and a later tmpfs would hide them
    cmd += (
        ["--bind", str(tmp), "/tmp"]
        if tmp is not None
        else ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    )
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    parents = sorted(
        {
            str(a)
            for root in [*python_roots(), *_system_libs(), str(scratch)]
            for a in Path(root).parents
            if str(a) not in ("/", "/tmp")
        },
        key=lambda a: a.count("/"),
    )
    for (
        folder
    ) in parents:  # e.g. /root is 0700: inside, the folders on the way are 0755 and empty (bwrap would make them 0700)
        cmd += ["--perms", "0755", "--dir", folder]
    for root in python_roots():
        cmd += ["--ro-bind", root, root]
    for lib in _system_libs():
        cmd += ["--ro-bind", lib, lib]
    for link, target in (("/lib", "usr/lib"), ("/lib64", "usr/lib64"), ("/bin", "usr/bin")):
        if os.path.islink(link):
            cmd += ["--symlink", target, link]
    if exe not in python_roots() and not any(exe.startswith(r + os.sep) for r in python_roots()):
        cmd += ["--ro-bind", exe, exe]
    cmd += [
        "--ro-bind",
        str(lab),
        LAB_DIR,
        "--ro-bind",
        str(student),
        STUDENT_DIR,
        "--bind",
        str(scratch),
        str(scratch),
        "--chdir",
        STUDENT_DIR,
    ]
    if uid is not None:
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    cmd += ["--", *server, "--pidns"] + (["--uid", str(uid)] if uid is not None else [])
    return cmd, env, True


class StudentSandbox:
    """One running student server over an (initially empty) folder; files are put in before use."""

    def __init__(self, folder: Path, lab: Path, uid: int | None) -> None:
        self.folder = folder
        """The student's files (read-only inside, at ``STUDENT_DIR``)."""
        self.scratch = folder.with_name(folder.name + "-scratch")
        """The tests' own folders (``tmp_path``): writable inside, at the same path as outside."""
        self.uid = uid
        """The uid the student's code runs as (None: the caller's)."""
        self.tmp = folder.with_name(folder.name + "-tmp") if mounts.enabled() and available() is None else None
        """The sandbox's /tmp, a capped mount (root with bwrap); None: bwrap's own tmpfs, or no sandbox."""
        for path in (folder, self.scratch, self.tmp):
            if path is not None:
                path.mkdir(mode=0o755, parents=True, exist_ok=True)
                os.chmod(path, 0o755)
        if mounts.enabled():  # bytes and files capped for every folder the student may write; no-follow for us
            mounts.private_namespace()
            mounts.capped(str(self.scratch), mounts.SCRATCH_BYTES, 0o1777, no_follow=True)
            if self.tmp is not None:
                mounts.capped(str(self.tmp), TMP_BYTES, 0o1777, no_follow=False)
        cmd, env, self.sandboxed = sandbox_command(lab, folder, uid, self.scratch, self.tmp)
        self.proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=folder,
            start_new_session=True,
        )
        self._ready = False
        self._mount_points: set[str] = set()
        """What bwrap made in /tmp for the folders bound below it (e.g. the scratch folder's parents): removing
        one from this side would take that bind out of the sandbox, so ``recycle`` leaves these alone."""

    def path_of(self, name: str) -> str:
        """Where a file put in the folder appears inside the sandbox."""
        return f"{STUDENT_DIR}/{name}" if self.sandboxed else str(self.folder / name)

    def put(self, files: dict[str, bytes]) -> dict[str, str]:
        """Write the student's modules into the folder; module name -> path inside the sandbox."""
        out = {}
        for name, data in files.items():
            (self.folder / name).write_bytes(data)
            os.chmod(self.folder / name, 0o644)
            out[name.removesuffix(".py")] = self.path_of(name)
        return out

    def ready(self) -> bool:
        """Wait for the server's ready line (once); False if it died instead."""
        if not self._ready:
            line = self.proc.stdout.readline()
            self._ready = line.startswith(b'{"k": "ready"}')
            if self.tmp is not None:  # bwrap's mount points (before any student code ran): recycle keeps them
                self._mount_points = set(os.listdir(self.tmp))
        return self._ready and self.proc.poll() is None

    @property
    def reusable(self) -> bool:
        """Whether ``recycle`` may hand this sandbox to another student: bubblewrap, a uid of the student's own
        and a capped /tmp this side can empty (root). Otherwise each student gets a fresh sandbox."""
        return self.sandboxed and self.uid is not None and self.tmp is not None

    def recycle(self, timeout: float = RESET_S) -> bool:
        """Make this warm sandbox as good as new for the next student; False if it cannot be (close it then).

        The caller has killed every process of the student's uid (``agentlab.grading.reap``) and ended the
        trusted runner. Here: the server removes the uid's IPC objects and forgets the compiled modules
        (``student_server`` ``reset``), then the student's files, /tmp and the tests' folders are emptied.
        The server itself never ran a line of the student's code."""
        if not (self.reusable and self.ready()):
            return False
        token = os.urandom(8).hex()
        try:
            self.proc.stdin.write(json.dumps({"op": "reset", "token": token}).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            return False
        deadline, fd, buffer, read = time.monotonic() + timeout, self.proc.stdout.fileno(), b"", 0
        while read < RESET_BYTES:  # bounded: what a dead test's process left in the pipe comes first
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if isinstance(answer, dict) and answer.get("k") == "reset" and answer.get("token") == token:
                    if answer.get("left") != 0:
                        return False
                    # root's 0755 folders in a sticky /tmp are never the student's: bwrap's mount points stay
                    return _empty(self.folder) and _empty(self.tmp, keep=self._mount_points) and _empty(self.scratch)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return False
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return False
            buffer, read = buffer + chunk, read + len(chunk)
        return False

    def close(self) -> None:
        """End the server: it exits when its stdin closes (so bwrap waits for it and its CPU time is counted in
        ours, which the benchmark reads); whatever is still running after ``CLOSE_S`` is killed."""
        for step in (
            lambda: self.proc.stdin.close(),
            lambda: self.proc.wait(CLOSE_S) if self._ready else None,
            lambda: os.killpg(self.proc.pid, 9),
            self.proc.wait,
            lambda: self.proc.stdout.close(),
        ):
            try:
                step()
            except (OSError, ValueError, ProcessLookupError, subprocess.TimeoutExpired):
                pass
        for path in (self.scratch, self.tmp):
            if path is not None:
                mounts.unmount(str(path))
                shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    def clear_scratch(self) -> None:
        """Empty the tests' folders (after each test: a test's files never count against the next one's cap)."""
        _empty(self.scratch)

    def test_folder(self, name: str) -> Path:
        """A new folder for one test under ``scratch``, owned by the student's uid (its ``tmp_path``)."""
        path = Path(tempfile.mkdtemp(prefix=f"{name[:40]}-", dir=self.scratch))
        if self.uid is not None:  # made by the trusted test process's own uid: the student's uid writes there too
            os.chmod(path, 0o777)
        return path


def _empty(folder: Path | None, keep: set[str] = frozenset()) -> bool:
    """Remove everything inside ``folder`` but the names in ``keep`` (symlinks as links, never followed);
    whether nothing else is left (a sandbox whose folders could not be emptied is not handed on)."""
    if folder is None:
        return True
    for path in list(folder.iterdir()):
        if path.name in keep:
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # counted below
    try:
        return set(os.listdir(folder)) <= set(keep)
    except OSError:
        return False
