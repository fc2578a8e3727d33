"""Many trials of each variant over the task set, one row a trial, and the figures a reader compares.

    rows = run_trials(["agent", "workflow"], trials=20, out="eval.csv")   # resumable: a row per finished trial
    table = summarize(rows, k=5)                                           # pass@1, pass@k, pass^k, cost per success

Offline, trial ``i`` of a variant runs on the simulator with ``VariedAgent(seed=i)``: the careful agent with
seeded variation (``agentlab/sim/models/varied.py``), whose rates are stand-ins, so every figure here is a
result of how our scripted model is written, not a measurement of Claude. The same seeds give the same
rows. Given a client (``connect("live", max_usd=..., record=...)`` or ``connect("replay", cassette=...)``),
every trial goes to it instead: a live eval goes through the client's spending cap and can be recorded once
and replayed offline. :func:`agentlab.evals.tasks.check` grades each trial's outcome from the note it saved.
"""

from __future__ import annotations

import csv
import math
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from agentlab.evals.estimators import interval, over_tasks
from agentlab.evals.tasks import TASKS, EvalTask, check

VARIANTS = ("agent", "workflow")
"""What a trial can run: ``run_agent`` with the task's tools, or the city task's fixed-path workflow."""
COLUMNS = (
    "variant",
    "task",
    "trial",
    "mode",
    "success",
    "why",
    "stop_reason",
    "turns",
    "input_tokens",
    "output_tokens",
    "usd",
)
"""The results' columns, one row a trial: a tidy table (``pandas.read_csv`` reads it as it is)."""
CRASHED = "raised "
"""How a trial that raised begins its ``why``: it counts as a failure, and is left out of the means."""


class CapReached(RuntimeError):
    """The client's spending cap refused a trial's next call: the eval stops there, that trial unrecorded (it is
    not the model's failure), every finished one kept; run it again with a higher cap to go on."""


def _one(client: Any, variant: str, task: EvalTask, notes: Path) -> dict:
    import agentlab

    if variant == "agent":
        run = agentlab.run_agent(client, task.prompt, agentlab.task_tools(notes))
    else:
        run = agentlab.run_workflow(client, list(task.cities), notes, lang=task.lang)
    why = check(task, notes)
    return {
        "success": why is None,
        "why": why or "",
        "stop_reason": run.stop_reason.value,
        "turns": run.model_calls,
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "usd": run.cost_usd,
    }


def read_rows(path: str | Path) -> list[dict]:
    """The rows of a results file, typed; a missing file has none. A last line cut off mid-write (a killed
    eval) is dropped from the file, so the trial runs again; anything else that is not a row is an error
    naming the line and the fix."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return []
    raw = path.read_bytes()
    if not raw.endswith(b"\n"):  # the last row was being written when the eval stopped
        raw = raw[: raw.rfind(b"\n") + 1]
        path.write_bytes(raw)
    lines = raw.decode("utf-8").splitlines()
    header = next(csv.reader(lines[:1]), [])
    if tuple(header) != COLUMNS:
        raise ValueError(
            f"{path} is not an eval results file (its columns: {','.join(header) or 'none'}); "
            "give another --out, or delete it to start again"
        )
    rows = []
    for n, r in enumerate(csv.DictReader(lines), start=2):
        try:
            rows.append(
                {
                    **r,
                    "trial": int(r["trial"]),
                    "success": {"True": True, "False": False}[r["success"]],
                    "turns": int(r["turns"]),
                    "input_tokens": int(r["input_tokens"]),
                    "output_tokens": int(r["output_tokens"]),
                    "usd": float(r["usd"]) if r["usd"] else None,
                }
            )
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path}:{n}: not a row of this eval ({','.join(map(str, r.values()))!r})") from None
    return rows


def run_trials(
    variants: Sequence[str] = VARIANTS,
    trials: int = 20,
    tasks: Sequence[EvalTask] = TASKS,
    out: str | Path | None = None,
    progress: bool = True,
    client: Any = None,
) -> list[dict]:
    """Run ``trials`` trials of each variant on each task (offline: seeds 0..trials-1; or on ``client``); returns
    exactly those rows, the ones already in ``out`` read back (a stopped eval resumes where it was; a row of
    another task, variant or trial in the file is kept there, not returned) and each new one appended as it
    ends. Raises :class:`CapReached` when the client's cap stops a trial."""
    import agentlab
    from agentlab.sim.models.varied import VariedAgent

    variants = list(dict.fromkeys(variants))  # each once, in the order given
    bad = [v for v in variants if v not in VARIANTS]
    if bad or isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(
            f"run_trials(variants={variants!r}, trials={trials!r}): variants are {', '.join(VARIANTS)}, "
            "and trials is a whole number >= 1"
        )
    wanted = [(v, t, i) for v in variants for t in tasks for i in range(trials)]
    mode = "sim" if client is None else getattr(client, "agentlab_mode", "live")
    done = {}
    for r in read_rows(out) if out is not None else []:
        if r["mode"] != mode:
            raise ValueError(f"{out} holds {r['mode']} trials and this eval is {mode}: give another --out")
        done.setdefault((r["variant"], r["task"], r["trial"]), r)  # a repeated row counts once
    policy = VariedAgent(seed=0) if client is None else None
    client = client if client is not None else agentlab.connect("sim", policy=policy, quiet=True)
    todo = [(v, t, i) for v, t, i in wanted if (v, t.id, i) not in done]
    writer = _Appender(out) if out is not None and todo else None
    bar = _bar(len(todo), progress)
    try:
        with tempfile.TemporaryDirectory(prefix="agentlab-eval-") as tmp:
            notes = Path(tmp)
            for variant, task, i in todo:  # bounded: one trial each
                if policy is not None:
                    policy.seed = i
                (notes / "notes.md").unlink(missing_ok=True)  # each trial starts with no note
                row = {"variant": variant, "task": task.id, "trial": i, "mode": mode}
                try:
                    row |= _one(client, variant, task, notes)
                except Exception as e:  # noqa: BLE001  (one trial's crash is that trial's failure, said once)
                    row |= {"success": False, "stop_reason": "", "turns": 0, "input_tokens": 0, "output_tokens": 0}
                    row["usd"] = None  # nothing measured: left out of the means
                    row["why"] = f"{CRASHED}{type(e).__name__}"
                    print(f"agentlab eval: {variant} on {task.id}, trial {i} {row['why']}: {e}", file=sys.stderr)
                if row.get("stop_reason") == "usd_budget":
                    raise CapReached(f"the spending cap refused the next call of {variant} on {task.id}, trial {i}")
                done[(variant, task.id, i)] = row
                if writer is not None:
                    writer.add(row)
                bar.update(1)
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    return [done[(v, t.id, i)] for v, t, i in wanted]


