"""Measure the package's layout: modules, import arrows between them, and import cycles.

    .venv/bin/python scripts/import_graph.py            # counts, cycles, sim/'s outside imports
    .venv/bin/python scripts/import_graph.py --arrows   # every arrow, one per line

Reads the source with ``ast`` (nothing is imported), so it works on any checkout. An arrow is one
module naming another in an ``import`` statement anywhere in its body (inside functions too, since a
deferred import is still a dependency, and so is one under ``if TYPE_CHECKING:``: a cycle of type
hints is still two modules that cannot be read apart). ``from . import x``
points at the submodule ``x`` when there is one, otherwise at the package's ``__init__``. A cycle is
a strongly connected component of more than one module (Tarjan's algorithm). tests/test_layout.py
asserts on the same functions.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "agentlab"


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _import_nodes(tree: ast.AST):
    return (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest known module that ``name`` is or lies inside."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def arrows(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package modules it imports (itself excluded)."""
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        is_pkg = path.name == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}" if base else alias.name
                    targets.append(full if full in known else base)
            for target in targets:
                hit = _resolve(target, known)
                if hit and hit != name:
                    graph[name].add(hit)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def outside_imports(graph: dict[str, set[str]], folder: str) -> dict[str, set[str]]:
    """For each module under ``agentlab.<folder>``, the package modules outside it that it imports."""
    prefix = f"{PACKAGE}.{folder}"
    inside = lambda m: m == prefix or m.startswith(prefix + ".")  # noqa: E731
    return {
        m: {t for t in ts if not inside(t)} for m, ts in graph.items() if inside(m) and any(not inside(t) for t in ts)
    }


def top_level(known: dict[str, Path]) -> list[str]:
    """Modules directly in ``agentlab/`` (not packages, not ``__init__``/``__main__``)."""
    return sorted(m for m, p in known.items() if m.count(".") == 1 and p.name not in ("__init__.py", "__main__.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arrows", action="store_true", help="print every arrow")
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout (default: this one)")
    args = parser.parse_args(argv)
    known, graph = modules(args.root), arrows(args.root)
    if args.arrows:
        for source in sorted(graph):
            for target in sorted(graph[source]):
                print(f"{source} -> {target}")
        return 0
    found = cycles(graph)
    print(f"modules: {len(known)} ({len(top_level(known))} top-level)")
    print(f"import arrows: {sum(len(t) for t in graph.values())}")
    print(f"import cycles: {len(found)}")
    for component in found:
        print("  " + " <-> ".join(m.removeprefix(PACKAGE + ".") for m in component))
    leaks = outside_imports(graph, "sim")
    print(f"sim/ modules importing outside sim/: {len(leaks)}")
    for module, targets in sorted(leaks.items()):
        print(f"  {module} -> {', '.join(sorted(targets))}")
    print("top-level modules: " + " ".join(m.removeprefix(PACKAGE + ".") for m in top_level(known)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
