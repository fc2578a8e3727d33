"""@pytest.mark.forbids: the student's code may not call the library's own answer, by any route."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentlab.grading.forbid import ForbiddenCall, forbidden

ROOT = Path(__file__).resolve().parents[2]
WHY = "Exercise 2.1 asks you to write the loop yourself"

STUDENT = """
import agentlab
import agentlab.loop as L
from agentlab import run_agent
from agentlab.loop import execute_tools as et
kept = run_agent

def plain(): return agentlab.run_agent("c", "t", [])
def imported(): return run_agent("c", "t", [])
def module_alias(): return L.execute_tools([], [])
def renamed(): return et([], [])
def kept_reference(): return kept("c", "t", [])
def through_the_library(): return agentlab.compare("c", "t")
"""


@pytest.fixture
def student(tmp_path):
    path = tmp_path / "ex02_loop.py"
    path.write_text(STUDENT)
    spec = importlib.util.spec_from_file_location("exercises.ex02_loop", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("route", ["plain", "imported", "module_alias", "renamed", "kept_reference"])
def test_every_route_to_a_forbidden_function_fails_with_the_reason(student, route):
    with forbidden(["agentlab.loop.run_agent", "agentlab.loop.execute_tools"], WHY):
        with pytest.raises(
            ForbiddenCall,
            match=r"^Exercise 2\.1 asks you to write the loop yourself; "
            r"agentlab\.loop\.(run_agent|execute_tools) is the reference",
        ):
            getattr(student, route)()


def test_calls_from_the_test_itself_run_the_real_function(student):
    import agentlab

    with forbidden(["agentlab.loop.execute_tools"], WHY):
        assert agentlab.execute_tools([], []) == []
    assert student.module_alias() == []  # restored afterwards


def test_a_bad_name_says_how_to_write_it():
    with pytest.raises(ValueError, match="no module found for that name; write the full dotted path"):
        with forbidden(["nowhere.run_agent"], WHY):
            pass


CHEATS = {
    "ex01_round_trip.py": (
        "    ### BEGIN SOLUTION\n",
        "    import agentlab\n    return {'role': 'user', 'content': agentlab.execute_tools(content, tools)}\n"
        "    ### BEGIN SOLUTION\n",
    ),
    "ex02_loop.py": (
        "    ### BEGIN SOLUTION\n    by_name",
        "    from agentlab import run_agent\n    return run_agent(client, task, tools, model=model, "
        "max_turns=max_turns).messages\n    ### BEGIN SOLUTION\n    by_name",
    ),
}


@pytest.mark.timeout(600)
def test_library_answers_score_nothing_in_the_course(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "exercises", repo / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", repo)
    for name, (old, new) in CHEATS.items():
        path = repo / "exercises" / name
        path.write_text(path.read_text().replace(old, new, 1))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "exercises"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=500,
    )
    out = result.stdout
    table = {
        line.split()[0]: line.split()[1]
        for line in out.split("= points =")[1].splitlines()
        if line[:1].isdigit() and len(line.split()) > 1
    }
    assert {ex: table[ex] for ex in ("1.1", "1.2", "2.1", "2.2")} == {
        "1.1": "0/5",
        "1.2": "3/3",
        "2.1": "0/6",
        "2.2": "3/3",
    }, out[-3000:]
    assert "Exercise 1.1 asks you to build the tool_result message yourself; agentlab.loop.execute_tools is the" in out
    assert "Exercise 2.1 asks you to write the loop yourself; agentlab.loop.run_agent is the reference" in out


def test_a_python_process_started_under_the_guards_refuses_the_reference_and_the_guards_leave_no_trace():
    code = "import agentlab.loop as L; L.execute_tools([], [])"
    with forbidden(["agentlab.loop.execute_tools"], WHY):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert done.returncode != 0 and f"{WHY}; agentlab.loop.execute_tools is the reference" in done.stderr
    assert "AGENTLAB_FORBIDS" not in os.environ
    after = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert after.returncode == 0, after.stderr


SEALED = r"""
import gc, importlib.util, inspect, json, sys, textwrap, types
import agentlab, agentlab.loop
from agentlab.grading import forbid

