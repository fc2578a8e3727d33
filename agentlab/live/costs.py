"""What each notebook's live path costs, measured on the simulator; the preview ``use()`` shows before a live run.

Every ``connect()`` that goes live when a key is set (mode ``"auto"`` or ``"live"``; an experiment's own
``connect("sim", ...)`` never does) marks its Meter, and each call such a Meter records is added to one
tally for the process (:func:`tally`), and so is each free ``count_tokens`` request it sends (free, but
rate-limited on its own). A notebook run offline thus leaves in its tally the paid calls, tokens and token
counts its live path would send. ``scripts/live_costs.py`` runs every notebook, prices each tally with
genai-prices at the live default model (``agentlab.live.spend.cheapest_model``) wherever the notebook named
no model, and writes :data:`TABLE` and ``docs/*/live_cost.md``. In live mode ``use()`` reads the table:
:func:`live_preview` prints the notebook's expected cost against the cap and, above
:data:`CONFIRM_ABOVE_USD` or above the cap, asks for a confirmation.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from agentlab.live.errors import NotConfirmed, install_notebook_handler
from agentlab.meter.usage import Usage

TABLE = Path(str(resources.files("agentlab"))) / "data" / "live_costs.json"
"""The measured table: ``{"price_source", "default_model", "notebooks": [NotebookCost, ...]}``."""
CONFIRM_ABOVE_USD = 0.10
"""A live notebook expected to cost more than this (USD) asks for a confirmation before it starts."""
CONFIRM_ENV = "AGENTLAB_CONFIRM"
"""Set to ``1`` to confirm ahead (a headless run, where nobody can answer a prompt)."""

_tally: dict[tuple[str | None, bool], list] = {}
"""(model the notebook named, or None for the default; batched) -> [calls, Usage, count_tokens requests]."""
_lock = threading.Lock()


def add_call(model: str | None, usage: Usage, batch: bool) -> None:
    """Count one call of a Meter that goes live with a key (``Meter.live_path``) in the process tally."""
    with _lock:
        row = _tally.setdefault((model, batch), [0, Usage(), 0])
        row[0] += 1
        row[1] = row[1] + usage


def add_count(model: str | None) -> None:
    """Count one ``count_tokens`` request of a Meter that goes live with a key in the process tally."""
    with _lock:
        _tally.setdefault((model, False), [0, Usage(), 0])[2] += 1


def tally() -> list[dict]:
    """The process tally as JSON rows: ``{"model", "batch", "calls", "usage", "count_tokens"}`` (model None:
    the default)."""
    with _lock:
        return [
            {"model": m, "batch": b, "calls": n, "usage": u.as_api(), "count_tokens": c}
            for (m, b), (n, u, c) in sorted(_tally.items(), key=lambda kv: (kv[0][0] or "", kv[0][1]))
        ]


def reset_tally() -> None:
    """Start the process tally afresh."""
    with _lock:
        _tally.clear()


def tally_of(run: Callable[[], Any]) -> list[dict]:
    """What ``run()`` adds to the tally, as :func:`tally`'s rows; the process tally is left as it was."""
    global _tally
    with _lock:
        saved, _tally = _tally, {}
    try:
        run()
        return tally()
    finally:
        with _lock:
            _tally = saved


@dataclass
class NotebookCost:
    """What one notebook's live path sends, measured on the simulator and priced at live prices."""

    notebook: str
    """The notebook's file name without ``.ipynb`` (both editions run the same code)."""
    calls: int
    """Paid Messages API calls (a batched request counts as one call)."""
    input_tokens: int
    """Input tokens sent, cached or not (the simulator's estimates)."""
    output_tokens: int
    """Output tokens written (the simulator's estimates)."""
    usd: float | None
    """Their price at :attr:`models`' prices; ``None`` when one of them has no known price."""
    models: list[str]
    """The models priced: the live default wherever the notebook named none."""
    count_tokens: int = 0
    """Requests to the free ``count_tokens`` endpoint (not billed, but limited in requests per minute by usage
    tier, apart from paid calls: https://platform.claude.com/docs/en/build-with-claude/token-counting)."""


def measure(notebook: str, rows: list[dict], default: str | None = None) -> NotebookCost:
    """Price a tally (:func:`tally`'s rows) as a live run would be billed: the notebook's own models where it
    named them, ``default`` (the live default model) elsewhere; a batched call at the Batches discount."""
    from agentlab.live.spend import cheapest_model
    from agentlab.meter.prices import cost_usd

    default = default or cheapest_model()
    calls, tokens, usd, models, counts = 0, Usage(), 0.0, set(), 0
    for row in rows:
        model, usage = row["model"] or default, Usage.from_api(row["usage"])
        counts += row.get("count_tokens", 0)
        if not row["calls"]:  # token counts only: free, so no price and no model to name
            continue
        price = cost_usd(model, usage, batch=row["batch"])
        usd = None if usd is None or price is None else usd + price
        calls, tokens = calls + row["calls"], tokens + usage
        models.add(model)
    return NotebookCost(
        notebook,
        calls,
        tokens.prompt_total,
        tokens.output_tokens,
        None if usd is None else round(usd, 6),
        sorted(models),
        counts,
    )


