"""What each notebook's live path costs: run every notebook offline, tally the calls it would send live, price them.

    python scripts/live_costs.py [--store DIR]    # writes agentlab/data/live_costs.json, docs/<lang>/live_cost.md
    python scripts/live_costs.py --check [--store DIR]   # exit 1 when the checked-in files differ

Each notebook runs headless in a real kernel through the test suite's notebook store
(``tests/notebook_store.py``: the same run the notebook tests read; ``--store DIR`` keeps it, and
``AGENTLAB_NOTEBOOK_STORE=DIR pytest ...`` reads it back instead of running the notebooks again). Every
``connect()`` that goes live once a key is set tallies its calls (``agentlab.live.costs``); the tally is
priced with genai-prices at the live default model wherever the notebook named no model; its free
``count_tokens`` requests are counted too. A cell that runs only with a key (:data:`KEY_ONLY`) is skipped
offline, so what it sends is measured apart: its function runs here on the simulator through a client that
takes the live path, and its tally joins the notebook's. Both editions run the same code cells, so the
English ones are measured.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)  # the kernels too

from agentlab.live.costs import CONFIRM_ABOVE_USD, TABLE, NotebookCost, measure, read_table, tally_of, write_table  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
TEXT = {
    "en": {
        "title": "# What each notebook costs live",
        "intro": (
            "Measured on the simulator by `scripts/live_costs.py`: each notebook ran offline, and every call "
            "its live path would send (each `connect()` that goes live once `ANTHROPIC_API_KEY` is set; "
            'an experiment\'s own `connect("sim")` stays offline) was counted, then priced at live prices. '
            "Tokens are the simulator's estimates, so the dollars are estimates too; real Claude may take "
            "more or fewer turns. A notebook with 0 calls runs its experiments on scripted simulated models "
            '(`connect("sim", policy=...)`) in every mode; a cell that runs only with a key '
            "(`08b_position_and_length`'s `live_position_check`) is in its notebook's row, measured by running "
            "it on the simulator through the same live code path. **count_tokens calls** go to the free "
            "token-counting endpoint (`connect(count_parts=True)` sends up to five before each paid call): not "
            "billed, but limited in requests per minute by usage tier (100 at tier 1), apart from the limits of "
            "paid calls (https://platform.claude.com/docs/en/build-with-claude/token-counting); at a low tier a "
            "notebook that sends hundreds may have some refused (429), and agentlab then leaves that call's "
            "input unsplit. A test (`tests/test_live_costs.py`) keeps this table equal to a fresh "
            "measurement."
        ),
        "price": "{source}. Default live model (where a notebook names none): `{model}`.",
        "rule": (
            "In live mode a notebook's parameter cell (`use(...)`) prints its row and, when it is expected to "
            "cost more than ${above:.2f} or more than `MAX_USD`, asks you to type `yes` before anything is "
            "sent; `use(..., confirm=True)` or `AGENTLAB_CONFIRM=1` confirms ahead. The session cap "
            "`MAX_USD` still stops before the call that would cross it."
        ),
        "head": "| notebook | paid calls | count_tokens calls | input tokens | output tokens | USD | priced as |",
        "total": "| **all notebooks** | {calls:,} | {counts:,} | {inp:,} | {out:,} | {usd} | |",
    },
    "zh-CN": {
        "title": "# 每个笔记本实时运行的花费",
        "intro": (
            "由 `scripts/live_costs.py` 在模拟器上测得：每个笔记本离线运行一遍，统计它的实时路径会发出的每一次调用"
            '（设置了 `ANTHROPIC_API_KEY` 后会转为实时的每个 `connect()`；实验自己的 `connect("sim")` 始终离线），'
            "再按实时价格计价。token 数是模拟器的估计值，所以金额也是估计值；真实的 Claude 可能多走或少走几轮。"
            '调用次数为 0 的笔记本在任何模式下都用脚本化的模拟模型（`connect("sim", policy=...)`）运行实验；'
            "只在设置了密钥时才运行的单元格（`08b_position_and_length` 的 `live_position_check`）计入所在笔记本的那一行，"
            "测量方法是在模拟器上走同一条实时代码路径运行它。**count_tokens 调用**发往免费的 token 计数端点"
            "（`connect(count_parts=True)` 在每次付费调用前最多发五次）：不收费，但按使用层级限制每分钟请求数（第 1 层为 100 次），"
            "与付费调用的限额分开计算（https://platform.claude.com/docs/zh-CN/build-with-claude/token-counting）；"
            "在低层级下，发出几百次的笔记本可能有一些被拒绝（429），agentlab 会让那次调用的输入不拆分。"
            "测试 `tests/test_live_costs.py` 保证这张表与重新测量的结果一致。"
        ),
        "price": "{source}。默认实时模型（笔记本未指定模型时）：`{model}`。",
        "rule": (
            "在实时模式下，笔记本的参数单元格（`use(...)`）会打印这一行；预计花费超过 ${above:.2f} 或超过 `MAX_USD` 时，"
            "会先请你输入 `yes` 再发送任何请求；`use(..., confirm=True)` 或 `AGENTLAB_CONFIRM=1` 可事先确认。"
            "会话上限 `MAX_USD` 仍会在越过上限的那次调用之前停下。"
        ),
        "head": "| 笔记本 | 付费调用 | count_tokens 调用 | 输入 token | 输出 token | 美元 | 计价模型 |",
        "total": "| **全部笔记本** | {calls:,} | {counts:,} | {inp:,} | {out:,} | {usd} | |",
    },
}
"""The page's text in each language; the numbers come from the table."""
KEY_ONLY = {"08b_position_and_length": "agentlab.experiments.position:live_position_check"}
"""Notebooks with a cell that runs only with a key (offline it is skipped), and the function that cell calls
with the notebook's client; ``tests/test_live_costs.py`` checks that no other notebook has such a cell."""


