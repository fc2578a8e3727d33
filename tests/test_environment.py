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
