"""Build ``agentlab/data/real_runs/``: three real Claude runs of a weather-tool task, as vcrpy cassettes the
lab's replay mode plays (``agentlab.experiments.real_runs``), from pydantic/pydantic-ai's test cassettes (MIT).

Each is a whole agent run recorded against the real API by pydantic-ai's test suite: the task, the model's
``tool_use`` reply, the tool results pydantic-ai sent back, and the model's final answer, with the API's
real ``usage``. What this script changes, and nothing else:

- ids: every ``toolu_...`` and ``msg_...`` id is replaced by ``toolu_real_<run>_<k>`` / ``msg_real_<run>_<k>``
  (the same id everywhere it occurs, so the conversation still ties each result to its request);
- the URL: pydantic-ai called ``/v1/messages?beta=true`` (the SDK's beta namespace); the query is dropped so
  the lab's ``client.messages.create`` matches it;
- headers: only ``content-type`` is kept (the originals hold cookies and rate-limit details).

Usage (a git mirror of the repository, e.g. ``git clone --mirror``; the commit is pinned)::

    python scripts/make_real_runs.py /path/to/pydantic-ai.git

Only ``pyyaml`` and ``vcrpy`` are needed (both locked); the output is deterministic.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = "pydantic/pydantic-ai"
COMMIT = "4fda38988f2939fa6ea9cdefcf120693e10ef491"  # the commit the calibration set was built from
OUT = Path(__file__).resolve().parent.parent / "agentlab" / "data" / "real_runs"
RUNS = {
    "paris": "tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[auto-anthropic].yaml",
    "amsterdam": "tests/models/anthropic/cassettes/test_output/test_unsupported_strict_true_tool_no_output.yaml",
    "denver": "tests/models/anthropic/cassettes/test_output/test_mixed_tools_no_output.yaml",
}
IDS = re.compile(r"\b(toolu|msg)_[A-Za-z0-9]{8,}\b")


def _show(mirror: Path, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), "show", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _licence(mirror: Path) -> str:
    return _show(mirror, "LICENSE")


def _body(part: dict) -> dict:
    """A request's or response's JSON body, as pydantic-ai's cassettes keep it (``parsed_body``, or vcrpy's string)."""
    if "parsed_body" in part:
        return part["parsed_body"]
    return json.loads(part["body"]["string"] if isinstance(part["body"], dict) else part["body"])


def convert(name: str, text: str) -> tuple[list[dict], dict]:
    """The run's interactions as vcrpy writes them, and what the run is (model, turns, usage)."""
    from vcr.request import Request
    from vcr.serializers import compat

    recorded = yaml.safe_load(text)["interactions"]
    seen: dict[str, str] = {}

    def new_id(m: re.Match) -> str:
        if m.group(0) not in seen:
            count = sum(1 for v in seen.values() if v.startswith(m.group(1)))
            seen[m.group(0)] = f"{m.group(1)}_real_{name}_{count + 1}"
        return seen[m.group(0)]

    out, usage = [], []
    for it in recorded:
        req, resp = it["request"], it["response"]
        if not req["uri"].split("?")[0].endswith("/v1/messages") or resp["status"]["code"] != 200:
            raise SystemExit(f"{name}: expected only successful POST /v1/messages, found {req['uri']}")
        request_body = IDS.sub(new_id, json.dumps(_body(req), ensure_ascii=False, sort_keys=True))
        response_body = IDS.sub(new_id, json.dumps(_body(resp), ensure_ascii=False))
        vreq = Request(
            "POST", "https://api.anthropic.com/v1/messages", request_body.encode(), {"content-type": "application/json"}
        )
        out.append(
            {
                "request": compat.convert_to_unicode(vreq._to_dict()),
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["application/json"]},
                    "body": {"string": response_body},
                },
            }
        )
        usage.append(json.loads(response_body)["usage"])
    if IDS.search(json.dumps(out)):
        raise SystemExit(f"{name}: an original id is left")
    first = json.loads(out[0]["request"]["body"])
    return out, {"model": first["model"], "calls": len(out), "usage": usage}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    from vcr.serializers import yamlserializer

    mirror = Path(argv[0])
    OUT.mkdir(parents=True, exist_ok=True)
    sources = {
        "repository": f"https://github.com/{REPO}",
        "commit": COMMIT,
        "licence": "MIT",
        "licence_text": _licence(mirror),
        "changed": [
            "every toolu_/msg_ id replaced by toolu_real_<run>_<k> / msg_real_<run>_<k>",
            "the URL's ?beta=true query dropped (pydantic-ai called the SDK's beta namespace)",
            "headers: only content-type kept",
        ],
        "runs": {},
    }
    for name, path in RUNS.items():
        interactions, about = convert(name, _show(mirror, path))
        (OUT / f"{name}.yaml").write_text(yamlserializer.serialize({"interactions": interactions, "version": 1}))
        sources["runs"][name] = {"path": path, **about}
        print(f"{name}: {about['calls']} calls on {about['model']} from {path}")
    (OUT / "sources.json").write_text(json.dumps(sources, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
