"""Every graded exercise speaks both editions' language: its docstring in English, then the same in Chinese."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

EXERCISES = sorted((Path(__file__).resolve().parents[1] / "exercises").glob("ex*_*.py"))


def _graded() -> list[tuple[str, str]]:
    found = []
    for path in EXERCISES:
        for node in ast.parse(path.read_text("utf-8")).body:
            doc = ast.get_docstring(node) if isinstance(node, ast.FunctionDef) else None
            if doc and doc.startswith("Exercise "):
                found.append((f"{path.name}::{node.name}", doc))
    return found


GRADED = _graded()


def test_there_is_a_docstring_for_every_graded_exercise():
    ids = {re.match(r"Exercise (\d+\.\d+):", doc)[1] for _, doc in GRADED}
    assert len(GRADED) == len(ids) >= 29, sorted(ids)


@pytest.mark.parametrize("where,doc", GRADED, ids=[w for w, _ in GRADED])
def test_each_exercise_docstring_gives_its_text_in_english_then_in_chinese(where, doc):
    number = re.match(r"Exercise (\d+\.\d+):", doc)[1]
    english, sep, chinese = doc.partition(f"\n\n练习 {number}：")
    assert sep, f"{where}: after the English, a paragraph starting '练习 {number}：' gives the same in Chinese"
    assert not re.search(r"[\u4e00-\u9fff]", english), f"{where}: Chinese before the Chinese paragraph"
    names = set(re.findall(r"`([^`]+)`", english))
    assert names <= set(re.findall(r"`([^`]+)`", chinese)), (
        f"{where}: the Chinese leaves out {names - set(re.findall(r'`([^`]+)`', chinese))}"
    )