class _Appender:
    """Appends rows to a results file as they come, header first when the file is new."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        new = not path.is_file() or path.stat().st_size == 0
        self.fh = path.open("a", newline="", encoding="utf-8")
        self.writer = csv.DictWriter(self.fh, fieldnames=COLUMNS)
        if new:
            self.writer.writeheader()

    def add(self, row: dict) -> None:
        self.writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in COLUMNS})
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def _bar(total: int, on: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="trials", unit="trial", disable=not on or total == 0, file=sys.stderr)


def summarize(rows: Iterable[dict], k: int = 5):
    """One row a variant (a pandas DataFrame): trials; pass@1 and, for ``k`` > 1, pass@k and pass^k, each the mean
    over tasks with its interval; turns, tokens and USD per trial (crashed trials left out of those means and
    counted apart); tokens and USD per success (all of them spent over the successes); the failures by why."""
    import pandas as pd

    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    out = []
    for variant, g in df.groupby("variant", sort=False):
        outcomes = [list(t["success"]) for _, t in g.groupby("task", sort=False)]
        n_min = min(len(o) for o in outcomes)
        if k > n_min:
            raise ValueError(f"summarize(k={k}): {variant} has only {n_min} trials of some task; give k <= {n_min}")
        ran = g[~g["why"].str.startswith(CRASHED)]
        usd = ran["usd"].sum() if ran["usd"].notna().all() else math.nan  # a model with no price: unknown
        ok = int(g["success"].sum())
        row: dict[str, Any] = {"variant": variant, "trials": len(g), "crashed": len(g) - len(ran)}
        figures = [("pass@1", 1, "pass@k")] + (
            [(f"pass@{k}", k, "pass@k"), (f"pass^{k}", k, "pass^k")] if k > 1 else []
        )
        for name, kk, kind in figures:  # k = 1: pass@1 is all three
            lo, hi = interval(outcomes, kk, kind)
            row[name], row[f"{name} interval"] = over_tasks(outcomes, kk, kind), f"{lo:.3f}-{hi:.3f}"
        fails = g.loc[~g["success"], "why"].value_counts()
        tokens = ran["input_tokens"] + ran["output_tokens"]
        row |= {
            "turns": ran["turns"].mean(),
            "tokens": tokens.mean(),
            "tokens/success": tokens.sum() / ok if ok else math.inf,
            "USD/trial": usd / len(ran) if len(ran) else math.nan,
            "USD/success": usd / ok if ok else math.inf,
            "failures": "; ".join(f"{why} x{n}" for why, n in fails.items()) or "none",
        }
        out.append(row)
    return pd.DataFrame(out).set_index("variant")
