"""The package keeps its layout: one home per course topic, no import cycles, ``sim/`` on its own.

The graph is read from the source by ``scripts/import_graph.py`` (run it to see the counts these tests
hold to), so these tests import nothing of the package itself.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agentlab"


def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


graph = _graph_module()


def test_the_package_has_no_import_cycles():
    found = graph.cycles(graph.arrows(ROOT))
    assert not found, (
        "import cycles (each line: modules that import each other, directly or round a loop): "
        + "; ".join(" <-> ".join(c) for c in found)
        + ". Move the shared part into a module both can import, or pass it in as an argument"
    )


def test_sim_imports_nothing_but_sim_and_api():
    leaks = {
        m: {t for t in ts if not t.startswith("agentlab.api")}
        for m, ts in graph.outside_imports(graph.arrows(ROOT), "sim").items()
    }
    leaks = {m: ts for m, ts in leaks.items() if ts}
    assert not leaks, (
        "sim/ is the Messages API and must not know the harness, but "
        + "; ".join(f"{m} imports {', '.join(sorted(t))}" for m, t in sorted(leaks.items()))
        + ". Put what both sides need in api/ (model profiles, the token estimator, wire names) and import it from there"
    )


def test_api_imports_nothing_outside_api():
    leaks = graph.outside_imports(graph.arrows(ROOT), "api")
    assert not leaks, "api/ is what the harness and the simulator share, and imports neither: " + "; ".join(
        f"{m} imports {', '.join(sorted(t))}" for m, t in sorted(leaks.items())
    )


HARNESS_PLUGS = {"agentlab.client", "agentlab.cli", "agentlab"}
"""The modules of the harness allowed to name the simulator: connect() plugs it in, the CLI serves it, the
public API lists its policies."""


def _harness(module: str) -> bool:
    """A top-level module (not a package), or one of meter/ and live/, other than the plug points."""
    if module in HARNESS_PLUGS:
        return False
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return module.startswith(("agentlab.meter", "agentlab.live")) or (
        module.count(".") == 1 and module.split(".")[1] not in packages
    )


def test_the_harness_imports_nothing_from_the_simulator():
    arrows = graph.arrows(ROOT)
    leaks = {m: sorted(t for t in ts if t.startswith("agentlab.sim")) for m, ts in arrows.items() if _harness(m)}
    leaks = {m: ts for m, ts in leaks.items() if ts}
    assert not leaks, (
        "the harness (top-level modules, meter/, live/) knows nothing of the simulator, which connect() plugs in; but "
        + "; ".join(f"{m} imports {', '.join(t)}" for m, t in leaks.items())
        + ". Move what both need into api/"
    )
    assert _harness("agentlab.loop") and _harness("agentlab.meter.prices") and not _harness("agentlab.client")


def test_the_top_level_is_the_harness_in_at_most_16_modules():
    top = graph.top_level(graph.modules(ROOT))
    assert len(top) <= 16, (
        f"agentlab/ has {len(top)} top-level modules, the limit is 16: {top}. "
        "A module that is not the harness itself belongs in meter/, views/, experiments/ or sim/"
    )


def _map_rows() -> list[tuple[str, list[str]]]:
    """(topic, homes) for each row of the topic table in agentlab/README.md."""
    rows = []
    for line in (PACKAGE / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("course topic", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append((cells[0], re.findall(r"`([\w./]+(?:\.py|/))`", cells[1])))
    return rows


def test_every_home_in_the_package_map_exists():
    rows = _map_rows()
    assert len(rows) >= 15, f"agentlab/README.md maps only {len(rows)} topics; its table lost rows"
    missing = [(topic, home) for topic, homes in rows for home in homes if not (PACKAGE / home).exists()]
    assert not missing, f"agentlab/README.md names homes that do not exist: {missing}; fix the map or the tree"
    homeless = [topic for topic, homes in rows if not homes]
    assert not homeless, f"topics with no file or folder in agentlab/README.md: {homeless}"


def test_every_top_level_module_and_folder_is_in_the_package_map():
    named = {home.rstrip("/") for _, homes in _map_rows() for home in homes}
    named |= {home.split("/")[0] for home in named}
    tree = {p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    tree |= {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    unmapped = sorted(tree - named)
    assert not unmapped, (
        f"{unmapped} are in agentlab/ but in no row of agentlab/README.md: give each its "
        "course topic there, so a newcomer finds it"
    )


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
    for module, path in graph.modules(ROOT).items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            home = _imported_from(module, path, node)
            if home != "agentlab" and not home.startswith("agentlab."):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((module, alias.name, home))
    return found


def test_layout_no_private_name_is_imported_across_modules():
    """A name starting with ``_`` is private to its module: no other agentlab module imports it."""
    problems = [
        f"{importer} imports {name} from {home}: make it public in {home} (rename it without the "
        f"leading underscore, with a docstring) or move it to {importer}"
        for importer, name, home in private_imports()
    ]
    assert problems == [], "\n".join(problems)


def test_layout_private_import_check_sees_relative_and_absolute_imports(tmp_path):
    """The check resolves ``from .x import _y`` as well as ``from agentlab.x import _y``."""
    pkg = tmp_path / "agentlab" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import _hidden\n")
    mod = pkg / "b.py"
    tree = ast.parse("from ..sub.a import _x\nfrom agentlab.sub.a import _y, ok\nfrom os import _exit\n")
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert [_imported_from("agentlab.sub.b", mod, n) for n in imports] == ["agentlab.sub.a", "agentlab.sub.a", "os"]
    init = ast.parse((pkg / "__init__.py").read_text()).body[0]
    assert _imported_from("agentlab.sub", pkg / "__init__.py", init) == "agentlab.sub.a"
