"""Build ``agentlab/sim/data/calibration.json.gz`` from the vcrpy cassettes of pydantic/pydantic-ai (MIT).

Real Anthropic API traffic: each interaction of a cassette records the request body the client sent
and the API's answer, with its real ``usage``. This script keeps, for every ``POST
api.anthropic.com/v1/messages`` (and ``/count_tokens``) interaction: the cassette's path, the
interaction's index, the endpoint, the model, the request body, the answer's status, its real usage
(and, for streams, the ``message_start`` usage), the answer's content blocks or error. No request or
response header is kept (the cassettes' headers hold cookies and, before filtering, keys), and body
fields that could hold a credential (``authorization_token``, ``api_key``...) are replaced by
``"<removed>"``; the script fails if anything that looks like a key is left.

Split: every interaction of one cassette goes to the same side (a conversation's turns are not
independent), ``held_out`` when the first byte of sha256(cassette path) is odd, else ``fit``.

Usage (needs a git mirror of the repository, e.g. from ``git clone --mirror``)::

    python scripts/make_calibration_set.py /path/to/pydantic-ai.git [COMMIT]

Only ``pyyaml`` is needed (vcrpy's own dependency); the output is deterministic for a commit.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = "pydantic/pydantic-ai"
OUT = Path(__file__).resolve().parent.parent / "agentlab" / "sim" / "data" / "calibration.json.gz"
SECRET_KEYS = re.compile(r"(authorization|api[_-]?key|secret|password|cookie|^token$|_token$)", re.I)
SECRET_TEXT = re.compile(
    r"(sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9]{20,}|Bearer\s+[A-Za-z0-9._-]{12,}|AKIA[0-9A-Z]{16})"
)
USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
    "server_tool_use",
)


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True, text=True).stdout


def scrub(value):
    """``value`` with every credential-shaped field replaced."""
    if isinstance(value, dict):
        return {
            k: ("<removed>" if SECRET_KEYS.search(k) and not k.endswith("_tokens") and isinstance(v, str) else scrub(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def sse_events(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("data:"):
            try:
                out.append(json.loads(line[5:]))
            except json.JSONDecodeError:
                pass
    return out


def _usage(u: dict | None) -> dict | None:
    return None if not isinstance(u, dict) else {k: u[k] for k in USAGE_KEYS if k in u}


def answer(response: dict) -> dict:
    """Status, final usage, message_start usage (streams), content block types and text, or the error."""
    status = response["status"]["code"]
    out: dict = {"status": status}
    parsed = response.get("parsed_body")
    raw = response.get("body")
    raw = raw.get("string") if isinstance(raw, dict) else raw
    if parsed is None and isinstance(raw, str):
        events = sse_events(raw)
        if events:
            start = next((e["message"] for e in events if e.get("type") == "message_start"), {})
            delta = [e for e in events if e.get("type") == "message_delta"]
            usage = dict(start.get("usage") or {})
            if delta:
                usage.update(delta[-1].get("usage") or {})
            blocks = [e["content_block"] for e in events if e.get("type") == "content_block_start"]
            out.update(
                usage=_usage(usage),
                start_usage=_usage(start.get("usage")),
                stream=True,
                content=[{"type": b.get("type"), **({"name": b["name"]} if "name" in b else {})} for b in blocks],
                stop_reason=(delta[-1].get("delta") or {}).get("stop_reason") if delta else None,
            )
            return out
        parsed = None
    if isinstance(parsed, dict):
        if "error" in parsed:
            out["error"] = parsed["error"]
        if "input_tokens" in parsed and "usage" not in parsed:  # count_tokens
            out["usage"] = {"input_tokens": parsed["input_tokens"]}
        elif "usage" in parsed:
            out["usage"] = _usage(parsed["usage"])
            out["content"] = [
                {
                    "type": b.get("type"),
                    **({"name": b["name"]} if "name" in b else {}),
                    **({"text": b["text"]} if b.get("type") == "text" else {}),
                }
                for b in parsed.get("content") or []
                if isinstance(b, dict)
            ]
            out["stop_reason"] = parsed.get("stop_reason")
    return out


def main(gitdir: str, commit: str = "HEAD") -> None:
    commit = git(gitdir, "rev-parse", commit).strip()
    files = sorted(
        f
        for f in git(gitdir, "ls-tree", "-r", "--name-only", commit).split()
        if "/cassettes/" in f and f.endswith(".yaml")
    )
    records, skipped = [], []
    for path in files:
        try:
            text = git(gitdir, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            skipped.append(path)  # a large file the mirror does not hold
            continue
        if "api.anthropic.com/v1/messages" not in text:
            continue
        side = "held_out" if hashlib.sha256(path.encode()).digest()[0] % 2 else "fit"
        for i, it in enumerate((yaml.safe_load(text) or {}).get("interactions") or []):
            req = it["request"]
            uri = req["uri"]
            if not uri.startswith("https://api.anthropic.com/v1/messages"):
                continue
            body = req.get("parsed_body")
            if not isinstance(body, dict):
                continue
            records.append(
                {
                    "cassette": path,
                    "index": i,
                    "split": side,
                    "endpoint": "count_tokens" if "/count_tokens" in uri else "messages",
                    "beta": "beta=true" in uri,
                    "model": body.get("model"),
                    "request": scrub(body),
                    **answer(it["response"]),
                }
            )
    dump = json.dumps(records, ensure_ascii=False, sort_keys=True)
    leaks = SECRET_TEXT.findall(dump)
    if leaks:
        raise SystemExit(f"credential-shaped text left in the set: {leaks[:3]} (extend scrub())")
    licence = git(gitdir, "show", f"{commit}:LICENSE")
    data = {
        "source": f"https://github.com/{REPO}",
        "commit": commit,
        "licence": f"The request bodies and usage below are from {REPO}'s test cassettes, under this licence:\n\n{licence}",
        "split": "by cassette: held_out when the first byte of sha256(cassette path) is odd, else fit",
        "version_assumed": "2023-06-01 (the cassettes keep no headers; the SDK pydantic-ai used sends this version)",
        "skipped_unreadable": skipped,
        "records": records,
    }
    OUT.write_bytes(gzip.compress(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0).encode(), mtime=0))
    print(
        f"{len(records)} interactions from {len({r['cassette'] for r in records})} cassettes at {commit[:12]} -> {OUT} "
        f"({OUT.stat().st_size // 1024} KiB)"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
