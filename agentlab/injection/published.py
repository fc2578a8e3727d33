"""Published prompt-injection numbers (AgentDojo, CaMeL, spotlighting), read from a cited data file.

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
    """One source by id (``"agentdojo"``, ``"camel"``, ``"spotlighting"``)."""
    for s in published()["sources"]:
        if s["id"] == id_:
            return s
    raise ValueError(f"published source {id_!r}: no such source; choose one of "
                     f"{', '.join(s['id'] for s in published()['sources'])}")


def published_table() -> list[dict]:
    """One row per published number: source, version, what, value, unit, where it is stated."""
    return [{"source": s["title"], "version": s["version"], "what": n["what"], "value": n["value"], "unit": n["unit"],
             "where": n["where"], "url": s["url"]} for s in published()["sources"] for n in s["numbers"]]


def missing() -> list[str]:
    """What we looked for and could not read, source by source."""
    return [f"{s['id']}: {m}" for s in published()["sources"] for m in s.get("missing", [])]
