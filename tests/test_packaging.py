"""Packaging metadata: every directly imported dependency declared; the current license form."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_license_uses_the_spdx_string_form_with_a_setuptools_that_reads_it():
    # The `license = {text = ...}` table makes setuptools >= 77 print deprecation warnings on every build.
    assert PROJECT["project"]["license"] == "MIT"
    (setuptools,) = [r for r in PROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert int(re.search(r">=(\d+)", setuptools).group(1)) >= 77


def test_every_third_party_module_the_package_imports_is_declared():
    declared = {
        re.split(r"[<>=!~\[ ]", d, maxsplit=1)[0].lower().replace("-", "_") for d in PROJECT["project"]["dependencies"]
    }
    imported = set()
    for path in (ROOT / "agentlab").rglob("*.py"):
        imported |= set(
            re.findall(
                r"^\s*(?:import|from)\s+(httpx2|anthropic|jsonschema|genai_prices|pandas|matplotlib|uvicorn|h11)\b",
                path.read_text("utf-8"),
                re.M,
            )
        )
    assert imported <= declared, f"imported but not declared in pyproject.toml: {imported - declared}"
