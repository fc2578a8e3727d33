"""One locked set of versions for every install path: uv.lock, pip's requirements-lock.txt, conda's environment.yml.

`make venv` installs uv.lock (scripts/deps.py); these tests hold the three files in step, the venv the suite
runs in to the lock, and the refusal of a lock older than pyproject.toml. No test here reaches a package index.
"""

import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("deps", ROOT / "scripts" / "deps.py")
deps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(deps)

SDIST_ONLY = {"fontmeta"}
"""Locked packages PyPI has no wheel for: pure Python, built at install (mplfonts needs it)."""
LINUX = {
    "sys_platform": "linux",
    "platform_system": "Linux",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}


def _requirements() -> list[Requirement]:
    lines = re.findall(r"^([A-Za-z0-9][^\\\n]*?)\s*\\?$", deps.REQUIREMENTS.read_text("utf-8"), re.M)
    return [Requirement(line) for line in lines if "==" in line]


def test_the_three_lock_files_agree_with_each_other_and_with_pyproject():
    deps.check()  # raises DepsError naming the file and `make lock`
    assert len(deps.locked_versions()) > 100


def test_the_venv_holds_exactly_the_locked_versions():
    """What `pip freeze` would list, read from this interpreter's own site-packages: uv and pip installs alike."""
    wanted = {
        deps._norm(r.name): next(iter(r.specifier)).version
        for r in _requirements()
        if r.marker is None or r.marker.evaluate()
    }
    found = {deps._norm(d.metadata["Name"]): d.version for d in importlib.metadata.distributions()}
    found.pop("agentlab", None)
    found.pop("pip", None)  # the installer of a pip-made venv, not one of the lab's packages
    differ = sorted(set(wanted.items()) ^ set(found.items()))
    assert not differ, (
        f"{sys.prefix} differs from uv.lock in {differ[:6]}{' ...' if len(differ) > 6 else ''}: "
        "rebuild it with `rm -rf .venv && make venv`"
    )


def test_every_locked_package_installs_from_a_wheel_on_both_ends_of_the_python_range():
    """Python 3.11 and 3.13 on Linux x86_64 (the ends pyproject.toml allows) find a wheel for each package they need."""
    lock = {deps._norm(p["name"]): p for p in tomllib.loads(deps.LOCK.read_text("utf-8"))["package"]}
    for minor in (deps.SUPPORTED[0][1], deps.SUPPORTED[1][1]):
        env = {**LINUX, "python_version": f"3.{minor}", "python_full_version": f"3.{minor}.0"}
        needed = [deps._norm(r.name) for r in _requirements() if r.marker is None or r.marker.evaluate(env)]
        missing = [
            n
            for n in needed
            if n not in SDIST_ONLY
            and not any(_fits(w["url"].rsplit("/", 1)[1], minor) for w in lock[n].get("wheels", []))
        ]
        assert not missing, f"no wheel for Python 3.{minor} on Linux x86_64 in uv.lock: {missing}"


def _fits(wheel: str, minor: int) -> bool:
    """Whether a wheel file name's tags install on CPython 3.``minor``, Linux x86_64."""
    py, abi, platform = wheel[:-4].split("-")[-3:]
    if abi not in ("none", "abi3", f"cp3{minor}"):
        return False
    python_ok = any(
        t in ("py3", "py2.py3") or t == f"cp3{minor}" or (abi == "abi3" and t.startswith("cp3") and int(t[3:]) <= minor)
        for t in py.split(".")
    )
    return python_ok and any(
        p == "any" or (p.startswith(("manylinux", "linux")) and p.endswith("x86_64")) for p in platform.split(".")
    )


def test_the_supported_python_range_is_stated_once_and_the_same_everywhere():
    low, high = deps.SUPPORTED
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["requires-python"] == f">={low[0]}.{low[1]},<{high[0]}.{high[1] + 1}"
    assert f"python={low[0]}.{low[1]}" in deps.ENVIRONMENT.read_text("utf-8")  # Binder builds on the oldest end
    span = f"Python {low[0]}.{low[1]}-{high[0]}.{high[1]}"
    assert span in (ROOT / "README.md").read_text("utf-8"), f"README.md should say the lab needs {span}"
    for name in ("STUDENT_README.md", "STUDENT_README.zh-CN.md"):
        assert span in (ROOT / "agentlab" / "grading" / name).read_text("utf-8"), name


def _copy_project(tmp_path: Path) -> Path:
    for name in ("pyproject.toml", "uv.lock", "requirements-lock.txt", "environment.yml", "Makefile", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "deps.py", tmp_path / "scripts" / "deps.py")
    return tmp_path


