"""The lab's one locked set of versions: install it into .venv, check it, move it forward.

    python3 scripts/deps.py install [--venv .venv] [--python python3] [--installer auto|uv|pip]
    python3 scripts/deps.py check      # exit 1, with the command that fixes it, when the lock files disagree
    python3 scripts/deps.py lock       # `make lock`: newest versions the ranges allow, and every file made from them

``uv.lock`` (written by uv, https://docs.astral.sh/uv/concepts/projects/sync/) is the lock. Two files are
made from it by ``lock`` and never edited by hand: ``requirements-lock.txt`` (``uv export``: every package
pinned with its hashes, for pip when uv cannot be had) and ``environment.yml`` (the same pins for conda and
Binder, without hashes: pip refuses hashes beside the ``-e .`` that Binder needs). Both carry a fingerprint of
what ``pyproject.toml`` asks for, so a lock older than ``pyproject.toml`` is refused with one line, never
quietly resolved again. uv itself is pinned too (:data:`UV`) and installed from PyPI into ``build/uv/`` when
the ``uv`` on ``PATH`` is another version.

Runs on any Python 3 (it must explain an old one), and imports only the standard library.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "uv.lock"
REQUIREMENTS = ROOT / "requirements-lock.txt"
ENVIRONMENT = ROOT / "environment.yml"
UV = "0.13.9"
"""The uv release every machine uses (pip installs it into build/uv/ when PATH has another)."""
UV_BOOT = ROOT / "build" / "uv"
SUPPORTED = ((3, 11), (3, 13))
"""The oldest and newest Python (major, minor) the lock is made and tested for; pyproject.toml says the same."""
BINDER_PYTHON = "3.11"
"""The Python environment.yml asks conda for (repo2docker reads only the form python=X.Y)."""
FIX_LOCK = (
    "run `make relock` to update the lock files (it keeps every version it can; `make lock` moves all to the newest)"
)


class DepsError(Exception):
    """A problem the user can fix; its text is one line naming what and how."""


def fingerprint() -> str:
    """What pyproject.toml asks for that the lock depends on: the dependency lists, Python range and [tool.uv]."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    asked = {
        "python": data["project"]["requires-python"],
        "dependencies": data["project"]["dependencies"],
        "optional": data["project"].get("optional-dependencies", {}),
        "uv": data.get("tool", {}).get("uv", {}),
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()[:16]


def locked_versions() -> dict[str, str]:
    """Every package uv.lock pins (the project itself left out): normalised name -> version."""
    import tomllib

    packages = tomllib.loads(LOCK.read_text("utf-8"))["package"]
    return {_norm(p["name"]): p["version"] for p in packages if "editable" not in p["source"]}


def pins(text: str) -> dict[str, str]:
    """``name==version`` lines of a requirements file or environment.yml: normalised name -> version."""
    return {
        _norm(m[0]): m[1] for m in re.findall(r'^\s*(?:- )?"?([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;"\\]+)', text, re.M)
    }


def stamp_of(text: str) -> str | None:
    found = re.search(r"^#.*pyproject fingerprint: (\w+)", text, re.M)
    return found.group(1) if found else None


def check() -> None:
    """Raise :class:`DepsError` unless uv.lock, requirements-lock.txt and environment.yml agree with pyproject.toml."""
    for path in (LOCK, REQUIREMENTS, ENVIRONMENT):
        if not path.exists():
            raise DepsError(f"{path.name} is missing: {FIX_LOCK}")
    want = fingerprint()
    versions = locked_versions()
    for path in (REQUIREMENTS, ENVIRONMENT):
        text = path.read_text("utf-8")
        if stamp_of(text) != want:
            raise DepsError(
                f"{path.name} was made for another pyproject.toml (fingerprint {stamp_of(text)}, "
                f"pyproject.toml now {want}): {FIX_LOCK}"
            )
        if pins(text) != versions:
            differ = sorted(set(pins(text).items()) ^ set(versions.items()))[:4]
            raise DepsError(f"{path.name} and uv.lock pin different versions (e.g. {differ}): {FIX_LOCK}")


