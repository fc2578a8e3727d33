"""environment.yml (conda/Binder) installs the same dependencies as pyproject.toml."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _names(specs):
    return {re.split(r"[<>=!~\[ ]", s.strip(), maxsplit=1)[0].lower() for s in specs}


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(project["dependencies"] + project["optional-dependencies"]["dev"])
    text = (ROOT / "environment.yml").read_text().split("- pip:", 1)[1]
    pip_lines = [l.strip()[2:] for l in text.splitlines() if l.strip().startswith("- ")]
    listed = _names(l for l in pip_lines if not l.startswith("-e"))
    assert listed == wanted, f"only in environment.yml: {listed - wanted}; only in pyproject.toml: {wanted - listed}"
    assert any(l.startswith("-e .") for l in pip_lines), "environment.yml must install the package with -e ."


def test_pins_agree_between_the_two_files():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = {s.replace(" ", "") for s in project["dependencies"] + project["optional-dependencies"]["dev"]}
    text = (ROOT / "environment.yml").read_text().replace(" ", "")
    missing = [s for s in specs if f"-{s}\n" not in text]
    assert not missing, f"environment.yml lacks these exact specs from pyproject.toml: {missing}"


# repo2docker (Binder, JupyterHub images) reads environment.yml with these rules, from its conda
# build pack: https://github.com/jupyterhub/repo2docker/blob/main/repo2docker/buildpacks/conda/__init__.py
# (PYTHON_REGEX, python_version, _should_preassemble_env) and repo2docker/utils.py (is_local_pip_requirement).
R2D_PYTHON_REGEX = re.compile(r"python\s*=+\s*([\d\.]*)")
R2D_DEFAULT_PYTHON = "3.10"


def _conda_dependencies():
    deps, pip = [], None
    lines = (ROOT / "environment.yml").read_text().splitlines()
    for i, line in enumerate(lines):
        body = line.split("#", 1)[0].rstrip()
        if re.fullmatch(r"  - pip:", body):
            pip = [l.split("#", 1)[0].strip()[2:].strip() for l in lines[i + 1:] if l.startswith("      - ")]
        elif re.fullmatch(r"  - \S.*", body):
            deps.append(body[4:].strip())
    return deps, pip


def test_repo2docker_picks_a_python_that_pyproject_accepts():
    """repo2docker matches `python=X.Y` only; `python>=3.11` would silently build on its default 3.10."""
    deps, _ = _conda_dependencies()
    found = next((m.group(1) for d in deps if (m := R2D_PYTHON_REGEX.match(d))), None)
    picked = ".".join(found.split(".")[:2]) if found else R2D_DEFAULT_PYTHON
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    low = tuple(int(x) for x in re.match(r">=\s*([\d.]+)", wanted).group(1).split("."))
    assert tuple(int(x) for x in picked.split(".")) >= low, (
        f"repo2docker would build on Python {picked} (from {deps}), but pyproject.toml requires {wanted}; "
        "write the conda dependency as python=X.Y")


def test_environment_yml_has_the_pip_section_repo2docker_installs():
    """pip is a conda dependency and the pip list installs the repo itself (`-e .`), which makes
    repo2docker copy the repository before it builds the environment."""
    deps, pip = _conda_dependencies()
    assert "pip" in deps, f"environment.yml: add `- pip` to dependencies (found {deps})"
    assert pip, "environment.yml: no `- pip:` list of packages"
    assert "-e ." in pip, f"environment.yml: the pip list must contain `-e .` (found {pip})"
    assert not [p for p in pip if p.startswith(("-r", "-c", "--requirement", "--constraint"))], \
        "environment.yml: no -r/-c references; list the packages (a test compares them with pyproject.toml)"
