"""Run one notebook twice in one kernel: live against the stand-in, recording a cassette, then replayed
from that cassette with the network blocked; hand back each code cell's outputs from both passes (a notebook
that sends nothing live runs the live pass only).

The notebook's own parameter cell picks the mode (``MODE, CASSETTE, RECORD, MAX_USD = ...``): each pass
is the notebook with that one line changed, as papermill would set it. Between the passes a cell takes
the key and base URL out of the kernel's environment (a replay needs neither) and blocks every IPv4 and
IPv6 connection, noting where each attempt went, so a call that escapes the cassette fails loudly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from notebook_store import execute, kernel_env

KEY = "sk-ant-api03-" + "Tm9" * 14 + "-replaytail"
"""The key the record pass sends (the stand-in accepts any; the replay pass has none)."""

PARAMETERS = re.compile(r"^MODE, CASSETTE, RECORD, MAX_USD = .*$", re.M)
"""The parameter cell's assignment line (tests/live/test_notebook_parameters.py checks every notebook has it)."""

MARK = "REPLAY-CHECK "
"""Prefix of the line the last cell of each pass prints: what was recorded, played and blocked."""

OFFLINE = """\
import os as _os, socket as _socket
for _name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
    _os.environ.pop(_name, None)
_dialed = []
def _blocked(self, address, *_rest):
    if self.family in (_socket.AF_INET, _socket.AF_INET6):
        _dialed.append(list(address[:2]))
        raise ConnectionRefusedError(111, "Connection refused")
    return _unblocked(self, address)
_unblocked = _socket.socket.connect
_socket.socket.connect = _blocked
_socket.socket.connect_ex = lambda self, address: _blocked(self, address) or 0
"""
CHECK = """\
import json as _json
from agentlab.live import cassette as _cassette
print(%r + _json.dumps({
    "recorded": {str(p): len(r.cassette.data) for p, r in _cassette._recorders.items()},
    "played": {str(p): [r.played, len(r.cassette.data), r.refused] for p, r in _cassette._replayers.items()},
    "dialed": globals().get("_dialed", []),
}))
"""


@dataclass
class Passes:
    """One notebook run live (recorded) and then replayed, in one kernel."""

    record: list[list]
    """Outputs of each of the notebook's code cells in the record pass (in file order)."""
    replay: list[list]
    """The same cells' outputs in the replay pass (shorter when the replay stopped at a failing cell; empty
    when there was none)."""
    checks: list[dict]
    """What each pass's last cell printed: recordings, replays (played, recorded, refused) and blocked dials."""
    error: str | None
    """The failing cell and its traceback, or None when both passes ran to the end."""


def _pass(nb, mode: str, cassette: Path) -> list:
    values = {"live": f'"live", None, {str(cassette)!r}, 0.50', "replay": f'"replay", {str(cassette)!r}, None, 0.50'}
    cells = []
    for cell in nb.cells:
        cell = nbformat.from_dict(cell)
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            cell.source = PARAMETERS.sub(lambda _: f"MODE, CASSETTE, RECORD, MAX_USD = {values[mode]}", cell.source)
        cells.append(cell)
    return cells


def run_both(path: Path, base_url: str, cassette: Path, replay: bool = True) -> Passes:
    """``path`` recorded live against the stand-in at ``base_url`` into ``cassette``, then replayed offline
    (``replay=False``: the live pass only, for a notebook that sends nothing live and so has nothing to replay)."""
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    record = _pass(nb, "live", cassette)
    check = nbformat.v4.new_code_cell(CHECK % MARK)
    run = nbformat.v4.new_notebook(metadata=nb.metadata)
    run.cells = [*record, check]
    if replay:
        run.cells += [nbformat.v4.new_code_cell(OFFLINE), *_pass(nb, "replay", cassette), nbformat.from_dict(check)]
    env = {**kernel_env(), "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": base_url, "AGENTLAB_CONFIRM": "1"}
    error = None
    try:
        execute(run, cwd=path.parent, env=env)
    except CellExecutionError as e:
        error = str(e)
    except Exception as e:  # a dead or timed-out kernel: still a reason, not a hang
        error = f"{type(e).__name__}: {e}"
    n = len(record)
    own = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    first = [run.cells[i].get("outputs", []) for i in own]
    second = [
        run.cells[n + 2 + i].get("outputs", []) for i in own if replay and run.cells[n + 2 + i].get("execution_count")
    ]
    checks = [
        json.loads(line[len(MARK) :])
        for c in ((run.cells[n], run.cells[-1]) if replay else (run.cells[n],))
        for out in c.get("outputs", [])
        for line in out.get("text", "").splitlines()
        if line.startswith(MARK)
    ]
    return Passes(first, second, checks, error)


NOTICE = re.compile(r"^agentlab(: |：).*$\n?", re.M)
"""A line agentlab prints about the mode itself (live calls to ..., replaying ..., the cost preview); the zh-CN
edition writes it with a full-width colon (``agentlab：``)."""


def shown(outputs: list) -> dict:
    """What a cell showed, as the two passes must share it: its printed text without agentlab's
    mode notices, its errors, and each rich output's text, figures included (by their PNG's digest)."""
    import hashlib

    text = NOTICE.sub("", "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream"))
    rich = []
    for o in outputs:
        data = o.get("data", {})
        if o.get("output_type") == "error":
            rich.append(f"{o['ename']}: {o['evalue']}")
        for kind in ("text/plain", "text/html", "text/markdown"):
            if kind in data:
                rich.append(data[kind])
        if "image/png" in data:
            rich.append("png " + hashlib.sha256(data["image/png"].encode()).hexdigest()[:16])
    return {"text": text, "rich": rich}