def supported(version: tuple[int, int]) -> bool:
    return SUPPORTED[0] <= version <= SUPPORTED[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _python_version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, timeout=60
        )
        return tuple(int(x) for x in out.stdout.split()) if out.returncode == 0 else None  # type: ignore[return-value]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def pick_python(asked: str) -> str:
    """``asked`` if it is a supported Python, else the first python3.X on PATH that is; DepsError if none."""
    span = f"{SUPPORTED[0][0]}.{SUPPORTED[0][1]}-{SUPPORTED[1][0]}.{SUPPORTED[1][1]}"
    found = _python_version(asked)
    if found and supported(found):
        return shutil.which(asked) or asked
    for minor in range(SUPPORTED[1][1], SUPPORTED[0][1] - 1, -1):
        other = shutil.which(f"python3.{minor}")
        if other and _python_version(other) == (3, minor):
            print(
                f"make: {asked} is Python {'.'.join(map(str, found)) if found else '(not found)'}; "
                f"using {other} (the lab supports {span})",
                flush=True,
            )
            return other
    have = ".".join(map(str, found)) if found else "not found"
    raise DepsError(
        f"PYTHON={asked} is Python {have}, and no python3.X on PATH is {span}: install one "
        f"(e.g. `uv python install 3.13`) and run `make PYTHON=python3.13 lab`"
    )


def find_uv() -> str | None:
    """The pinned uv: the one on PATH if it is that release, else installed with pip into build/uv/."""
    for candidate in (shutil.which("uv"), str(UV_BOOT / "bin" / "uv")):
        if candidate and os.path.exists(candidate) and _uv_version(candidate) == UV:
            return candidate
    print(f"make: installing uv {UV} from PyPI into build/uv/ (a few seconds)", flush=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--upgrade",
            "--target",
            str(UV_BOOT),
            f"uv=={UV}",
        ],
        capture_output=True,
        text=True,
    )
    uv = UV_BOOT / "bin" / "uv"
    if done.returncode == 0 and uv.exists():
        return str(uv)
    print(
        f"make: could not install uv {UV} ({(done.stderr.strip().splitlines() or ['no error text'])[-1]})", flush=True
    )
    return None


def _uv_version(uv: str) -> str | None:
    try:
        out = subprocess.run([uv, "--version"], capture_output=True, text=True, timeout=30).stdout.split()
        return out[1] if len(out) > 1 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _stream(cmd: list[str], env: dict | None = None, show=lambda line: line) -> int:
    """Run ``cmd``, printing what ``show`` makes of each line of its output as it comes (None: nothing); its exit code."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    assert proc.stdout is not None
    for line in proc.stdout:
        shown = show(line.rstrip())
        if shown:
            print("  " + shown, flush=True)
    return proc.wait()


def install_uv(uv: str, python: str, venv: Path) -> bool:
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(venv)}
    cmd = [uv, "sync", "--locked", "--extra", "dev", "--compile-bytecode", "--python", python]
    return (
        _stream(cmd, env, lambda line: None if line.lstrip().startswith(("+ ", "- ", "~ ", "Download")) else line) == 0
    )


def install_pip(python: str, venv: Path) -> bool:
    """The same versions with pip: a fresh venv, every package from requirements-lock.txt by hash, then the lab."""
    count = [0]

    def collecting(line: str) -> str | None:
        if line.startswith(("Collecting ", "Processing ")):
            count[0] += 1
            return f"{count[0]} packages fetched ({line.split()[1].rsplit('/', 1)[-1]})" if count[0] % 20 == 0 else None
        if line.startswith("Successfully installed"):
            return f"installed {len(line.split()) - 2} packages"
        return line if line.lower().startswith("error") else None

    steps = [
        [python, "-m", "venv", "--clear", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--progress-bar",
            "off",
            "--require-hashes",
            "--no-deps",
            "-r",
            str(REQUIREMENTS),
        ],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            str(ROOT),
        ],
    ]
    for cmd in steps:
        if _stream(cmd, show=collecting) != 0:
            return False
    return True


def install(venv: Path, asked_python: str, installer: str) -> None:
    start = time.monotonic()
    check()
    count = len(locked_versions())
    print(
        f"make: setting up {venv.name}/ from uv.lock: {count} packages, once (again only when the lock changes); "
        "about 15-60 s with uv, 1-5 min with pip",
        flush=True,
    )
    python = pick_python(asked_python)
    uv = find_uv() if installer in ("auto", "uv") else None
    if uv and install_uv(uv, python, venv):
        how = f"uv {UV}"
    elif installer == "uv":
        raise DepsError("uv sync failed (its message is above)")
    else:
        print(
            f"make: {'uv sync failed (above); ' if uv else ''}installing with pip from requirements-lock.txt "
            "(the same versions, checked by hash; a few minutes)",
            flush=True,
        )
        if not install_pip(python, venv):
            raise DepsError("pip could not install requirements-lock.txt (its message is above)")
        how = "pip"
    (venv / ".installed").write_text(f"{how}\n")
    print(f"make: {venv.name}/ ready in {time.monotonic() - start:.0f} s ({count} packages with {how})", flush=True)


ENV_HEAD = """\
# Conda / Binder environment, made from uv.lock by `make lock` (scripts/deps.py): do not edit by hand.
# The same versions as every other install path; pyproject fingerprint: {stamp}
name: agentlab
channels:
  - conda-forge
