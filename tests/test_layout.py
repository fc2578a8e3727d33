"""The package's layout rules, checked on the source with ``ast`` (nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "agentlab"


def _package_modules() -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of ``agentlab/``."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative imports resolved against ``module``)."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def private_imports() -> list[tuple[str, str, str]]:
    """``(importer, name, home module)`` for each ``from agentlab.x import _y`` inside the package."""
    found = []
    for module, path in _package_modules().items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            home = _imported_from(module, path, node)
            if home != PACKAGE and not home.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((module, alias.name, home))
    return found


def test_layout_no_private_name_is_imported_across_modules():
    """A name starting with ``_`` is private to its module: no other agentlab module imports it."""
    problems = [f"{importer} imports {name} from {home}: make it public in {home} (rename it without the "
                f"leading underscore, with a docstring) or move it to {importer}"
                for importer, name, home in private_imports()]
    assert problems == [], "\n".join(problems)


def test_layout_private_import_check_sees_relative_and_absolute_imports(tmp_path):
    """The check resolves ``from .x import _y`` as well as ``from agentlab.x import _y``."""
    pkg = tmp_path / PACKAGE / "sub"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import _hidden\n")
    mod = pkg / "b.py"
    tree = ast.parse("from ..sub.a import _x\nfrom agentlab.sub.a import _y, ok\nfrom os import _exit\n")
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert [_imported_from("agentlab.sub.b", mod, n) for n in imports] == ["agentlab.sub.a", "agentlab.sub.a", "os"]
    init = ast.parse((pkg / "__init__.py").read_text()).body[0]
    assert _imported_from("agentlab.sub", pkg / "__init__.py", init) == "agentlab.sub.a"
