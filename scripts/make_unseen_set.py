"""Build ``agentlab/sim/data/unseen.json.gz``: recorded real Anthropic traffic from public projects the
estimator was NOT fitted on, to measure its error out of sample (``agentlab calibrate --split unseen``).

The estimator's figures are fitted on the ``fit`` half of pydantic/pydantic-ai's cassettes
(``scripts/make_calibration_set.py``, ``scripts/fit_calibration.py``). Every source here is one the fit
never saw: its error is a leave-one-source-out figure. Each source keeps its provenance (repository,
commit, licence, the cassettes read) and counts what it left out.

Kept, per ``POST api.anthropic.com/v1/messages`` (and ``/count_tokens``) interaction: the source, the
cassette's path, the interaction's index, the endpoint, the model, the request body, the answer's status,
real usage, content block types, stop reason or error, as ``make_calibration_set.py`` keeps them. No
header is kept; credential-shaped fields are replaced and the script fails on any key-shaped text left.

Real traffic only: an interaction counts when its answer shows it came from the API: a server header
(``request-id``, ``anthropic-ratelimit-*``, ``cf-ray``, ``cf-cache-status``) or, where a project strips headers, a message id of
the API's shape (``msg_`` and 24 letters and digits). Hand-written fixtures (``msg_123``, no headers) are
left out and counted, by source; so are requests to models before Claude 4, which the simulator does not
model (their profiles are retired stand-ins).

Usage (git mirrors of the repositories, e.g. from ``git clone --mirror``)::

    python scripts/make_unseen_set.py posit-dev/chatlas=/path/chatlas.git[@COMMIT] Arize-ai/openinference=/path/oi.git

A source too large to mirror may be given as a folder of copies instead (``owner/name=FOLDER``): its files at
their paths in the repository, its ``LICENSE``, and ``provenance.json`` (``{"commit": the newest,
"committed": its date, "commits": {path: commit}, "copied": how}``). Its cassettes are http-recorder JSON, as anomalyco/opencode's are
(``{"interactions": [{"request": {"url", "body"}, "response": {"status", "body"}}]}``, bodies as text, no
headers kept). ``--keep`` keeps the sources already in the set that the command line does not name.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_calibration_set import SECRET_TEXT, answer, git, scrub  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "agentlab" / "sim" / "data" / "unseen.json.gz"
LICENCE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt")
SERVER_HEADERS = re.compile(r"^(request-id|anthropic-ratelimit-.*|cf-ray|cf-cache-status)$", re.I)
API_MESSAGE_ID = re.compile(r'"(id"\s*:\s*"msg|request_id"\s*:\s*"req)_[A-Za-z0-9]{24}"')
"""A message id of the API's shape, or an error body's request id (a 400 answered by the API names one)."""
ENDPOINTS = ("https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/messages/count_tokens")
OLDER = re.compile(r"^claude-(2|3|instant)")
"""Models before Claude 4: the simulator does not model them (their profiles are retired stand-ins)."""


def _real(response: dict, raw: str) -> bool:
    """True when the answer shows it came from the API (see the module docstring)."""
    headers = response.get("headers") or {}
    return any(SERVER_HEADERS.match(str(k)) for k in headers) or bool(API_MESSAGE_ID.search(raw or ""))


def _raw(response: dict) -> str:
    body = response.get("body")
    body = body.get("string") if isinstance(body, dict) else body
    return body if isinstance(body, str) else json.dumps(response.get("parsed_body") or {})


def _body(request: dict) -> dict | None:
    """The request's JSON body, or None."""
    body = request.get("parsed_body")
    if body is None and isinstance(request.get("body"), str):
        try:
            body = json.loads(request["body"])
        except ValueError:
            body = None
    return body if isinstance(body, dict) else None


def _kept(repo: str, path: str, interactions: list, left_out: Counter, **more) -> list[dict]:
    """The records of one cassette's ``(uri, request body, vcrpy-shaped response)`` interactions; what is left
    out is counted in ``left_out`` (``fixtures``: no sign of the API's server; ``older``: before Claude 4)."""
    records = []
    for i, (uri, body, res) in enumerate(interactions):
        if uri.split("?")[0] not in ENDPOINTS or body is None:  # not a batch, a file or a model listing
            continue
        raw = _raw(res)
        if not _real(res, raw):
            left_out["fixtures"] += 1
            continue
        if OLDER.match(str(body.get("model", ""))):
            left_out["older"] += 1
            continue
        if res.get("parsed_body") is None and raw.lstrip().startswith("{"):
            try:
                res = {**res, "parsed_body": json.loads(raw)}
            except ValueError:
                pass
        records.append(
            {
                "source": repo,
                "cassette": path,
                **more,
                "index": i,
                "split": "unseen",
                "endpoint": "count_tokens" if "/count_tokens" in uri else "messages",
                "beta": "beta=true" in uri,
                "model": body.get("model"),
                "request": scrub(body),
                **answer(res),
            }
        )
    return records


