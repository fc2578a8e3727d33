"""Each notebook executed once per test run, headless on the simulator, and read by every test that needs it.

``NotebookStore.get(path)`` runs the notebook in a real ``python3`` kernel (nbclient, as Jupyter runs it:
from the notebook's own folder, no API key, widgets in their static form) the first time any test asks,
and hands back the same :class:`Executed` to the execution test, the claim tests and the figure tests.
Under pytest-xdist the store lives in a folder all workers share; a lock file per notebook makes the
second worker that asks wait for the first one's result instead of running the notebook again.

Two cells are added in memory only (never written to notebooks/): one in front that records, for
every figure an agentlab plot function localizes, the language it drew in and the text left English,
and one at the end that prints that record and the live tally (``agentlab.live.costs``: what the
notebook's live path would send) and saves the notebook's variables (each one that pickles)
for the claim tests. A failing cell stops the run; every reader then sees that failure.

The same kernel then runs the notebook live against a stand-in and replays what it recorded
(tests/live/notebook_replay.py; ``Executed.passes``, read by tests/live/test_notebooks_replay.py): one
kernel start and one set of imports a notebook, not two. The offline pass runs first, with no key in the
kernel's environment, so what its readers see is what a student without a key sees.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agentlab.schema_check import import_jsonschema

import_jsonschema()  # before nbformat imports it: without the IRI grammar (38 lark parsers) no test here uses, about
import nbformat  # noqa: E402  # 1.8 s less CPU in every pytest process that collects (the controller and each worker)

sys.path.insert(0, str(Path(__file__).resolve().parent / "live"))  # the notebooks' live passes and their stand-in
from notebook_replay import BLOCK  # noqa: E402

CELL_TIMEOUT_S = 180
"""Longest one cell may run, in seconds (a bound against a hung kernel, not a speed claim)."""

RECORD = (
    """\
import agentlab.views.i18n as _i18n
def _recording(localize, i18n, seen):
    def _recording_localize(fig, lang=None):
        out = localize(fig, lang)
        seen.append({"lang": lang or i18n.language(), "left": i18n.untranslated(fig, as_drawn=True)})
        return out
    return _recording_localize
_i18n_seen = []
_i18n.localize = _recording(_i18n.localize, _i18n, _i18n_seen)  # plot modules import it after this cell: they get this
"""
    + BLOCK
)
"""The cell in front: records each figure's language and English left, and blocks the network (``BLOCK``)."""
SAVE = """\
import json as _json, pickle as _pickle, types as _types
import agentlab.live.costs as _costs
print("I18N-RECORD " + _json.dumps(_i18n_seen, ensure_ascii=False))
print("LIVE-COST " + _json.dumps(_costs.tally()))
print("DIALED " + _json.dumps(_dialed))
_saved, _skipped = {}, []
for _k, _v in list(globals().items()):
    if _k.startswith("_") or _k in ("In", "Out", "exit", "quit", "get_ipython") or isinstance(_v, _types.ModuleType):
        continue
    try:
        _saved[_k] = _pickle.dumps(_v)
    except Exception as _e:
        _skipped.append(f"{_k} ({type(_e).__name__})")
with open(%r, "wb") as _f:
    _pickle.dump({"values": _saved, "skipped": _skipped}, _f)
"""
ADDED_IN_FRONT = 1
"""Cells the store puts before the notebook's own (cell i of the notebook is cell i + 1 of the run)."""


