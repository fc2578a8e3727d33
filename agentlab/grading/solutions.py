"""Find nbgrader-style solution regions and replace them with ``raise NotImplementedError`` stubs.

A region is the lines from a ``### BEGIN SOLUTION`` comment to a ``### END SOLUTION`` comment,
both on lines of their own. In Python code only real comments count (a string that contains the
marker text is left alone). Each region must sit inside a function whose docstring starts with
``Exercise N.M: <what to implement>``; the stub raises that line.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

_MARKER = re.compile(r"#+\s*(BEGIN|END) SOLUTION\s*")
_MARKER_LINE = re.compile(r"^(\s*)#+\s*(BEGIN|END) SOLUTION\s*$")
_EXERCISE = re.compile(r"Exercise\s+\S+?:\s*\S")
ANSWER_PLACEHOLDER = "YOUR ANSWER HERE"
"""What replaces a solution region in a markdown cell."""


def holds_solutions(exercises: Path) -> bool:
    """True in the instructor edition: some ``exercises/ex*.py`` still has a solution region's marker line."""
    return any(
        _MARKER_LINE.search(line)
        for path in sorted(exercises.glob("ex*.py"))
        for line in path.read_text("utf-8", errors="replace").splitlines()
    )


class SolutionMarkerError(ValueError):
    """Unbalanced or misplaced solution markers; the message starts with ``file:line``."""


def strip_code(source: str, label: str, *, notebook: bool = False) -> tuple[str, list[str]]:
    """Return (source with every region stubbed, the exercise line of each region).

    ``label`` names the file (and cell) in error messages; ``notebook`` masks IPython magics.
    """
    if "SOLUTION" not in source:
        return source, []
    lines = source.splitlines(keepends=True)
    regions = _pair(_code_markers(source), label)
    if not regions:
        return source, []
    masked = _mask_magics(source) if notebook else source
    try:
        tree = ast.parse(masked)
    except SyntaxError as e:
        raise SolutionMarkerError(
            f"{label}:{e.lineno}: cannot parse the file to find the exercise functions: {e.msg}"
        ) from e
    exercises = []
    for start, end, indent in reversed(regions):
        text = _exercise_line(tree, start, label)
        exercises.insert(0, text)
        newline = "\r\n" if lines[start - 1].endswith("\r\n") else "\n"
        stub = f"{indent}raise NotImplementedError({json.dumps(text, ensure_ascii=False)}){newline}"
        lines[start - 1 : end] = [stub]
    result = "".join(lines)
    try:
        ast.parse(_mask_magics(result) if notebook else result)
    except SyntaxError as e:
        raise SolutionMarkerError(
            f"{label}:{e.lineno}: the stubbed code would not be valid Python ({e.msg}); "
            "make each solution region whole statements"
        ) from e
    return result, exercises


def strip_text(source: str, label: str) -> tuple[str, list[str]]:
    """Markdown/raw cell: replace each region by ``ANSWER_PLACEHOLDER``."""
    markers = [(n, m[2], m[1]) for n, line in enumerate(source.splitlines(), 1) if (m := _MARKER_LINE.match(line))]
    regions = _pair(markers, label)
    lines = source.splitlines(keepends=True)
    for start, end, _ in reversed(regions):
        lines[start - 1 : end] = [ANSWER_PLACEHOLDER + "\n"]
    return "".join(lines), ["written answer"] * len(regions)


def _code_markers(source: str) -> list[tuple[int, str, str]]:
    """(line, "BEGIN"/"END", indentation) of each marker comment that stands on its own line."""
    try:
        found = []
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and (m := _MARKER.fullmatch(tok.string)):
                before = tok.line[: tok.start[1]]
                if not before.strip():
                    found.append((tok.start[0], m[1], before))
        return found
    except (tokenize.TokenError, SyntaxError):  # not tokenizable: fall back to plain lines
        return [(n, m[2], m[1]) for n, line in enumerate(source.splitlines(), 1) if (m := _MARKER_LINE.match(line))]


def _pair(markers: list[tuple[int, str, str]], label: str) -> list[tuple[int, int, str]]:
    """Match BEGIN/END markers into (start line, end line, indentation); refuse unbalanced ones."""
    regions, open_at = [], None
    for line, kind, indent in markers:
        if kind == "BEGIN":
            if open_at is not None:
                raise SolutionMarkerError(
                    f"{label}:{open_at[0]}: '### BEGIN SOLUTION' has no '### END SOLUTION' "
                    f"before the next BEGIN at line {line}"
                )
            open_at = (line, indent)
        elif open_at is None:
            raise SolutionMarkerError(f"{label}:{line}: '### END SOLUTION' without a '### BEGIN SOLUTION' before it")
        else:
            regions.append((open_at[0], line, open_at[1]))
            open_at = None
    if open_at is not None:
        raise SolutionMarkerError(f"{label}:{open_at[0]}: '### BEGIN SOLUTION' has no matching '### END SOLUTION'")
    return regions


def _exercise_line(tree: ast.AST, line: int, label: str) -> str:
    """First docstring line of the innermost function around ``line``; must read 'Exercise N.M: ...'."""
    functions = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    if not functions:
        raise SolutionMarkerError(
            f"{label}:{line}: this solution region is not inside a function; put it in a "
            "function whose docstring starts with 'Exercise N.M: <what to implement>'"
        )
    function = max(functions, key=lambda n: n.lineno)
    doc = (ast.get_docstring(function) or "").strip()
    first = doc.splitlines()[0].strip() if doc else ""
    if not _EXERCISE.match(first):
        raise SolutionMarkerError(
            f"{label}:{line}: the docstring of {function.name}() must start with "
            f"'Exercise N.M: <what to implement>' (found {first!r})"
        )
    return first


def _mask_magics(source: str) -> str:
    """Turn IPython magic/shell lines (``%time``, ``!pip``) into comments so ``ast`` can parse a cell."""
    return "".join("#" + ln if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines(keepends=True))
