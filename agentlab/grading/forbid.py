"""``@pytest.mark.forbids(...)``: a graded test fails when the student's code calls the package's own answer.

An exercise that asks the student to write X must not be passed by calling the library's X::

    @pytest.mark.forbids("agentlab.loop.run_agent", "agentlab.loop.execute_tools",
                         why="Exercise 2.1 asks you to write the loop yourself")

During the test's call phase each named function is swapped *in place* (its ``__code__``), so
every way of reaching it sees the guard: ``agentlab.run_agent``, ``from agentlab import
run_agent``, ``import agentlab.loop as L``, a reference kept from before the test, or a library
function that calls it for you. A call whose stack holds a frame of the student's exercise module
(``exNN_*.py``) raises ``ForbiddenCall`` (an ``AssertionError``) with the message
"<why>; agentlab.loop.run_agent is the reference"; calls from the test itself or from fixtures run
the real function. Everything is restored after the test.

A thread started from the student's code (``threading``, ``concurrent.futures``) counts as the
student's, so handing the reference to a thread pool does not hide the call; a forked process
keeps the guards and the stack it was forked from. A new Python process started while the guards
are on (``subprocess``, ``multiprocessing``'s spawn) inherits ``ENV`` and guards the same functions
from the moment it imports ``agentlab``; there every call counts as the student's, since the student
started the process.

In the gradebook the student's code runs in a sandbox process of its own, which ``seal`` closes for good
before any of it runs: every call of a guarded function is refused, its original code is dropped, and an
audit hook refuses to run, wrap or rebuild any code object with the same instructions and names as a
guarded function's original (as compiled, or its source compiled at any optimisation level), or holding one,
and starts no other program. So a copy of the module loaded under another name, the file compiled anew, the
function pasted into the student's module, a function made from a code object found in memory, the function
a decorator wraps (``__wrapped__``), or a fresh interpreter that could load a copy before sealing itself, is
refused like the function itself.

Limit: a copy that is changed (a variable renamed, a line moved) is new code, and under ``make grade`` (no
sandbox) only the stack check runs: code that hides where it comes from (``exec`` with a made-up file
name and module name) is not recognised as the student's there.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
import textwrap
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager

STUDENT_MODULE = re.compile(r"(?:^|[\\/.])ex\d+_\w*(?:\.py)?$")
"""Matches an exercise module's name (``exercises.ex02_loop``) or file (``.../ex02_loop.py``)."""


COPY_MIN_BYTES = 40
"""Bytecode length from which a code object with a guarded function's instructions and names counts as a copy of
it (shorter ones, ``return a + b``, are what anyone would write)."""

DEFAULT_WHY = "this exercise asks you to write it yourself"
"""The reason given when a ``forbids`` marker names none."""

ENV = "AGENTLAB_FORBIDS"
"""Set while guards are on (JSON: the names and the why): how a process the student starts inherits them."""


class ForbiddenCall(AssertionError):
    """The student's code called a function the exercise asks them to write themselves."""


def resolve(dotted: str) -> types.FunctionType:
    """``"agentlab.loop.run_agent"`` -> the function object (a class attribute works too: ``mod.Cls.meth``)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        obj = getattr(obj, "__func__", obj)  # classmethod/staticmethod
        if isinstance(obj, types.FunctionType):
            return obj
        raise ValueError(
            f"forbids({dotted!r}): that is a {type(obj).__name__}, not a Python function; "
            "name a function defined in Python, e.g. 'agentlab.loop.run_agent'"
        )
    raise ValueError(
        f"forbids({dotted!r}): no module found for that name; write the full dotted path, "
        "e.g. 'agentlab.loop.run_agent'"
    )


def from_student(frame: types.FrameType | None) -> bool:
    """True if any frame on the stack runs code of an exercise module (``exNN_*.py``)."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if STUDENT_MODULE.search(str(name)) or STUDENT_MODULE.search(frame.f_code.co_filename):
            return True
        frame = frame.f_back
    return False