def key_only_tally(notebook: str) -> list[dict]:
    """What ``notebook``'s key-only cell sends live (:data:`KEY_ONLY`), as tally rows: its function run here on
    the simulator through ``connect("live", transport=...)``, the path the cell's client takes with a key."""
    if notebook not in KEY_ONLY:
        return []
    import importlib

    from agentlab.client import connect
    from agentlab.sim.server import Simulator

    module, name = KEY_ONLY[notebook].split(":")
    check = getattr(importlib.import_module(module), name)
    client = connect("live", api_key="offline-measurement", transport=Simulator().transport(), quiet=True)
    return tally_of(lambda: check(client))


def notebook_cost(notebook: str, rows: list[dict], default: str) -> NotebookCost:
    """``notebook``'s row: its offline run's tally ``rows`` with its key-only cell's added, priced."""
    return measure(notebook, rows + key_only_tally(notebook), default)


def usd(value: float | None) -> str:
    """Dollars as the page shows them; an unpriced model shows as unknown, never $0."""
    if value is None:
        return "unknown"
    return "< $0.0001" if 0 < value < 0.00005 else f"${value:.4f}"


def page(table: dict, lang: str) -> str:
    """``docs/<lang>/live_cost.md`` for the measured table."""
    t, rows = TEXT[lang], [NotebookCost(**r) for r in table["notebooks"]]
    lines = [
        t["title"],
        "",
        t["intro"],
        "",
        t["price"].format(source=table["price_source"], model=table["default_model"]),
        "",
        t["rule"].format(above=CONFIRM_ABOVE_USD),
        "",
        t["head"],
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r.notebook}` | {r.calls:,} | {r.count_tokens:,} | {r.input_tokens:,} | {r.output_tokens:,} | "
            f"{usd(r.usd)} | {', '.join(f'`{m}`' for m in r.models) or '-'} |"
        )
    total = None if any(r.usd is None for r in rows) else sum(r.usd for r in rows)
    lines.append(
        t["total"].format(
            calls=sum(r.calls for r in rows),
            counts=sum(r.count_tokens for r in rows),
            inp=sum(r.input_tokens for r in rows),
            out=sum(r.output_tokens for r in rows),
            usd=usd(total),
        )
    )
    return "\n".join(lines) + "\n"


def measure_all(store_folder: Path) -> tuple[list[NotebookCost], str, str]:
    """Run (or read from the store) every English notebook; its measured cost, the default model, the price source."""
    from notebook_store import NotebookStore

    from agentlab.live.spend import cheapest_model
    from agentlab.meter.prices import price_source

    store, default, costs = NotebookStore(store_folder), cheapest_model(), []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        done = store.get(path)
        if done.error:
            raise SystemExit(f"{path.name} failed, so its cost cannot be measured:\n{done.error[:2000]}")
        costs.append(notebook_cost(path.stem, done.live_tally(), default))
        print(
            f"{path.stem}: {costs[-1].calls} calls, {costs[-1].count_tokens} count_tokens, {usd(costs[-1].usd)}",
            file=sys.stderr,
        )
    return costs, default, price_source()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the checked-in files instead of writing")
    ap.add_argument("--store", type=Path, help="the notebook store folder to fill or read (default: a temp folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentlab-live-costs-") as tmp:
        costs, default, source = measure_all(args.store or Path(tmp))
    fresh = Path(tempfile.mkstemp(suffix=".json")[1])
    write_table(costs, default, source, fresh)
    table = read_table(fresh)
    fresh.unlink()
    targets = {TABLE: TABLE.parent, **{DOCS / lang / "live_cost.md": lang for lang in TEXT}}
    wanted = {
        path: (page(table, key) if isinstance(key, str) and key in TEXT else None) for path, key in targets.items()
    }
    if args.check:
        stale = [
            p
            for p in targets
            if not p.exists() or (read_table(p) != table if p == TABLE else p.read_text("utf-8") != wanted[p])
        ]
        for p in stale:
            print(
                f"{p.relative_to(ROOT)} differs from a fresh measurement: run python scripts/live_costs.py",
                file=sys.stderr,
            )
        return 1 if stale else 0
    write_table(costs, default, source)
    for path, text in wanted.items():
        if text is not None:
            path.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE.relative_to(ROOT)} and docs/*/live_cost.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
