"""release_student: the student edition keeps no solution, stubs name the exercise, bad markers are refused."""

from __future__ import annotations

import json
import runpy

import pytest

from agentlab.grading.release import SolutionMarkerError, release_student
from agentlab.grading.solutions import strip_code

pytestmark = pytest.mark.timeout(300)


def all_text(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_no_solution_left_and_stubs_name_the_exercise(course, tmp_path):
    out = tmp_path / "student"
    report = release_student(course, out)

    texts = all_text(out)
    assert [path for path, text in texts.items() if "secret" in text] == []
    assert [
        path for path, text in texts.items() if path.startswith(("exercises/", "notebooks/")) and "SOLUTION" in text
    ] == []
    assert report.regions == 5  # ex01: 2, ex02: 1, notebook: 1 code cell + 1 markdown cell
    assert set(report.stubbed) == {"exercises/ex01_basics.py", "exercises/ex02_loop.py", "notebooks/01_intro.ipynb"}

    ex01 = texts["exercises/ex01_basics.py"]
    assert '    raise NotImplementedError("Exercise 1.1: return the sum of a and b.")\n' in ex01
    assert (
        '    raise NotImplementedError("Exercise 1.2: count the words in text, splitting on any whitespace.")\n' in ex01
    )
    assert "More words here" in ex01  # the docstring itself stays
    ex02 = texts["exercises/ex02_loop.py"]
    stub = '        raise NotImplementedError("Exercise 2.1: call each step until one returns \\"done\\"; return how many steps ran.")\n'
    assert stub in ex02  # at the marker's indentation, quotes escaped

    module = runpy.run_path(str(out / "exercises" / "ex01_basics.py"))
    with pytest.raises(NotImplementedError, match=r"^Exercise 1\.1: return the sum of a and b\.$"):
        module["add"](1, 2)


def test_skips_private_folders_and_keeps_other_files(course, tmp_path):
    out = tmp_path / "student"
    release_student(course, out)
    names = set(all_text(out))
    for skipped in (
        ".git/config",
        ".venv/pyvenv.cfg",
        "runs/run1.json",
        "notes/todo.md",
        "agentlab.egg-info/PKG-INFO",
        ".pytest_cache/x",
        "exercises/__pycache__/ex01_basics.cpython-311.pyc",
    ):
        assert skipped not in names
    kept_files = (
        "exercises/conftest.py",
        "exercises/tests/test_ex01_basics.py",
        "agentlab/grading/plugin.py",
        "pyproject.toml",
    )
    for kept in kept_files:
        assert (out / kept).read_bytes() == (course / kept).read_bytes()
    # marker text inside a string is not a marker: the file is copied unchanged
    assert (out / "tools/markers_doc.py").read_bytes() == (course / "tools/markers_doc.py").read_bytes()


def test_notebook_cells_are_stubbed_and_outputs_cleared(course, tmp_path):
    out = tmp_path / "student"
    release_student(course, out)
    nb = json.loads((out / "notebooks" / "01_intro.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in nb["cells"]]
    assert sources[1] == (
        '%matplotlib inline\ndef greet(name):\n    """Exercise 0.1: return a greeting for name."""\n'
        '    raise NotImplementedError("Exercise 0.1: return a greeting for name.")\n'
    )
    assert sources[3] == "**Why stop at end_turn?**\nYOUR ANSWER HERE\n"
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in nb["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize(
    "body, line, problem",
    [
        ("    ### BEGIN SOLUTION\n    return 1\n", 5, "has no matching '### END SOLUTION'"),
        ("    return 1\n    ### END SOLUTION\n", 6, "without a '### BEGIN SOLUTION'"),
        (
            "    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n",
            5,
            "before the next BEGIN at line 6",
        ),
    ],
)
def test_unbalanced_markers_are_refused_naming_file_and_line(course, tmp_path, body, line, problem):
    bad = course / "exercises" / "ex03_bad.py"
    bad.write_text(f'"""Module."""\n\ndef f():\n    """Exercise 3.1: do it."""\n{body}', encoding="utf-8")
    out = tmp_path / "student"
    with pytest.raises(SolutionMarkerError) as error:
        release_student(course, out)
    assert str(error.value).startswith(f"exercises/ex03_bad.py:{line}: ")
    assert problem in str(error.value)
    assert not out.exists()  # nothing half-written


def test_region_needs_an_exercise_function():
    with pytest.raises(SolutionMarkerError, match=r"^m\.py:2: this solution region is not inside a function"):
        strip_code("X = 1\n### BEGIN SOLUTION\nX = 2\n### END SOLUTION\n", "m.py")
    with pytest.raises(SolutionMarkerError, match=r"^m\.py:3: the docstring of f\(\) must start with 'Exercise N\.M:"):
        strip_code(
            'def f():\n    """Add things."""\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n', "m.py"
        )


def test_notebook_error_names_the_cell(course, tmp_path):
    nb_path = course / "notebooks" / "01_intro.ipynb"
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    nb["cells"][2]["source"] = ["### END SOLUTION\n"]
    nb_path.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(SolutionMarkerError, match=r"^notebooks/01_intro\.ipynb cell 3:1: '### END SOLUTION' without"):
        release_student(course, tmp_path / "student")


def test_refuses_a_non_empty_out_dir(course, tmp_path):
    out = tmp_path / "student"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        release_student(course, out)