@contextmanager
def forbidden(names: list[str], why: str) -> Iterator[None]:
    """Guard each named function for the duration of the ``with`` block (``make grade``: the student's code and
    the test share a process, so a call is refused only when the student's code is on the stack)."""
    swapped: list[tuple[types.FunctionType, types.CodeType]] = []
    before = os.environ.get(ENV)
    try:
        for dotted in names:
            for func in _chain(resolve(dotted)):  # a wrapper and what it wraps: __wrapped__ is no way round
                if any(f is func for f, _ in swapped):
                    continue
                swapped.append((func, func.__code__))
                func.__code__ = _guard_code(func, dotted, why)
        if names:
            os.environ[ENV] = json.dumps({"names": list(names), "why": why})
        with _marked_threads():
            yield
    finally:
        for func, code in reversed(swapped):
            func.__code__ = code
            func.__globals__.pop(_slot(func), None)
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def guard_started_process() -> None:
    """In a process started while guards were on (``ENV`` set): guard the same functions for good, every
    call refused (``agentlab/__init__`` calls this on import)."""
    try:
        spec = json.loads(os.environ.get(ENV, ""))
        names, why = [str(n) for n in spec["names"]], str(spec["why"])
    except (ValueError, TypeError, KeyError):
        return
    seal(names, why)


def seal(names: list[str], why: str) -> None:
    """For good, in a process where only the student's code runs: each named function (and every function it
    wraps) refuses every call, its original code is gone, no copy of that code runs, and no other program
    starts (a fresh interpreter could load a copy before it sealed itself). See the module's docstring."""
    signatures, named, sealed = set(), [], []
    for dotted in names:
        try:
            chain = _chain(resolve(dotted))
        except ValueError:
            continue
        found = _signatures(chain[-1])  # the function itself, not a decorator's wrapper shared with others
        if found:
            signatures |= found
            named.append(dotted)
        for func in chain:
            if all(func is not f for f in sealed):
                func.__code__ = _guard_code(func, dotted, why, always=True)  # the original is held nowhere now
                sealed.append(func)
    os.environ[ENV] = json.dumps({"names": list(names), "why": why})
    if names:
        copies = f"{why}; a copy of {' or '.join(named)} is the reference"
        programs = f"{why}; {names[0]} is the reference, and this test starts no other program (it could run it unseen)"
        sys.addaudithook(_copy_refuser(frozenset(signatures), copies, programs))


def _chain(func: types.FunctionType) -> list[types.FunctionType]:
    """``func`` and every function it wraps (``__wrapped__``, as ``functools.wraps`` leaves it), outermost first."""
    chain = [func]
    for _ in range(16):  # bounded: decorators nest a few deep
        inner = getattr(chain[-1], "__wrapped__", None)
        if not isinstance(inner, types.FunctionType) or any(inner is f for f in chain):
            break
        chain.append(inner)
    return chain


def _signature(code: types.CodeType) -> tuple:
    return code.co_code, code.co_names, code.co_varnames, code.co_argcount