def write_table(costs: list[NotebookCost], default: str, source: str, path: Path | None = None) -> None:
    """Write the measured table to ``path`` (default :data:`TABLE`; the script does, after running every notebook)."""
    path = path or TABLE
    data = {"price_source": source, "default_model": default, "notebooks": [asdict(c) for c in costs]}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def read_table(path: Path | None = None) -> dict:
    """The measured table (default :data:`TABLE`) as :func:`write_table` wrote it (no rows when there is none)."""
    path = path or TABLE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"notebooks": []}


def current_notebook() -> str | None:
    """The running notebook's name without ``.ipynb``: from Jupyter's ``JPY_SESSION_NAME`` (JupyterLab,
    Notebook 7) or VS Code's ``__vsc_ipynb_file__``; ``None`` when unknown (a script, nbclient)."""
    import sys

    path = os.environ.get("JPY_SESSION_NAME")
    get = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get() if get else None
    if not path and shell is not None:
        path = getattr(shell, "user_ns", {}).get("__vsc_ipynb_file__")
    return Path(path).stem if path and str(path).endswith(".ipynb") else None


def expected(notebook: str | None, table: dict | None = None) -> NotebookCost | None:
    """The table's row for ``notebook``, or ``None``."""
    rows = (table or read_table())["notebooks"]
    return next((NotebookCost(**r) for r in rows if r["notebook"] == notebook), None) if notebook else None


def needs_confirmation(cost: NotebookCost | None, max_usd: float | None) -> bool:
    """True when a live run is expected to cost more than :data:`CONFIRM_ABOVE_USD` or than its cap."""
    if cost is None or cost.usd is None:
        return cost is not None  # an unpriced model: nobody knows the bill
    return cost.usd > CONFIRM_ABOVE_USD or (max_usd is not None and cost.usd > max_usd)


def preview_line(notebook: str | None, cost: NotebookCost | None, max_usd: float | None) -> str:
    """One line: what this notebook's live path is expected to cost, against the session cap."""
    cap = f"MAX_USD = ${max_usd:g}" if max_usd is not None else "no MAX_USD cap"
    if cost is None:
        name = f"{notebook}'s" if notebook else "this notebook's"
        return f"agentlab: {name} live cost is not in the table (docs/en/live_cost.md lists each notebook's); {cap}."
    price = "an unknown price" if cost.usd is None else f"about ${cost.usd:.2f}"
    over = (
        f"; the cap stops it partway, raise MAX_USD to about ${cost.usd * 1.2:.2f} to finish it"
        if cost.usd is not None and max_usd is not None and cost.usd > max_usd
        else ""
    )
    counts = f" and {cost.count_tokens:,} free count_tokens calls" if cost.count_tokens else ""
    return (
        f"agentlab: {cost.notebook} live: {cost.calls} paid calls{counts}, {cost.input_tokens:,} input and "
        f"{cost.output_tokens:,} output tokens, {price} with {', '.join(cost.models)} (measured on the simulator, "
        f"docs/en/live_cost.md), against {cap}{over}."
    )


HOW_TO_CONFIRM = (
    "not confirmed, so nothing was sent. To go on, call use(..., confirm=True) in the "
    "parameter cell (or set AGENTLAB_CONFIRM=1); to stay offline, set MODE = 'sim'."
)
"""The one line a live run that was not confirmed ends with."""


def live_preview(
    max_usd: float | None,
    confirm: bool = False,
    notebook: str | None = None,
    ask: Callable[[str], str] | None = None,
    say: Callable[[str], Any] = print,
) -> None:
    """Before a live notebook sends anything: say its expected cost against ``max_usd``, and above the
    threshold ask (``ask``, ``input()`` in a notebook); no answer, or not "yes", raises :class:`NotConfirmed`."""
    notebook = notebook or current_notebook()
    cost = expected(notebook)
    say(preview_line(notebook, cost, max_usd))
    if not needs_confirmation(cost, max_usd) or confirm or os.environ.get(CONFIRM_ENV, "").strip() == "1":
        return
    from agentlab.views.i18n import tr

    try:
        answer = (ask or input)(tr("Send these paid calls? Type yes to go on: "))
    except Exception:  # no stdin: EOFError in a script, StdinNotImplementedError in a headless kernel
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        raise NotConfirmed(tr(HOW_TO_CONFIRM))


SCRIPTED = {
    "live": "agentlab: results marked [scripted model] describe the simulator's scripted model; "
    "in this live run Claude may do otherwise.",
    "replay": "agentlab: results marked [scripted model] describe the simulator's scripted model; "
    "this replay shows what the recorded run did, which may differ.",
}
"""The line ``use()`` prints in live and replay mode (in the notebook's language: ``agentlab.views.i18n``)."""


def announce(mode: str, max_usd: float | None, confirm: bool = False) -> None:
    """What ``use(mode)`` says before anything is sent: live, the cost preview (and its confirmation);
    live or replay, that [scripted model] results describe the simulator. Nothing in sim mode."""
    from agentlab.live.compat import say
    from agentlab.views.i18n import tr

    if mode == "live":
        install_notebook_handler()  # a NotConfirmed shows as its one line, no traceback
        live_preview(max_usd, confirm, say=lambda line: say(tr(line)))
    if mode in SCRIPTED:
        say(tr(SCRIPTED[mode]))
