"""Small helpers that keep the notebooks' cells short: show what went over the wire, and what it cost.

Nothing here changes how a run behaves; these functions only format and tabulate.
"""

from __future__ import annotations

import json
from typing import Any

from agentlab.run import Run


def _plain(obj: Any) -> Any:
    """SDK objects (``Message``, ``ToolUseBlock``...) as the JSON the API sends; anything else unchanged."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"cannot show {type(obj).__name__} as JSON")


def to_json(obj: Any, indent: int = 2) -> str:
    """JSON text of a messages array, a content list or one SDK object (SDK blocks included, as the API sees them)."""
    return json.dumps(obj, default=_plain, indent=indent, ensure_ascii=False)


def messages_sent(run: Run) -> list[int]:
    """For each turn of an agent run, how many messages its request carried (the history re-sent)."""
    assistant_at = [i for i, m in enumerate(run.messages) if m.get("role") == "assistant"]
    return assistant_at[: len(run.turns)]


def turns_table(run: Run) -> Any:
    """A pandas DataFrame, one row per model call: messages sent, the input split into its parts,
    and the re-prefill split into fixed overhead re-sent and history re-sent."""
    import pandas as pd

    from agentlab.live.compat import NOT_REPORTED
    from agentlab.meter.breakdown import LABELS

    sent = messages_sent(run)
    rows = []
    unreported = not all(u.cache_reported for u in run.turns)  # a server without cache fields: unknown, not 0
    for i, t in enumerate(run.turns):
        row = {"turn": t.index, "messages sent": sent[i] if i < len(sent) else None, "input tokens": t.prompt_tokens}
        if unreported or any(u.cache_read_tokens or u.cache_write_tokens for u in run.turns):  # billed apart: show them
            reads, writes = (t.cache_read_tokens, t.cache_write_tokens) if t.cache_reported else (NOT_REPORTED,) * 2
            row.update({"of which cache reads": reads, "of which cache writes": writes})
        if t.breakdown is not None:
            row.update({LABELS[k]: v for k, v in t.breakdown.parts().items()})
            if t.breakdown.residual:
                row["residual"] = t.breakdown.residual
        row.update(
            {
                "re-prefill tokens": t.reprefill_tokens,
                "re-prefill: fixed": t.reprefill_fixed,
                "re-prefill: history": t.reprefill_history,
                "output tokens": t.output_tokens,
                "tools requested": ", ".join(t.tool_calls) or "-",
                "stop_reason": t.stop_reason,
            }
        )
        rows.append(row)
    return pd.DataFrame(rows).set_index("turn")


def steps_table(run: Any) -> Any:
    """A pandas DataFrame, one row per step of a workflow run: its path, status, tokens and error (cut to 70
    characters): the per-step view of the same meter that measures an agent."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "step": s.path,
                "status": s.status,
                "input tokens": s.input_tokens,
                "output tokens": s.output_tokens,
                "error": s.error[:70],
            }
            for s in run.steps
        ]
    )


def input_shares(turn: Any) -> dict[str, float]:
    """Percent of one turn's input in each part, plus ``"fixed"`` (tool prompt, definitions, system, task)
    and ``"tools"`` (tool prompt + definitions: what offering tools costs on every call)."""
    b = turn.breakdown
    if b is None:
        raise ValueError(f"turn {turn.index} has no input breakdown; live, connect with count_parts=True")
    total = turn.prompt_tokens or 1
    shares = {k: 100 * v / total for k, v in b.parts().items()}
    shares["fixed"] = 100 * b.fixed / total
    shares["tools"] = 100 * (b.tool_prompt + b.tool_definitions) / total
    return shares


def history_overtakes(run: Run) -> int | None:
    """The first turn whose history part is larger than its fixed part, or ``None`` if none is."""
    return next((t.index for t in run.turns if t.breakdown and t.breakdown.history > t.breakdown.fixed), None)


def core(pattern: Any) -> str:
    """The lines of a workflow pattern's ``run_*`` function that run the pattern: the body of its
    ``with Steps(...) as wf:`` block, read from the module file as it is (the code that runs, not a copy),
    under one line naming the file. The checks before it (bounds, arguments) and the helpers it calls are left out."""
    import inspect
    import textwrap

    fn = inspect.unwrap(pattern)
    lines = inspect.getsource(fn).splitlines()
    start = next((i for i, line in enumerate(lines) if line.rstrip().endswith(" as wf:")), None)
    if start is None:
        raise ValueError(f"core({fn.__name__}): no `with Steps(...) as wf:` block; give a workflow's run_* function")
    body = textwrap.dedent("\n".join(lines[start + 1 :]))
    where = inspect.getsourcefile(fn) or ""
    where = where[where.rfind("agentlab") :].replace("\\", "/") if "agentlab" in where else where
    return f"# {where}, {fn.__name__}: the {len(lines) - start - 1} lines inside `with Steps(...) as wf:`\n{body}"


def _same(guess: Any, actual: Any) -> bool:
    """A guess matches the run's value: text compared without case or surrounding spaces, anything else by ``==``."""
    if isinstance(guess, str) and isinstance(actual, str):
        return guess.strip().casefold() == actual.strip().casefold()
    return guess == actual


def reveal(guess: Any, actual: Any, what: str) -> None:
    """The answer to a prediction cell: the guess the student wrote before the run, beside what the run showed.

    ``what`` names the quantity in English (the zh-CN edition shows it through the translation tables,
    ``data/i18n/zh-CN/predict.json``). An empty guess (``""`` or ``None``) gets a line saying the run answered
    without one. Text is compared without case or surrounding spaces ("No" matches "no")."""
    from agentlab.views.i18n import language, tr

    zh, name = language() == "zh-CN", tr(what)
    if guess is None or guess == "":
        text = (
            f"{name}：上面没有写下猜测；这次运行得到 {actual}。下次先写下你的猜测，再运行。"
            if zh
            else f"{name}: no guess written above; this run shows {actual}. Next time write one down first."
        )
    elif _same(guess, actual):
        text = (
            f"{name}：你猜的是 {guess}，这次运行得到的也是 {actual}。"
            if zh
            else f"{name}: you guessed {guess}; this run shows {actual}, as you said."
        )
    else:
        text = (
            f"{name}：你猜的是 {guess}，这次运行得到 {actual}。"
            if zh
            else f"{name}: you guessed {guess}; this run shows {actual}."
        )
    print(text)