def test_a_lock_older_than_pyproject_stops_make_venv_with_one_line_naming_make_relock(tmp_path):
    project = _copy_project(tmp_path)
    toml = project / "pyproject.toml"
    toml.write_text(toml.read_text("utf-8").replace('"tqdm>=4.60",', '"tqdm>=4.60",\n    "rich>=13",'), "utf-8")
    done = subprocess.run(
        ["make", "-s", "venv", f"PYTHON={sys.executable}"], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("make: ") and "Error" not in line]
    assert len(said) == 1 and "run `make relock`" in said[0] and "requirements-lock.txt" in said[0], done.stderr
    assert not (project / ".venv").exists(), "nothing may be installed from a stale lock"


def test_a_hand_edited_pin_is_caught_before_anything_is_installed(tmp_path):
    project = _copy_project(tmp_path)
    env = project / "environment.yml"
    env.write_text(re.sub(r'"anthropic==[^"]+"', '"anthropic==2.0.0"', env.read_text("utf-8")), "utf-8")
    done = subprocess.run(
        [sys.executable, "scripts/deps.py", "check"], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and "environment.yml and uv.lock pin different versions" in done.stderr
    assert "anthropic" in done.stderr and "make relock" in done.stderr


def test_make_venv_says_what_it_installs_before_it_starts_anything(monkeypatch, capsys, tmp_path):
    """The first line (what, how many, about how long) is printed before any process is started."""
    events = []

    def started(*args, **kwargs):
        events.append("process")
        raise RuntimeError("stop here")

    monkeypatch.setattr(deps.subprocess, "run", started)
    monkeypatch.setattr(deps.subprocess, "Popen", started)
    monkeypatch.setattr(deps, "print", lambda *a, **k: events.append(("print", " ".join(map(str, a)))), raising=False)
    with pytest.raises(RuntimeError, match="stop here"):
        deps.install(tmp_path / "venv", sys.executable, "auto")
    assert events[0][0] == "print" and "packages" in events[0][1] and " s with uv" in events[0][1], events


def test_makefile_builds_the_venv_only_through_the_lock():
    make = (ROOT / "Makefile").read_text("utf-8")
    recipe = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", make, re.M)
    assert recipe and "scripts/deps.py install" in recipe.group(1)
    assert "pip install" not in make and "uv pip" not in make, "every install goes through scripts/deps.py"
    for target in ("lab", "test", "grade", "demo", "regen"):
        assert re.search(rf"^{target}: .*\$\(STAMP\)", make, re.M), f"`make {target}` must build the venv first"
    assert re.search(r"^lock:", make, re.M) and re.search(r"^relock:", make, re.M) and "deps.py lock --keep" in make


# repo2docker (Binder, JupyterHub images) reads environment.yml with these rules, from its conda
# build pack: https://github.com/jupyterhub/repo2docker/blob/main/repo2docker/buildpacks/conda/__init__.py
# (PYTHON_REGEX, python_version, _should_preassemble_env) and repo2docker/utils.py (is_local_pip_requirement).
R2D_PYTHON_REGEX = re.compile(r"python\s*=+\s*([\d\.]*)")


def _conda_dependencies():
    deps_, pip = [], None
    lines = deps.ENVIRONMENT.read_text("utf-8").splitlines()
    for i, line in enumerate(lines):
        body = line.split("#", 1)[0].rstrip()
        if re.fullmatch(r"  - pip:", body):
            pip = [ln.strip()[2:].strip().strip('"') for ln in lines[i + 1 :] if ln.startswith("      - ")]
        elif re.fullmatch(r"  - \S.*", body):
            deps_.append(body[4:].strip())
    return deps_, pip


def test_repo2docker_picks_a_python_that_pyproject_accepts():
    """repo2docker matches `python=X.Y` only; `python>=3.11` would silently build on its default 3.10."""
    conda, _ = _conda_dependencies()
    found = next((m.group(1) for d in conda if (m := R2D_PYTHON_REGEX.match(d))), None)
    assert found == f"{deps.SUPPORTED[0][0]}.{deps.SUPPORTED[0][1]}", conda


def test_environment_yml_has_the_pip_section_repo2docker_installs():
    """pip is a conda dependency, the pins are exact, and the list ends with the repo itself (`-e .`),
    which makes repo2docker copy the repository before it builds the environment."""
    conda, pip = _conda_dependencies()
    assert "pip" in conda, f"environment.yml: add `- pip` to dependencies (found {conda})"
    assert pip and pip[-1] == "-e .", pip[-3:]
    assert all("==" in p for p in pip[:-1]), [p for p in pip[:-1] if "==" not in p]
    assert not [p for p in pip if p.startswith(("-r", "-c", "--"))], "no -r/-c/--hash: conda passes the list to pip"
    for line in pip[:-1]:
        Requirement(line)  # each is a valid requirement, markers included


def test_make_grade_with_lab_python_uses_that_environment_and_makes_no_venv(tmp_path):
    """A JupyterHub's shared, read-only environment: `make grade` runs it as it is (README, JupyterHub step 6)."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "test_one.py").write_text("def test_one():\n    assert True\n")
    done = subprocess.run(
        ["make", "grade", f"LAB_PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert not (tmp_path / ".venv").exists() and "deps.py" not in done.stdout