def records_of(repo: str, gitdir: str, commit: str) -> tuple[list[dict], dict]:
    """The kept records of one source, and its provenance with what it left out."""
    files = sorted(
        f
        for f in git(gitdir, "ls-tree", "-r", "--name-only", commit).splitlines()
        if ("/cassettes/" in f or "/_vcr/" in f) and f.endswith((".yaml", ".yml"))
    )
    records, left_out, cassettes = [], Counter(), []
    for path in files:
        text = git(gitdir, "show", f"{commit}:{path}")
        if "api.anthropic.com/v1/messages" not in text:
            continue
        interactions = [
            (str((it.get("request") or {}).get("uri", "")), _body(it.get("request") or {}), it.get("response") or {})
            for it in (yaml.safe_load(text) or {}).get("interactions") or []
        ]
        got = _kept(repo, path, interactions, left_out)
        records += got
        cassettes += [path] if got else []
    licence = next(
        (git(gitdir, "show", f"{commit}:{name}") for name in LICENCE_FILES if _has(gitdir, commit, name)), ""
    )
    if not licence:
        raise SystemExit(f"{repo}: no licence file at {commit[:12]}: leave the source out")
    provenance = {
        "repository": f"https://github.com/{repo}",
        "commit": commit,
        "committed": git(gitdir, "log", "-1", "--format=%cs", commit).strip(),
        "licence": licence,
        "cassettes": cassettes,
        "kept": len(records),
        "left_out_no_server_evidence": left_out["fixtures"],
        "left_out_before_claude_4": left_out["older"],
    }
    return records, provenance


def copies_of(repo: str, folder: Path) -> tuple[list[dict], dict]:
    """The kept records of a source given as a folder of copies (http-recorder JSON), with its provenance."""
    about = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
    records, left_out, cassettes = [], Counter(), []
    for path, commit in sorted(about["commits"].items()):
        interactions = [
            (
                str((it.get("request") or {}).get("url", "")),
                _body(it.get("request") or {}),
                {
                    "status": {"code": int((it.get("response") or {}).get("status", 0))},
                    "body": (it.get("response") or {}).get("body"),
                },
            )
            for it in json.loads((folder / path).read_text(encoding="utf-8")).get("interactions") or []
        ]
        got = _kept(repo, path, interactions, left_out, commit=commit)
        records += got
        cassettes += [path] if got else []
    provenance = {
        "repository": f"https://github.com/{repo}",
        "commit": about["commit"],
        "commits": about["commits"],
        "committed": about["committed"],
        "copied": about["copied"],
        "licence": (folder / "LICENSE").read_text(encoding="utf-8"),
        "cassettes": cassettes,
        "kept": len(records),
        "left_out_no_server_evidence": left_out["fixtures"],
        "left_out_before_claude_4": left_out["older"],
    }
    return records, provenance


def _has(gitdir: str, commit: str, name: str) -> bool:
    return subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", f"{commit}:{name}"]).returncode == 0


def main(*sources: str) -> None:
    keep = "--keep" in sources
    sources = tuple(s for s in sources if s != "--keep")
    if not sources:
        raise SystemExit(__doc__)
    records, provenance = [], []
    for spec in sources:
        repo, _, where = spec.partition("=")
        if Path(where, "provenance.json").is_file():
            got, prov = copies_of(repo, Path(where))
        else:
            gitdir, _, commit = where.partition("@")
            got, prov = records_of(repo, gitdir, git(gitdir, "rev-parse", commit or "HEAD").strip())
        records += got
        provenance.append(prov)
        print(
            f"{repo} {prov['commit'][:12]}: {prov['kept']} interactions from {len(prov['cassettes'])} cassettes, "
            f"left out: {prov['left_out_no_server_evidence']} with no sign of the API's server, "
            f"{prov['left_out_before_claude_4']} on models before Claude 4"
        )
    if keep:  # the sources already in the set that this run does not name stay as they are
        named = {p["repository"] for p in provenance}
        old = json.loads(gzip.decompress(OUT.read_bytes()))
        provenance = [p for p in old["sources"] if p["repository"] not in named] + provenance
        records = [r for r in old["records"] if f"https://github.com/{r['source']}" not in named] + records
    dump = json.dumps(records, ensure_ascii=False, sort_keys=True)
    leaks = SECRET_TEXT.findall(dump)
    if leaks:
        raise SystemExit(f"credential-shaped text left in the set: {leaks[:3]} (extend scrub())")
    data = {
        "about": "Recorded real traffic from public projects the estimator was not fitted on (leave-one-source-out).",
        "version_assumed": "2023-06-01 (no header is kept; the SDKs of these projects send this version)",
        "sources": provenance,
        "records": records,
    }
    OUT.write_bytes(gzip.compress(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0).encode(), mtime=0))
    print(f"{len(records)} interactions -> {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(*sys.argv[1:])
