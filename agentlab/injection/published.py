"""Published prompt-injection numbers (AgentDojo, CaMeL, spotlighting), read from a cited data file.

AgentDojo's per-model and per-defence table is read from a reprint of its results page (the page
itself was not reachable): the data file names the reprint, its commit, and marks it ``secondary``.

The lab's own matrix comes from a gullible simulated model: it shows what the harness lets through,
never how often a real model obeys. What real models do is cited here, each number with its source,
version and the place in the source it comes from (``agentlab/data/injection_published.json``).
A number we could not read is listed under ``missing``, never filled in.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def published() -> dict:
    """The whole data file (sources, their numbers, what is missing)."""
    return json.loads(resources.files("agentlab").joinpath("data/injection_published.json").read_text("utf-8"))


def source(id_: str) -> dict:
    """One source by id (``"agentdojo"``, ``"agentdojo_results"``, ``"camel"``, ``"spotlighting"``)."""
    for s in published()["sources"]:
        if s["id"] == id_:
            return s
    raise ValueError(
        f"published source {id_!r}: no such source; choose one of {', '.join(s['id'] for s in published()['sources'])}"
    )


def published_table() -> list[dict]:
    """One row per published number: source, version, what, value, unit, where it is stated."""
    return [
        {
            "source": s["title"],
            "version": s["version"],
            "what": n["what"],
            "value": n["value"],
            "unit": n["unit"],
            "where": n["where"],
            "url": s["url"],
        }
        for s in published()["sources"]
        for n in s["numbers"]
    ]


def agentdojo_rows(model: str | None = None) -> list[dict]:
    """AgentDojo's results table as rows: model, defence, attack, and its three metrics in percent.

    Read from a reprint of the results page (``secondary`` in the data file says so); each row keeps
    the reprint's model and defence names."""
    rows: dict[tuple[str, str, str], dict] = {}
    for n in source("agentdojo_results")["numbers"]:
        key = (n["model"], n["defence"], n["attack"])
        rows.setdefault(key, {"model": key[0], "defence": key[1], "attack": key[2]})[n["metric"] + " %"] = n["value"]
    out = list(rows.values())
    return [r for r in out if r["model"] == model] if model is not None else out


def missing() -> list[str]:
    """What we looked for and could not read, source by source."""
    return [f"{s['id']}: {m}" for s in published()["sources"] for m in s.get("missing", [])]