class Namespace(Mapping):
    """The notebook's variables after its last cell; each is unpickled when a test first reads it."""

    def __init__(self, name: str, values: dict[str, bytes], skipped: list[str]) -> None:
        self._name, self._values, self._skipped, self._loaded = name, values, skipped, {}

    def __getitem__(self, key: str):
        if key not in self._loaded:
            if key not in self._values:
                raise KeyError(
                    f"{self._name} left no variable {key!r} that could be saved "
                    f"(not picklable: {', '.join(self._skipped) or 'none'})"
                )
            self._loaded[key] = pickle.loads(self._values[key])
        return self._loaded[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


@dataclass
class Executed:
    """One notebook after one headless run."""

    path: Path
    """The notebook file that was run (notebooks/ or notebooks/zh-CN/)."""
    nb: nbformat.NotebookNode | None
    """The executed notebook with its outputs, the two added cells included (None if the kernel never started)."""
    error: str | None
    """Why the offline run stopped early (the failing cell and its traceback), or None when every cell of it ran
    (a failure in the live or replay pass is ``passes.error``)."""
    seconds: float
    """Wall time of the kernel, all its passes and its start included."""
    ns: Namespace = field(repr=False, default=None)  # type: ignore[assignment]
    """The variables after the last cell (empty when the run failed)."""
    passes: Any = None
    """The live and replay passes that followed in the same kernel (``notebook_replay.Passes``), or None when
    the store has no stand-in (``scripts/live_costs.py``'s) or the offline pass failed."""

    def figures_localized(self) -> list[dict]:
        """For every figure a plot function localized: {"lang": language drawn in, "left": texts still English}."""
        return self._printed("I18N-RECORD ", "nothing")

    def _printed(self, prefix: str, what: str):
        """The JSON the last added cell printed after ``prefix``."""
        for out in self.nb.cells[-1].get("outputs", []) if self.nb and not self.error else []:
            for line in out.get("text", "").splitlines():
                if line.startswith(prefix):
                    return json.loads(line[len(prefix) :])
        raise AssertionError(f"{self.path.name}: the record cell printed {what} (error: {self.error})")

    def dialed(self) -> list[list]:
        """Every IPv4 or IPv6 address the offline run tried to reach (each attempt was refused)."""
        return self._printed("DIALED ", "no dials")

    def live_tally(self) -> list[dict]:
        """What the run's live path would have sent: ``agentlab.live.costs.tally()`` after its last cell."""
        return self._printed("LIVE-COST ", "no live tally")

    def outputs(self, index: int) -> list:
        """The outputs of the notebook's own cell ``index`` (its position in the file)."""
        return self.nb.cells[index + ADDED_IN_FRONT].get("outputs", [])


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this one without any key, base URL, model or language override."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and k not in ("AGENTLAB_MODEL", "AGENTLAB_LANG")
    }
    env["AGENTLAB_WIDGETS"] = "static"  # no widget frontend here: widgets show their static copy
    return env


