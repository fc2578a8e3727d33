"""Tools: plain Python functions the *harness* runs when the model asks.

The model never executes anything. It writes a ``tool_use`` block (a request: a name and a JSON
input); your code looks the name up in the tool list, checks the input, runs the function and
answers with a ``tool_result``. The tool list is therefore both what the model *can* do and what it
*may* do: a tool that is not in the list cannot be run, whatever the model writes.

``@tool`` builds the JSON schema the API needs from a typed signature and docstring.
``run_tool`` validates the input against that schema *before* the function runs and turns every
failure into a short, model-readable message (no traceback), so the model can correct itself.

Validation: the schemas ``@tool`` writes (an object of strings, numbers, booleans, enums and lists)
are checked by the small validator in ``schema_check.py``; any other schema is handed to
``jsonschema``, imported only then (it costs seconds at import, which a notebook should not pay).
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Literal

from agentlab.schema_check import SchemaError, first_error

ONE_PER_TURN = {"type": "auto", "disable_parallel_tool_use": True}
"""A request's ``tool_choice`` for at most one ``tool_use`` per reply (the model still chooses which), so each
step of a task is a turn of its own."""

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


class ToolError(Exception):
    """Raise inside a tool for a failure the model should read and can fix (e.g. unknown city)."""


@dataclass(frozen=True)
class Tool:
    """A function the model may ask the harness to run."""

    name: str
    """The name the model uses in ``tool_use`` blocks."""
    description: str
    """What the tool does, written for the model."""
    input_schema: dict
    """JSON Schema (type ``object``) for the input the model must send."""
    fn: Callable[..., Any]
    """The Python function run with the validated input as keyword arguments."""
    reads: frozenset[str] = frozenset()
    """Names of the shared state the tool reads (an executor keeps it after any call that writes it)."""
    writes: frozenset[str] = frozenset()
    """Names of the shared state the tool changes (calls touching it are never run concurrently)."""
    timeout: float | None = None
    """Seconds the harness waits for one call; a call that takes longer is answered as an error."""
    strict: bool = False
    """Send ``strict: true``: the API then constrains the model's input to ``input_schema`` (grammar-constrained
    sampling, https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use); without it a
    missing field or a wrong type reaches the harness. Set it with ``dataclasses.replace(tool, strict=True)``."""

    def first_error(self, tool_input: Any) -> SchemaError | None:
        """The first way ``tool_input`` breaks ``input_schema`` (``None`` when it is valid)."""
        return first_error(self.input_schema, tool_input)

    def spec(self) -> dict:
        """The tool definition sent in the API request's ``tools`` list."""
        spec = {"name": self.name, "description": self.description, "input_schema": self.input_schema}
        return {**spec, "strict": True} if self.strict else spec

    def __call__(self, **kwargs: Any) -> Any:
        return self.fn(**kwargs)

    def keys(self):  # reached when a Tool itself is sent to the API (the SDK takes it for a mapping)
        raise TypeError(
            f"the agentlab Tool {self.name!r} was sent to the API as it is; the API takes its definition: "
            f"pass tools=[{self.name}.spec()] to client.messages.create (run_agent does this for you)"
        )

    items = keys


Mapping.register(Tool)  # so the SDK's JSON encoder asks keys() above, instead of saying "not JSON serializable"


@dataclass(frozen=True)
class ToolOutcome:
    """What the harness sends back for one ``tool_use`` block."""

    content: str
    """The text of the ``tool_result`` block."""
    is_error: bool = False
    """True when the tool did not run or failed; the model sees ``is_error: true``."""


def _param_docs(doc: str) -> dict[str, str]:
    """Read ``name: text`` lines from an ``Args:`` section of a docstring."""
    found: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        if line.strip().lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        m = re.match(r"\s+(\w+)\s*(?:\([^)]*\))?:\s*(.+)", line) if in_args else None
        if m:
            found[m.group(1)] = m.group(2).strip()
        elif in_args and line.strip() and not line.startswith((" ", "\t")):
            in_args = False
    return found


