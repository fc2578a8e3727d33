"""What the graded tests in exercises/tests hand a student's code.

A module-level table (a list or dict bound at the top of a test module) goes to the student's function
as a copy (``dict(PRICES)``), never itself: the student's code may change what it is given in place,
and a test that then works out its expected answer from the same table would expect what the student
made of it. (12.3 did: prices set to 0 in place made its own expected cost 0.) Checked on the source,
for every call of a function of the student's module (``exNN.name(...)`` on a ``lazy_import``).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "exercises" / "tests"
TABLES = (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set)


def handed_tables(source: str) -> list[str]:
    """``line: module.function(... NAME ...)`` for each module-level table passed bare to a student's function."""
    tree = ast.parse(source)
    top = [n for n in tree.body if isinstance(n, ast.Assign)]
    lazy = {
        t.id
        for n in top
        if isinstance(n.value, ast.Call) and getattr(n.value.func, "id", "") == "lazy_import"
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    tables = {t.id for n in top if isinstance(n.value, TABLES) for t in n.targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name) and called.value.id in lazy:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Name) and arg.id in tables:
                    found.append(f"{arg.lineno}: {called.value.id}.{called.attr}(... {arg.id} ...)")
    return found


def test_no_graded_test_hands_a_students_function_a_module_level_table_itself():
    found = {p.name: handed_tables(p.read_text("utf-8")) for p in sorted(TESTS.glob("test_ex*.py"))}
    assert {name: calls for name, calls in found.items() if calls} == {}, "pass a copy: dict(TABLE), list(TABLE)"


def test_the_check_finds_a_table_handed_over_and_passes_its_copy():
    source = (
        "from agentlab.grading import lazy_import\n"
        "ex09 = lazy_import('exercises.ex09_x')\n"
        "PRICES = {'input': 1.0}\n"
        "def test_a():\n"
        "    ex09.metered(None, PRICES, [])\n"
        "    ex09.metered(None, dict(PRICES), [])\n"
        "    ex09.run(prices=PRICES)\n"
    )
    assert handed_tables(source) == ["5: ex09.metered(... PRICES ...)", "7: ex09.run(... PRICES ...)"]
