"""A zh-CN student reads the exercise tests' messages in Chinese, with the values of their own run."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest

from agentlab.grading import feedback
from agentlab.grading.report import GradedTest, GradeReport
from agentlab.grading.student_view import render

TESTS = Path(__file__).resolve().parents[2] / "exercises" / "tests"


def _template(node: ast.AST, inside: bool = False) -> str | None:
    """A message as its test writes it, each computed value as ``{}``: None for a message that holds no text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        return "".join(_template(v, True) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left, True), _template(node.right, True)
        return None if left is None and right is None else (left or "{}") + (right or "{}")
    return "{}" if inside else None


def _messages() -> dict[str, str]:
    """Every assert message and ``pytest.fail`` text of exercises/tests, as templates, with where each is."""
    found = {}
    for path in sorted(TESTS.glob("test_ex*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Assert) and node.msg is not None:
                text = _template(node.msg)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.fail" and node.args:
                text = _template(node.args[0])
            else:
                continue
            if text is not None:
                found.setdefault(text, f"{path.name}:{node.lineno}")
    return found


def _fields(template: str) -> list[int]:
    auto, out = 0, []
    for _, field, _, _ in string.Formatter().parse(template):
        if field is not None:
            out.append(int(field) if field else auto)
            auto += not field
    return sorted(out)


TABLE = json.loads(feedback.TABLE.read_text("utf-8"))["messages"]


def test_every_message_of_the_exercise_tests_has_its_chinese_and_no_entry_is_stale():
    messages = _messages()
    assert len(messages) > 150
    missing = {m: at for m, at in messages.items() if m not in TABLE}
    assert not missing, f"add these to {feedback.TABLE.name} (English template -> Chinese): {missing}"
    assert not set(TABLE) - set(messages), f"entries no test writes any more: {set(TABLE) - set(messages)}"


@pytest.mark.parametrize("english", sorted(TABLE))
def test_each_chinese_message_carries_every_value_of_its_english_one(english):
    chinese = TABLE[english]
    assert _fields(chinese) == _fields(english), (english, chinese)
    chinese.format(*(f"<{i}>" for i in range(len(_fields(english)))))  # numbering is all {} or all {n}


def test_a_failing_message_reads_in_chinese_with_the_values_of_the_run(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    got = feedback.in_language("the reply should come from the billing prompt, got {'reply': 'x'}\nassert False")
    assert got == "回复应当来自 billing 的提示，得到的是 {'reply': 'x'}\nassert False"
    reordered = feedback.in_language("stopped with max_turns after 3 calls")  # Chinese names the values in its order
    assert reordered == "在 3 次调用后以 max_turns 停下"
    longer_first = feedback.in_language(
        "3 rounds: 3 drafts, 3 evaluations; got 2 (reread '5. Evaluator-optimizer' in notebook 04b)"
    )
    assert longer_first == "3 轮：3 份草稿、3 次评估；得到的是 2（重读第 04b 本的“5. 评估者-优化者”）"  # not "got {}"


def test_an_english_student_and_a_message_without_an_entry_read_it_unchanged(monkeypatch):
    message = "expected the billing branch, got {}"
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert feedback.in_language(message) == message
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert feedback.in_language("a message no test writes") == "a message no test writes"


def test_make_grades_own_lines_are_chinese_for_a_zh_cn_student(monkeypatch):
    def test(name, exercise, outcome, reason=""):
        nodeid = f"exercises/tests/test_ex04_patterns.py::{name}"
        return GradedTest(nodeid=nodeid, name=name, exercise=exercise, points=2, outcome=outcome, reason=reason)

    stub = "NotImplementedError: Exercise 4.2: bound the loop."
    report = GradeReport(
        tests=[
            test("test_a", "4.1", "failed", "应当走 billing 分支，得到的是 {}"),
            test("test_b", "4.2", "failed", stub),
        ]
    )
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    lines = render(report)
    assert lines[0] == "先修这个问题：练习 4.1，test_a" and lines[-1] == "总分：0/4 分"
    assert any(ln.endswith("还没开始：练习 4.2，在 exercises/ex04_patterns.py，第 04b 本笔记本") for ln in lines), lines
    assert any(ln.endswith("1 个测试中有 1 个失败：") for ln in lines), lines
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert render(report)[-1] == "Total: 0/4 points"


NOTEBOOKS = TESTS.parents[1] / "notebooks"


def _headings(notebook: str, folder: str = "") -> set[str]:
    """The section headings (## and ###) of a notebook, by its number (``"04b"``), in one edition."""
    (path,) = (NOTEBOOKS / folder).glob(f"{notebook}_*.ipynb")
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return {
        line.lstrip("#").strip()
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith(("## ", "### "))
    }


def test_every_section_a_message_sends_the_student_back_to_exists_in_both_editions():
    pointers = 0
    for english, chinese in TABLE.items():
        for quoted, notebook in re.findall(r"reread ((?:'[^']+'(?: and )?)+) in notebook (\w+)", english):
            for heading in re.findall(r"'([^']+)'", quoted):
                assert heading in _headings(notebook), f"{english!r}: notebook {notebook} has no section {heading!r}"
                pointers += 1
            (zh_quoted,) = re.findall(rf"重读第 {notebook} 本的((?:“[^”]+”和?)+)", chinese) or [""]
            zh_headings = re.findall(r"“([^”]+)”", zh_quoted)
            assert len(zh_headings) == len(re.findall(r"'([^']+)'", quoted)), (english, chinese)
            for heading in zh_headings:
                assert heading in _headings(notebook, "zh-CN"), (
                    f"{chinese!r}: zh-CN {notebook} has no section {heading!r}"
                )
    assert pointers >= 30


def test_every_graded_exercise_has_a_message_that_names_the_section_to_reread():
    """A test's own messages count, and those of the helpers in its file that it calls."""
    named = set()
    for path in sorted(TESTS.glob("test_ex*.py")):
        functions = {f.name: f for f in ast.walk(ast.parse(path.read_text("utf-8"))) if isinstance(f, ast.FunctionDef)}

        def says_where(fn: ast.FunctionDef, seen: set[str]) -> bool:
            texts = [_template(n.msg) or "" for n in ast.walk(fn) if isinstance(n, ast.Assert) and n.msg is not None]
            called = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            helpers = [functions[name] for name in called & set(functions) - seen]
            return any("(reread " in t for t in texts) or any(says_where(h, seen | {h.name}) for h in helpers)

        for fn in functions.values():
            marks = [
                d
                for d in fn.decorator_list
                if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.exercise"
            ]
            if marks and says_where(fn, {fn.name}):
                named.add(marks[0].args[0].value)
    text = "".join(p.read_text("utf-8") for p in TESTS.glob("test_ex*.py"))
    graded = set(re.findall(r'@pytest\.mark\.exercise\("(\d+\.\d+)"\)', text))
    assert len(graded) >= 29 and graded - named == set(), (
        f"exercises whose failures never say where to reread: {sorted(graded - named)}"
    )


def test_the_student_readmes_quote_the_not_started_line_as_make_grade_prints_it():
    from agentlab.grading.student_view import SAY

    folder = Path(feedback.__file__).parent
    for lang, readme in (("en", "STUDENT_README.md"), ("zh-CN", "STUDENT_README.zh-CN.md")):
        say = SAY[lang]
        line = say["not started"].format("1.1", "exercises/ex01_round_trip.py" + say["notebook"].format("01"))
        assert line in (folder / readme).read_text("utf-8").replace("\n", ""), (readme, line)


def test_a_language_the_lab_has_no_text_for_is_said_once_and_the_grade_is_still_shown(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    assert (
        feedback.in_language("expected re-prefill per turn [0], got [1]") == "expected re-prefill per turn [0], got [1]"
    )
    nodeid = "exercises/tests/test_ex01_round_trip.py::test_a"
    report = GradeReport(
        tests=[GradedTest(nodeid=nodeid, name="test_a", exercise="1.1", points=2, outcome="passed", earned=2)]
    )
    lines = render(report)
    assert lines[0].startswith("AGENTLAB_LANG='zh'") and "in English" in lines[0] and lines[-1] == "Total: 2/2 points"


def test_the_instructor_edition_gets_full_marks_graded_in_chinese():
    """``AGENTLAB_LANG=zh-CN make grade`` (what the zh-CN student README says) runs every test with the tasks
    in Chinese too (``city_task`` follows the language): no test may depend on the task's language."""
    import os
    import subprocess
    import sys

    root = TESTS.parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "PYTEST_XDIST"))}
    env["AGENTLAB_LANG"] = "zh-CN"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/tests", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    total = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    full = re.fullmatch(r"\**总分：(\d+)/\1 分\**", total)
    assert full and int(full.group(1)) > 0, done.stdout[-3000:]