def _schema_for(annotation: Any) -> dict:
    """JSON schema for one parameter's type hint."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return {"enum": list(typing.get_args(annotation))}
    if origin is list:
        (item,) = typing.get_args(annotation) or (str,)
        return {"type": "array", "items": _schema_for(item)}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    raise TypeError(
        f"@tool cannot describe the type {annotation!r}; use str, int, float, bool, "
        "list[...] or Literal[...] in the tool's signature"
    )


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    reads: Any = (),
    writes: Any = (),
    timeout: float | None = None,
) -> Any:
    """Turn a typed, documented function into a :class:`Tool` (usable as ``@tool`` or ``@tool(name=...)``).

    ``reads``/``writes`` name the shared state the tool touches (e.g. ``writes=("notes",)``) so a
    parallel executor keeps such calls in order; ``timeout`` is the most seconds one call may take.
    """
    state = {k: _state_names(k, v) for k, v in (("reads", reads), ("writes", writes))}
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValueError(f"@tool(timeout={timeout!r}): timeout must be a positive number of seconds, or None")

    def build(f: Callable[..., Any]) -> Tool:
        doc = inspect.getdoc(f) or ""
        if not doc:
            raise ValueError(f"@tool {f.__name__}: add a docstring; it is the description the model reads")
        hints = typing.get_type_hints(f)
        params = _param_docs(doc)
        props: dict[str, dict] = {}
        required: list[str] = []
        for p in inspect.signature(f).parameters.values():
            if p.name not in hints:
                raise TypeError(f"@tool {f.__name__}: parameter {p.name!r} needs a type hint")
            props[p.name] = _schema_for(hints[p.name])
            if p.name in params:
                props[p.name]["description"] = params[p.name]
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
        schema = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
        description = doc.split("\n\n")[0].strip()
        return Tool(name or f.__name__, description, schema, f, **state, timeout=timeout)

    return build(fn) if fn is not None else build


def _explain(tool_: Tool, err: SchemaError) -> str:
    """One model-readable sentence for a schema violation: the field, the value, the fix."""
    field = ".".join(str(p) for p in err.absolute_path) or None
    where = f"field '{field}'" if field else "the input"
    props = tool_.input_schema.get("properties", {})
    if err.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        return f"missing required field '{missing[0] if missing else '?'}'; send {{{', '.join(repr(k) + ': ...' for k in props)}}}"
    if err.validator == "additionalProperties":
        return f"unexpected field(s) in the input; the valid fields are: {', '.join(props)}"
    if err.validator == "enum":
        return f"{where} must be one of {err.validator_value}, got {json.dumps(err.instance, ensure_ascii=False)}"
    if err.validator == "type":
        return f"{where} must be of type {err.validator_value}, got {json.dumps(err.instance, ensure_ascii=False)}"
    return f"{where}: {err.message}"


def run_tool(tools: dict[str, Tool], name: str, tool_input: Any) -> ToolOutcome:
    """Validate ``tool_input`` and run the named tool; every failure becomes an ``is_error`` outcome."""
    t = tools.get(name)
    if t is None:
        return ToolOutcome(f"Unknown tool '{name}'. Available tools: {', '.join(tools) or 'none'}.", True)
    error = t.first_error(tool_input)
    if error is not None:
        return ToolOutcome(f"Invalid input for {name}: {_explain(t, error)}.", True)
    try:
        result = t.fn(**tool_input)
    except ToolError as e:
        return ToolOutcome(str(e), True)
    except Exception as e:  # a tool that raises must not end the run: the model reads what went wrong
        return ToolOutcome(f"{name} failed: {type(e).__name__}: {e}", True)
    if isinstance(result, str):
        return ToolOutcome(result)
    try:
        return ToolOutcome(json.dumps(result, ensure_ascii=False))
    except (TypeError, ValueError) as e:  # a set, a datetime, a NaN...: the model reads what went wrong
        return ToolOutcome(
            f"{name} returned a value JSON cannot encode ({e}); the tool should return "
            "text, numbers, lists or dicts of those.",
            True,
        )


def toolset(tools: list[Tool]) -> dict[str, Tool]:
    """Index tools by name, refusing duplicates (the API rejects duplicate names too)."""
    if isinstance(tools, Tool):
        raise TypeError(f"tools={tools.name!r} is one Tool; give a list of tools: tools=[{tools.name}]")
    if isinstance(tools, str):
        raise TypeError(
            f"tools={tools!r} is a string; give a list of Tool objects made with @tool, "
            f"e.g. tools=[{tools.split(',')[0].strip() or 'get_weather'}] (the function itself, not its name)"
        )
    if isinstance(tools, dict) and all(isinstance(t, Tool) for t in tools.values()):
        tools = list(tools.values())
    if not isinstance(tools, (list, tuple)):
        raise TypeError(
            f"tools={tools!r} is a {type(tools).__name__}; give a list of Tool objects made with @tool, "
            "e.g. tools=[get_weather, save_note]"
        )
    out: dict[str, Tool] = {}
    for t in tools:
        if not isinstance(t, Tool):
            hint = (
                f"; decorate {t.__name__} with @tool"
                if callable(t) and hasattr(t, "__name__")
                else "; pass the tool itself, not its name"
                if isinstance(t, str)
                else ""
            )
            raise TypeError(f"tools must be Tool objects made with @tool, got {t!r}{hint}")
        if t.name in out:
            raise ValueError(f"two tools are named {t.name!r}; tool names must be unique")
        out[t.name] = t
    return out


def _state_names(kind: str, value: Any) -> frozenset[str]:
    """``reads=``/``writes=`` as a set of names: a string or a collection of strings."""
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, (list, tuple, set, frozenset)) or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"@tool({kind}={value!r}): {kind} must be a state name or a list of names, e.g. ('notes',)")
    return frozenset(names)


def _traceback_without_package_files(e: BaseException, name: str) -> str:
    """``e``'s traceback as Python prints it, each frame in agentlab's own files shown as ``<tool NAME>``.

    A student's tool keeps its frames (file, line, code); the harness's frames and a bundled tool's
    would name this package's files on the server, which no answer may (issue 22).
    """
    import traceback
    from pathlib import Path

    package = str(Path(__file__).resolve().parent)
    lines = ["Traceback (most recent call last):"]
    for frame in traceback.extract_tb(e.__traceback__):
        if str(Path(frame.filename).resolve()).startswith(package):
            if lines[-1] != f'  File "<tool {name}>", in {name}':
                lines.append(f'  File "<tool {name}>", in {name}')
        else:
            lines.append(traceback.format_list([frame])[0].rstrip("\n"))
    lines.extend(ln.rstrip("\n") for ln in traceback.format_exception_only(type(e), e))
    return "\n".join(lines).strip()


def run_tool_raw(tools: dict[str, Tool], name: str, tool_input: Any) -> ToolOutcome:
    """The *raw traceback* error style: what a naive harness sends back, for contrast with ``run_tool``.

    No schema check and no explanation: the function is looked up and called, and any exception is
    answered with its Python traceback (``KeyError`` for an unknown tool, ``TypeError`` for a missing
    argument, whatever the function raises for a wrong type).
    """
    try:
        result = tools[name].fn(**tool_input)
    except Exception as e:  # the point of this style: the model gets what Python printed
        return ToolOutcome(_traceback_without_package_files(e, name), True)
    return ToolOutcome(result if isinstance(result, str) else json.dumps(result, ensure_ascii=False))