def execute(nb, *, timeout: int = CELL_TIMEOUT_S, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Run ``nb`` in place in a fresh ``python3`` kernel that talks to us over Unix sockets in a folder of its own.

    With jupyter_client's default TCP transport, each client picks five free ports by binding and releasing
    them, and the kernel binds them a moment later; with several xdist workers starting kernels (and other
    tests opening servers) a port taken in between kills the kernel before it answers ("Kernel died before
    replying to kernel_info"). IPC sockets are named by path, and a private folder makes the names unique.
    """
    import shutil
    import tempfile

    from nbclient import NotebookClient
    from traitlets.config import Config

    folder = tempfile.mkdtemp(prefix="kernel-")
    config = Config()
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = os.path.join(folder, "ipc")  # absolute: the kernel's cwd is the notebook's folder
    resources = {"metadata": {"path": str(cwd)}} if cwd else {}
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources=resources, config=config).execute(
            **({"env": env} if env is not None else {})
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class NotebookStore:
    """Executed notebooks keyed by path (and content), in a folder shared by every xdist worker.

    ``live``: a function giving ``(base_url, requests answered)`` of a stand-in in this process; with it,
    each notebook's kernel goes on to its live and replay passes after the offline one."""

    def __init__(self, folder: Path, live: Callable[[], tuple[str, list]] | None = None) -> None:
        self.folder = folder
        self.live = live
        folder.mkdir(parents=True, exist_ok=True)
        self._mine: dict[Path, Executed] = {}

    def _key(self, path: Path) -> str:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        return f"{path.parent.name}--{path.stem}--{digest}"

    def get(self, path: Path) -> Executed:
        """The notebook at ``path`` executed once: run it here, or wait for and read the run another worker made."""
        path = path.resolve()
        if path in self._mine:
            return self._mine[path]
        key = self._key(path)
        with open(self.folder / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even if this process dies
            meta = self.folder / f"{key}.json"
            if not meta.exists():
                self._execute(path, key)
            done = self._read(path, key)
        self._mine[path] = done
        return done

    def namespace(self, path: Path) -> "Namespace":
        """The variables of the notebook at ``path`` after its one run; the test fails (without a
        traceback into this file) if the notebook did not run to the end, since its claims cannot be checked."""
        done = self.get(path)
        if done.error:
            pytest.fail(
                f"{Path(path).name} did not run to the end, so its claims cannot be checked:\n{done.error}",
                pytrace=False,
            )
        return done.ns

    def _execute(self, path: Path, key: str) -> None:
        from nbclient.exceptions import CellExecutionError

        values = self.folder / f"{key}.ns.pickle"
        source = nbformat.read(path, as_version=4)
        nb = nbformat.v4.new_notebook(metadata=source.metadata)
        nb.cells = [nbformat.v4.new_code_cell(RECORD), *source.cells, nbformat.v4.new_code_cell(SAVE % str(values))]
        offline, cassette = len(nb.cells), self.folder / f"{key}.yaml"
        if self.live is not None:
            from notebook_replay import live_cells, sends

            base_url, seen = self.live()
            before = len(seen)
            nb.cells += live_cells(source, base_url, cassette, replay=sends(path))
        error, t0 = None, time.perf_counter()
        try:
            execute(nb, cwd=path.parent, env=kernel_env())
        except CellExecutionError as e:
            error = str(e)
        except Exception as e:  # a kernel that died or timed out: the readers still get a reason, not a hang
            error = f"{type(e).__name__}: {e}"
        seconds = time.perf_counter() - t0
        saved = nb.cells[offline - 1]  # the offline pass's last cell: it ran whole, or the offline pass failed
        failed_offline = error is not None and (
            not saved.get("execution_count") or any(o.get("output_type") == "error" for o in saved.get("outputs", []))
        )
        if self.live is not None and not failed_offline:
            from dataclasses import asdict

            from notebook_replay import passes_of

            passes = passes_of(nb.cells[offline:], source, error, len(seen) - before, cassette)
            (self.folder / f"{key}.passes.json").write_text(json.dumps(asdict(passes)))
        nb.cells = nb.cells[:offline]
        nbformat.write(nb, self.folder / f"{key}.ipynb")
        (self.folder / f"{key}.json").write_text(
            json.dumps(
                {
                    "path": str(path),
                    "error": error if failed_offline else None,
                    "seconds": round(seconds, 2),
                    "pid": os.getpid(),
                }
            )
        )

    def _read(self, path: Path, key: str) -> Executed:
        meta = json.loads((self.folder / f"{key}.json").read_text())
        nb = nbformat.read(self.folder / f"{key}.ipynb", as_version=4)
        values = self.folder / f"{key}.ns.pickle"
        saved = (
            pickle.loads(values.read_bytes())
            if values.exists() and not meta["error"]
            else {"values": {}, "skipped": []}
        )
        passes, live = None, self.folder / f"{key}.passes.json"
        if live.exists():
            from notebook_replay import Passes

            passes = Passes(**json.loads(live.read_text()))
        return Executed(
            path, nb, meta["error"], meta["seconds"], Namespace(path.name, saved["values"], saved["skipped"]), passes
        )

    def timings(self) -> list[tuple[str, float, bool]]:
        """(notebook, seconds, ran cleanly) for every run in the store, slowest first."""
        rows = []
        for meta in self.folder.glob("*--*.json"):
            if meta.name.endswith(".passes.json"):
                continue
            m = json.loads(meta.read_text())
            p = Path(m["path"])
            rows.append((f"{p.parent.name}/{p.name}", m["seconds"], m["error"] is None))
        return sorted(rows, key=lambda r: -r[1])


def xdist_group(path: Path):
    """The xdist group of every test that reads this notebook's run, so one worker would run them all and none wait.

    Under pytest >= 9.2 xdist 3.8 cannot apply it (see ``pytest_xdist_make_scheduler`` in conftest.py);
    the store's lock still has a second reader wait for the one run instead of running it again.
    """
    import pytest

    return pytest.mark.xdist_group(f"notebook:{path.parent.name}/{path.name}")