def _signatures(func: types.FunctionType) -> set[tuple]:
    """Signatures of ``func``'s code as compiled, and as its source compiles at each optimisation level (``-O``,
    ``-OO`` drop asserts and the docstring, which changes the bytecode); only code of ``COPY_MIN_BYTES`` or more."""
    found = [func.__code__]
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        source = None
    for level in (0, 1, 2) if source else ():
        try:
            module = compile(source, func.__code__.co_filename, "exec", optimize=level, dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        stack = [module]
        while stack:  # bounded: the nesting of the function's own source
            code = stack.pop()
            stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            if code.co_name == func.__code__.co_name:
                found.append(code)
    return {_signature(c) for c in found if len(c.co_code) >= COPY_MIN_BYTES}


def _copy_refuser(signatures: frozenset, copies: str, programs: str):
    """An audit hook refusing every code object that is (or holds) one with these signatures, and every new
    program. Everything it uses is in its own defaults (an immutable tuple, whose replacement it refuses): no
    global or builtin someone could swap."""

    def refuse(event, args, _sigs=signatures, _msg=copies, _run=programs, _code=types.CodeType, _err=ForbiddenCall,
               _is=isinstance, _seq=(tuple, frozenset), _new=("subprocess.Popen", "os.exec", "os.posix_spawn",
               "os.spawn", "os.system", "os.startfile"), _self=None):  # fmt: skip
        if event in _new:
            raise _err(_run)
        if event == "object.__setattr__":
            if args[0] is _self:
                raise _err(_msg)
            found = [args[2]] if args[1] == "__code__" and _is(args[2], _code) else []
        elif event in ("exec", "function.__new__"):
            found = [args[0]] if _is(args[0], _code) else []
        elif event == "code.__new__":
            for sig in _sigs:
                if sig[0] == args[0]:
                    raise _err(_msg)
            return
        else:
            return
        while found:  # every code object inside, tuples of constants too: bounded by how deeply they nest
            code = found.pop()
            if _is(code, _seq):
                found += [c for c in code if _is(c, (_code, *_seq))]
                continue
            if (code.co_code, code.co_names, code.co_varnames, code.co_argcount) in _sigs:
                raise _err(_msg)
            found += [c for c in code.co_consts if _is(c, (_code, *_seq))]

    refuse.__defaults__ = refuse.__defaults__[:-1] + (refuse,)
    return refuse


def _guard_code(func: types.FunctionType, dotted: str, why: str, always: bool = False) -> types.CodeType:
    """A code object with the function's free variables that checks the caller, then runs a copy."""
    message = f"{why}; {dotted} is the reference, not an answer"
    if always:  # no copy of the original is kept: nothing here can run it

        def check(args: tuple, kwargs: dict):
            raise ForbiddenCall(message)

    else:
        real = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
        real.__kwdefaults__ = func.__kwdefaults__

        def check(args: tuple, kwargs: dict):
            if from_student(sys._getframe(2)) or getattr(threading.current_thread(), _MARK, False):
                raise ForbiddenCall(message)
            return real(*args, **kwargs)

    freevars = func.__code__.co_freevars
    # The guard must have exactly the original's free variables (a function's closure is fixed);
    # it reaches `check` through a default-free global slot named uniquely for this function.
    slot = _slot(func)
    func.__globals__[slot] = check
    source = (
        f"def _outer({', '.join(freevars) or ''}):\n"
        f"    def {func.__name__}(*args, **kwargs):\n"
        + "".join(f"        {v}\n" for v in freevars)
        + f"        return {slot}(args, kwargs)\n"
        f"    return {func.__name__}\n"
    )
    namespace: dict = {}
    exec(compile(source, func.__code__.co_filename, "exec"), func.__globals__, namespace)
    outer = namespace.pop("_outer", None) or func.__globals__.pop("_outer")
    inner = next(c for c in outer.__code__.co_consts if isinstance(c, types.CodeType))
    return inner.replace(
        co_name=func.__code__.co_name,
        co_qualname=func.__code__.co_qualname,
        co_firstlineno=func.__code__.co_firstlineno,
    )


_MARK = "_agentlab_started_by_student"


@contextmanager
def _marked_threads() -> Iterator[None]:
    """A thread started while the student's code is on the stack (or from such a thread) counts as theirs."""
    start = threading.Thread.start

    def marking_start(self, *args, **kwargs):
        setattr(self, _MARK, from_student(sys._getframe(1)) or getattr(threading.current_thread(), _MARK, False))
        return start(self, *args, **kwargs)

    threading.Thread.start = marking_start
    try:
        yield
    finally:
        threading.Thread.start = start


def _slot(func: types.FunctionType) -> str:
    return f"__agentlab_forbids_{id(func):x}__"
