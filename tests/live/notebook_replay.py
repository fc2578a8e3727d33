"""The live half of a notebook's one kernel: after its offline pass (tests/notebook_store.py), the notebook
runs live against the stand-in, recording a cassette, then is replayed from that cassette with the network
blocked; each code cell's outputs from both passes are handed back (a notebook that sends nothing live runs
the live pass only: its cassette is empty, and its live run is compared with its offline one instead).

The notebook's own parameter cell picks the mode (``MODE, CASSETTE, RECORD, MAX_USD = ...``): each pass
is the notebook with that one line changed, as papermill would set it. Before the live pass a cell lets the
kernel reach the network again (the offline pass ran with it blocked), clears the offline pass's variables
(``%reset``: imported modules stay, which is the point of one kernel) and puts the key and the stand-in's base
URL in the kernel's environment; between the live and replay passes a cell takes them out again (a replay
needs neither) and blocks every IPv4 and IPv6 connection, noting where each attempt went, so a call that
escapes the cassette fails loudly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

KEY = "sk-ant-api03-" + "Tm9" * 14 + "-replaytail"
"""The key the record pass sends (the stand-in accepts any; the replay pass has none)."""

PARAMETERS = re.compile(r"^MODE, CASSETTE, RECORD, MAX_USD = .*$", re.M)
"""The parameter cell's assignment line (tests/live/test_notebook_parameters.py checks every notebook has it)."""

MARK = "REPLAY-CHECK "
"""Prefix of the line the last cell of each pass prints: what was recorded, played and blocked."""

BLOCK = """\
import socket as _socket
_dialed = []
_unblocked = (_socket.socket.connect, _socket.socket.connect_ex)
def _blocked(self, address, *_rest):
    if self.family in (_socket.AF_INET, _socket.AF_INET6):
        _dialed.append(list(address[:2]))
        raise ConnectionRefusedError(111, "Connection refused")
    return _unblocked[0](self, address)
_socket.socket.connect = _blocked
_socket.socket.connect_ex = lambda self, address: _blocked(self, address) or 0
"""
"""Source that blocks every IPv4 and IPv6 connection of the kernel, noting in ``_dialed`` where each attempt
went (Unix sockets, the kernel's own, pass): the offline and the replay passes run under it."""
DIALS_BY_DESIGN = [["127.0.0.1", 1]]
"""Addresses a notebook dials in every mode: 00's demonstration of an unreachable server."""
GO_LIVE = """\
_socket.socket.connect, _socket.socket.connect_ex = _unblocked
get_ipython().run_line_magic("reset", "-f")  # the offline pass's variables: a live-only path must not find them
import os as _os
_os.environ.update(ANTHROPIC_API_KEY=%r, ANTHROPIC_BASE_URL=%r, AGENTLAB_CONFIRM="1")
"""
"""The network back, the offline pass's variables gone (its imports kept), the key and the stand-in's URL set."""
OFFLINE = (
    """\
import os as _os
for _name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
    _os.environ.pop(_name, None)
"""
    + BLOCK
)
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
    """One notebook run live (recorded) and then replayed, in the kernel of its offline run."""

    record: list[list]
    """Outputs of each of the notebook's code cells in the record pass (in file order)."""
    replay: list[list]
    """The same cells' outputs in the replay pass (shorter when the replay stopped at a failing cell; empty
    when there was none)."""
    checks: list[dict]
    """What each pass's last cell printed: recordings, replays (played, recorded, refused) and blocked dials."""
    error: str | None
    """The failing cell and its traceback, or None when both passes ran to the end."""
    answered: int
    """Requests the stand-in answered during the live pass."""
    cassette: str
    """The cassette the live pass recorded."""


def _pass(nb, mode: str, cassette: Path) -> list:
    values = {"live": f'"live", None, {str(cassette)!r}, 0.50', "replay": f'"replay", {str(cassette)!r}, None, 0.50'}
    cells = []
    for cell in nb.cells:
        cell = nbformat.from_dict(cell)
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            cell.source = PARAMETERS.sub(lambda _: f"MODE, CASSETTE, RECORD, MAX_USD = {values[mode]}", cell.source)
        cells.append(cell)
    return cells


BEYOND_THE_TABLE: dict[str, tuple[int, str]] = {
    "01_one_round_trip": (
        1,
        "the malformed request of the 'what goes wrong' cell is refused with a 400 (sent, not billed)",
    ),
}
"""Requests the live run sent beyond its row of the live-cost table, by notebook: how many, and why."""


def sends(path: Path) -> bool:
    """Whether the notebook's row in the live-cost table sends anything (paid or count_tokens calls)."""
    from agentlab.live.costs import expected

    row = expected(path.stem)
    return row is None or row.calls + row.count_tokens + BEYOND_THE_TABLE.get(path.stem, (0, ""))[0] > 0


def live_cells(nb, base_url: str, cassette: Path, replay: bool) -> list:
    """The cells that run ``nb`` live against the stand-in at ``base_url`` into ``cassette``, then (``replay``)
    replay it offline: to be run in the kernel that has just run ``nb`` offline."""
    check = nbformat.v4.new_code_cell(CHECK % MARK)
    cells = [nbformat.v4.new_code_cell(GO_LIVE % (KEY, base_url)), *_pass(nb, "live", cassette), check]
    if replay:
        cells += [nbformat.v4.new_code_cell(OFFLINE), *_pass(nb, "replay", cassette), nbformat.from_dict(check)]
    return cells


def passes_of(cells: list, nb, error: str | None, answered: int, cassette: Path) -> Passes:
    """The :class:`Passes` in ``cells``, the executed :func:`live_cells` of ``nb`` (with a replay pass when they
    go on past the live pass's check)."""
    n = len(nb.cells)
    replay = len(cells) > n + 2
    own = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    first = [cells[1 + i].get("outputs", []) for i in own]
    second = [cells[n + 3 + i].get("outputs", []) for i in own if replay and cells[n + 3 + i].get("execution_count")]
    checks = [
        json.loads(line[len(MARK) :])
        for c in ((cells[n + 1], cells[-1]) if replay else (cells[n + 1],))
        for out in c.get("outputs", [])
        for line in out.get("text", "").splitlines()
        if line.startswith(MARK)
    ]
    return Passes(first, second, checks, error, answered, str(cassette))


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
