"""Start-up cost: how long a newcomer waits for `python -m agentlab compare` and a notebook's first cell.

Each command runs in a fresh interpreter, ``--repeat`` times; the script prints the best CPU time
(user + sys of the child: less sensitive to a busy machine than wall time) and the best wall time,
and each as a ratio to the floor measured in the same run: a bare interpreter and ``import anthropic``
(the SDK every path needs). Targets (issue 23), in CPU time against ``import anthropic`` measured in the
same run: ``agentlab compare`` (its text table) at most 1.3x, a notebook's first cell at most 1.5x.
``compare --png`` (the table and the figure, which needs matplotlib) is shown beside it, without a target.

    .venv/bin/python benchmarks/startup.py                      # this checkout
    .venv/bin/python benchmarks/startup.py --repo /tmp/before   # another checkout, same interpreter

Prints figures only; asserts nothing (tests assert no wall-clock time).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"compare": 1.3, "notebook": 1.5}
"""Most CPU time a command may take, as a multiple of ``import anthropic`` in the same run, by kind of command."""


def first_cell(notebook: Path) -> str:
    """What a student runs first: the parameter cell (tagged ``parameters``) and the first code cell after it,
    with IPython magics dropped."""
    cells = [c for c in json.loads(notebook.read_text("utf-8"))["cells"] if c["cell_type"] == "code"]
    n = next(i for i, c in enumerate(cells) if "parameters" not in c.get("metadata", {}).get("tags", []))
    src = "\n".join("".join(c["source"]) for c in cells[: n + 1])
    return "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!")))


def timed(argv: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])}... failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repo", type=Path, default=Path(__file__).resolve().parents[1], help="checkout to measure (default: this one)"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per command; the best is kept (default 3)")
    args = ap.parse_args()
    repo = args.repo.resolve()
    env = {**os.environ, "PYTHONPATH": str(repo), "MPLBACKEND": "Agg"}
    env.pop("ANTHROPIC_API_KEY", None)
    tmp = Path(tempfile.mkdtemp(prefix="agentlab-startup-"))
    py = sys.executable
    commands = {
        "python (floor)": ("floor", [py, "-c", "pass"]),
        "import anthropic (floor)": ("floor", [py, "-c", "import anthropic"]),
        "python -m agentlab compare": ("compare", [py, "-m", "agentlab", "compare", "--out", str(tmp / "runs")]),
        "python -m agentlab compare --png": (
            "figure",
            [py, "-m", "agentlab", "compare", "--out", str(tmp / "runs"), "--png", str(tmp / "compare.png")],
        ),
    }
    for nb in sorted((repo / "notebooks").glob("*.ipynb")):
        commands[f"{nb.stem}: first cell"] = ("notebook", [py, "-c", first_cell(nb)])
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, (_, argv) in commands.items():
            cpu, wall = timed(argv, tmp, env)
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], cpu), min(old[1], wall))
    sdk_cpu = best["import anthropic (floor)"][0]
    print(f"repo: {repo}   best of {args.repeat}")
    print(f"{'command':34} {'cpu s':>7} {'wall s':>7} {'cpu / import anthropic':>23} {'target':>10}")
    for name, (kind, _) in commands.items():
        cpu, wall = best[name]
        target = TARGETS.get(kind)
        ratio = cpu / sdk_cpu
        verdict = "" if target is None else (f"<={target:g}x ok" if ratio <= target else f">{target:g}x MISS")
        print(f"{name:34} {cpu:7.2f} {wall:7.2f} {ratio:23.2f} {verdict:>10}")


if __name__ == "__main__":
    main()
