"""Published numbers, cited: read from ``agentlab/data/published/*.json``, never simulated.

Each file names its source (title, year, URL, version) and the exact table or figure each number was
read from, and says what is missing. The lab plots these beside what it can measure itself.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

FOLDER = Path(str(resources.files("agentlab"))) / "data" / "published"  # the package's data, wherever this module lives
"""Where the cited data files live."""


@lru_cache(maxsize=None)
def published(name: str) -> dict:
    """The cited data set ``name`` (``"lost_in_the_middle"``, ``"context_rot"``, ``"multi_agent_tokens"``)."""
    path = FOLDER / f"{name}.json"
    if not path.exists():
        have = ", ".join(sorted(p.stem for p in FOLDER.glob("*.json")))
        raise ValueError(f"published(name={name!r}): no such data set; available: {have}")
    return json.loads(path.read_text(encoding="utf-8"))


def citation(name: str) -> str:
    """One line: title, publisher or authors, year, URL."""
    src = published(name)["source"]
    who = src.get("publisher") or src.get("authors", "").split(",")[0] + " et al."
    return f"{src['title']} ({who}, {src['year']}), {src['url']}"


def lost_in_the_middle_table():
    """Accuracy (%) by gold position at 20 documents, one row per model, with closed-book and oracle."""
    import pandas as pd

    data = published("lost_in_the_middle")
    acc, base = data["position_accuracy_20_documents"], data["closed_book_and_oracle"]["models"]
    rows = {
        m: {
            **{f"position {p}": v for p, v in zip(acc["positions"], vals)},
            "closed-book": base[m]["closed_book"],
            "oracle": base[m]["oracle"],
        }
        for m, vals in acc["models"].items()
    }
    return pd.DataFrame(rows).T


def longmemeval_accuracy() -> dict[str, float]:
    """GPT-4.1 on LongMemEval in Chroma's shipped results: percent correct, focused and full input."""
    d = published("context_rot")["longmemeval_gpt_4_1"]
    return {k: round(100 * d[k]["correct"] / d[k]["questions"], 1) for k in ("focused", "full")}
