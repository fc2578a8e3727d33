"""Many trials of each variant over the task set, one row a trial, and the figures a reader compares.

    rows = run_trials(["agent", "workflow"], trials=20, out="eval.csv")   # resumable: a row per finished trial
    table = summarize(rows, k=5)                                           # pass@1, pass@k, pass^k, cost per success

Offline, trial ``i`` of a variant runs on the simulator with ``VariedAgent(seed=i)``: the careful agent with
seeded variation (``agentlab/sim/models/varied.py``), whose rates are stand-ins, so every figure here is a
result of how our scripted model is written, not a measurement of Claude. The same seeds give the same
rows. Each trial gets its own notes folder; :func:`agentlab.evals.tasks.check` grades its outcome.
"""

from __future__ import annotations

import csv
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from agentlab.evals.estimators import bootstrap, over_tasks, wilson
from agentlab.evals.tasks import TASKS, EvalTask, check

VARIANTS = ("agent", "workflow")
"""What a trial can run: ``run_agent`` with the task's tools, or the city task's fixed-path workflow."""
COLUMNS = ("variant", "task", "trial", "success", "why", "stop_reason", "turns", "input_tokens", "output_tokens", "usd")
"""The results' columns, one row a trial: a tidy table (``pandas.read_csv`` reads it as it is)."""


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
    """The rows of a results file, typed (a missing file: none)."""
    path = Path(path)
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["trial"], r["turns"] = int(r["trial"]), int(r["turns"])
        r["input_tokens"], r["output_tokens"] = int(r["input_tokens"]), int(r["output_tokens"])
        r["success"], r["usd"] = r["success"] == "True", float(r["usd"]) if r["usd"] else None
    return rows


def run_trials(
    variants: Sequence[str] = VARIANTS,
    trials: int = 20,
    tasks: Sequence[EvalTask] = TASKS,
    out: str | Path | None = None,
    progress: bool = True,
) -> list[dict]:
    """Run ``trials`` trials of each variant on each task (offline, seeds 0..trials-1); every row, finished ones
    read back from ``out`` first (so a stopped eval resumes where it was) and each new one appended as it ends."""
    import agentlab
    from agentlab.sim.models.varied import VariedAgent

    bad = [v for v in variants if v not in VARIANTS]
    if bad or isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(
            f"run_trials(variants={list(variants)!r}, trials={trials!r}): variants are {', '.join(VARIANTS)}, "
            "and trials is a whole number >= 1"
        )
    rows = read_rows(out) if out is not None else []
    done = {(r["variant"], r["task"], r["trial"]) for r in rows}
    todo = [(v, t, i) for v in variants for t in tasks for i in range(trials) if (v, t.id, i) not in done]
    policy = VariedAgent(seed=0)
    client = agentlab.connect("sim", policy=policy, quiet=True)
    writer = _Appender(out) if out is not None else None
    bar = _bar(len(todo), progress)
    try:
        for variant, task, i in todo:  # bounded: one trial each
            policy.seed = i
            row = {"variant": variant, "task": task.id, "trial": i}
            with tempfile.TemporaryDirectory(prefix="agentlab-eval-") as notes:
                try:
                    row |= _one(client, variant, task, Path(notes))
                except Exception as e:  # noqa: BLE001  (one trial's crash is that trial's failure, said once)
                    row |= dict.fromkeys(COLUMNS[5:], 0) | {"success": False, "why": f"raised {type(e).__name__}"}
                    row["usd"] = None
                    print(
                        f"agentlab eval: {variant} on {task.id}, trial {i} raised {type(e).__name__}: {e}",
                        file=sys.stderr,
                    )
            rows.append(row)
            if writer is not None:
                writer.add(row)
            bar.update(1)
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    return rows


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
    """One row a variant (a pandas DataFrame): trials, pass@1 with its 95% interval, pass@k and pass^k (``k``
    of a task's trials) with theirs, mean turns and tokens, USD per trial and per success, and the failures by why."""
    import pandas as pd

    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    out = []
    for variant, g in df.groupby("variant", sort=False):
        outcomes = [list(t["success"]) for _, t in g.groupby("task", sort=False)]
        n_min = min(len(o) for o in outcomes)
        if k > n_min:
            raise ValueError(f"summarize(k={k}): {variant} has only {n_min} trials of some task; give k <= {n_min}")
        ok = int(g["success"].sum())
        lo, hi = wilson(ok, len(g))
        at_lo, at_hi = bootstrap(outcomes, k, "pass@k")
        all_lo, all_hi = bootstrap(outcomes, k, "pass^k")
        usd = g["usd"].sum() if g["usd"].notna().all() else float("nan")
        fails = g.loc[~g["success"], "why"].value_counts()
        out.append(
            {
                "variant": variant,
                "trials": len(g),
                "pass@1": ok / len(g),
                "pass@1 95%": f"{lo:.2f}-{hi:.2f}",
                f"pass@{k}": over_tasks(outcomes, k, "pass@k"),
                f"pass@{k} 95%": f"{at_lo:.2f}-{at_hi:.2f}",
                f"pass^{k}": over_tasks(outcomes, k, "pass^k"),
                f"pass^{k} 95%": f"{all_lo:.2f}-{all_hi:.2f}",
                "turns": g["turns"].mean(),
                "tokens": (g["input_tokens"] + g["output_tokens"]).mean(),
                "USD/trial": usd / len(g),
                "USD/success": usd / ok if ok else float("inf"),
                "failures": "; ".join(f"{why} x{n}" for why, n in fails.items()) or "none",
            }
        )
    return pd.DataFrame(out).set_index("variant")