dependencies:
  - python={python}  # repo2docker reads only "python=X.Y" (anything else gets its default, 3.10)
  - pip
  - pip:
"""


def environment_yml(requirements: str) -> str:
    """environment.yml's text: every pin of ``requirements`` (markers kept, hashes dropped), then ``-e .``."""
    lines = [m.strip() for m in re.findall(r"^([A-Za-z0-9][^\\\n]*?)\s*\\?$", requirements, re.M) if "==" in m]
    body = "".join(f'      - "{line}"\n' for line in lines)
    return ENV_HEAD.format(stamp=fingerprint(), python=BINDER_PYTHON) + body + "      - -e .\n"


def lock(upgrade: bool = True) -> None:
    uv = find_uv()
    if uv is None:
        raise DepsError(f"`make lock` needs uv {UV}, and it could not be installed")
    subprocess.run([uv, "lock", *(["--upgrade"] if upgrade else [])], cwd=ROOT, check=True)
    exported = subprocess.run(
        [
            uv,
            "export",
            "--quiet",
            "--locked",
            "--format",
            "requirements-txt",
            "--extra",
            "dev",
            "--no-emit-project",
            "--no-header",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    head = (
        "# pip's copy of uv.lock, made by `make lock` (scripts/deps.py): do not edit by hand.\n"
        f"# Used when uv cannot be had; every package pinned with its hashes. pyproject fingerprint: {fingerprint()}\n"
    )
    REQUIREMENTS.write_text(head + exported, "utf-8")
    ENVIRONMENT.write_text(environment_yml(exported), "utf-8")
    check()
    print(f"make: uv.lock, {REQUIREMENTS.name} and {ENVIRONMENT.name} pin {len(locked_versions())} packages")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install")
    inst.add_argument("--venv", default=".venv")
    inst.add_argument("--python", default="python3")
    inst.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    sub.add_parser("check")
    relock = sub.add_parser("lock")
    relock.add_argument("--keep", action="store_true", help="re-export only: keep every locked version")
    args = parser.parse_args(argv)
    if sys.version_info < (3, 11):
        print(
            f"make: this is Python {sys.version.split()[0]}; the lab needs 3.11-3.13: "
            "run `make PYTHON=python3.13 lab` (or 3.11, 3.12)",
            file=sys.stderr,
        )
        return 1
    try:
        if args.command == "install":
            install(ROOT / args.venv, args.python, args.installer)
        elif args.command == "check":
            check()
        else:
            lock(upgrade=not args.keep)
    except DepsError as e:
        print(f"make: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