source = textwrap.dedent(inspect.getsource(agentlab.loop.run_agent))
forbid.seal(["agentlab.loop.run_agent"], "write the loop yourself")
outcomes = {}

def attempt(name, how):
    try:
        how()
        outcomes[name] = "ran"
    except forbid.ForbiddenCall as e:
        outcomes[name] = "refused: " + str(e)[:60]

def module_copy():
    spec = importlib.util.spec_from_file_location("my_own_loop", agentlab.loop.__file__)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))

def pasted():
    exec(compile(source, "ex02_loop.py", "exec"), {"__name__": "exercises.ex02_loop", **vars(agentlab.loop)})

def function_code():
    return next(c for c in compile(source, "x.py", "exec").co_consts if isinstance(c, types.CodeType))

def unseal():
    hook = next(f for f in gc.get_objects() if isinstance(f, types.FunctionType) and f.__name__ == "refuse")
    hook.__defaults__ = (frozenset(),) + hook.__defaults__[1:]

attempt("call", lambda: agentlab.run_agent(None, "t", []))
attempt("module copy", module_copy)
attempt("pasted", pasted)
attempt("function from code", lambda: types.FunctionType(function_code(), {}))
attempt("code rebuilt", lambda: function_code().replace(co_name="other"))
attempt("unseal", unseal)
attempt("a new program", lambda: __import__("subprocess").run([sys.executable, "-c", "pass"]))
attempt("pasted at -OO", lambda: exec(compile(source, "mine.py", "exec", optimize=2), dict(vars(agentlab.loop))))

def in_a_tuple():
    inner = function_code()
    outer = compile("f = None", "t.py", "exec").replace(co_consts=((inner,), None))
    exec(outer, {})

attempt("hidden in a tuple", in_a_tuple)
attempt("other lab code", lambda: agentlab.read_trace)
attempt("the student's own code", lambda: exec(compile("def mine(a, b):\n    return a + b\n", "ex01.py", "exec"), {}))
print(json.dumps(outcomes))
"""


def _outcomes(script: str) -> dict:
    """Run ``script`` in a Python process of its own (a seal lasts for good) and read the JSON it prints last."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_sealed_process_refuses_every_way_back_to_the_reference(tmp_path):
    outcomes = _outcomes(SEALED)
    refused = {k for k, v in outcomes.items() if v.startswith("refused: write the loop yourself")}
    assert refused == {
        "call", "module copy", "pasted", "function from code", "code rebuilt", "unseal", "a new program",
        "pasted at -OO", "hidden in a tuple",
    }, outcomes  # fmt: skip
    assert outcomes["other lab code"] == outcomes["the student's own code"] == "ran", outcomes


WRAPPED = r"""
import json
import agentlab.workflows.routing as routing
from agentlab.grading import forbid

inner = routing.run_router.__wrapped__
forbid.seal(["agentlab.workflows.routing.run_router"], "write the router yourself")
outcomes = {}
for name, fn in {"the wrapper": routing.run_router, "what it wraps": routing.run_router.__wrapped__, "kept": inner}.items():
    try:
        fn(None, "ticket", {"a": "b"}, fallback="f")
        outcomes[name] = "ran"
    except forbid.ForbiddenCall as e:
        outcomes[name] = "refused: " + str(e)[:40]
    except Exception as e:
        outcomes[name] = "ran into " + type(e).__name__
print(json.dumps(outcomes))
"""


def test_a_sealed_decorated_reference_is_refused_through_its_wrapped_function_too():
    outcomes = _outcomes(WRAPPED)
    assert set(outcomes.values()) == {"refused: write the router yourself; agentlab.work"}, outcomes


def test_under_make_grade_the_wrapped_function_is_guarded_too():
    import agentlab.workflows.routing as routing

    inner = routing.run_router.__wrapped__

    def from_student():  # a frame of an exercise module's file
        return inner(None, "ticket", {"a": "b"}, fallback="f")

    from_student.__code__ = from_student.__code__.replace(co_filename="ex04_patterns.py")
    with forbidden(["agentlab.workflows.routing.run_router"], "write the router yourself"):
        with pytest.raises(ForbiddenCall, match="write the router yourself"):
            from_student()
