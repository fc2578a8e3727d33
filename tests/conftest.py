import functools
import os
import sys
from pathlib import Path

import pytest
from notebook_store import NotebookStore  # puts tests/live on the path: the stand-in and the notebooks' live passes
from system_packages import apt_install

import agentlab
from agentlab.meter.middleware import CHECK_PARTS_ENV
from agentlab.trace import CHECK_TRACE_ENV

# Every simulated call in the test run (notebook kernels and graded exercises included, which
# inherit this environment) checks that its input parts add up to its input_tokens; a mismatch
# raises PartsMismatch in the call that made it.
os.environ[CHECK_PARTS_ENV] = "1"
# Every trace event written in the test run (the same kernels and exercises too) is checked against
# agentlab.trace.EVENTS: an unknown kind or a missing field raises TraceFormatError where it is written.
os.environ[CHECK_TRACE_ENV] = "1"
ROOT = Path(__file__).resolve().parents[1]
_OFFLINE_UNSET = ("AGENTLAB_MODEL", "AGENTLAB_OTLP")
"""Besides ANTHROPIC_*, what ``_offline`` unsets for each test (a subprocess a session fixture starts unsets them too)."""


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Tests never call the real API: no key, no base URL from the environment."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    for name in _OFFLINE_UNSET:  # no model chosen by the environment; no spans sent unless a test starts a receiver
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _close_figures():
    """Every figure a test drew is closed after it (pyplot keeps them; 20 open in one worker warn)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture
def sim():
    """A fresh simulated client (default careful policy)."""
    return agentlab.connect("sim", quiet=True)


@pytest.fixture
def tools(tmp_path):
    """The city task's tools, with notes kept in a temp folder."""
    return agentlab.task_tools(tmp_path / "notes")


def _once(config, name: str, build):
    """``build()``'s value (plain data that pickles), computed once for the whole run by whichever xdist worker
    asks first; the others wait for it and read it (a session fixture alone runs once per worker)."""
    import fcntl
    import pickle

    folder = _run_folder(config, "computed-once")  # this run's only, whatever AGENTLAB_NOTEBOOK_STORE says
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even if this process dies
        path = folder / f"{name}.pickle"
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = build()
        path.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def approval_sweep(pytestconfig):
    """Notebook 11's approval sweep (every rate, every seed: about 5 s), run once for its claims and the defences' tests."""
    from agentlab.injection import approval_sweep

    return _once(pytestconfig, "approval_sweep", approval_sweep)


@pytest.fixture(scope="session")
def recovery_rows(pytestconfig):
    """Notebook 06's recovery table (every careless case, both error styles: about 4 s), run once for its tests."""
    from agentlab.experiments.recovery import recovery_table

    return _once(pytestconfig, "recovery_table", recovery_table)


@pytest.fixture(scope="session")
def compare_cli(pytestconfig) -> dict:
    """``agentlab compare`` run once for the whole test run, in a fresh interpreter, as the README tells a newcomer
    to: ``{"returncode", "stdout", "stderr", "packages": the top-level packages it had imported, "png": files it drew}``.
    Read by the README's demo-table test and the lazy-import test (one interpreter start and run, not one each)."""
    return _once(pytestconfig, "compare_cli", lambda: _compare_cli(_run_folder(pytestconfig, "compare-cli")))


def _compare_cli(folder: Path) -> dict:
    import subprocess

    folder.mkdir(parents=True, exist_ok=True)
    code = (
        "import sys; from agentlab.cli import main; code = main(sys.argv[1:]); "
        "print('LOADED ' + ' '.join(sorted({m.split('.')[0] for m in sys.modules}))); sys.exit(code)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_") and k not in _OFFLINE_UNSET}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run(
        [sys.executable, "-c", code, "compare", "--out", str(folder / "runs")],
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        env=env,
    )
    said = [ln for ln in out.stdout.splitlines() if ln.startswith("LOADED")]
    return {
        "returncode": out.returncode,
        "stdout": "\n".join(ln for ln in out.stdout.splitlines() if not ln.startswith("LOADED")),
        "stderr": out.stderr,
        "packages": set(said[-1].split()[1:]) if said else None,
        "png": sorted(p.name for p in folder.rglob("*.png")),
    }


@pytest.fixture(scope="session")
def context_lab(tmp_path_factory):
    """Notebook 10's 30-city experiment, run once for its tests and its prose claims: (workdir, (table, results))."""
    from agentlab.context import compare_tactics

    workdir = tmp_path_factory.mktemp("context-lab")
    return workdir, compare_tactics(n_cities=30, workdir=workdir, lang="en")


@pytest.fixture(scope="session")
def context_lab_zh(tmp_path_factory):
    """The same experiment as the zh-CN edition runs it (the task asked in Chinese): (workdir, (table, results))."""
    from agentlab.context import compare_tactics

    workdir = tmp_path_factory.mktemp("context-lab-zh")
    return workdir, compare_tactics(n_cities=30, workdir=workdir, lang="zh")


def _store_folder(config):
    """One folder for the whole run: the controller's base temp dir, which every xdist worker's sits in
    (``AGENTLAB_NOTEBOOK_STORE`` names another, e.g. the one ``scripts/live_costs.py --store`` filled)."""
    if os.environ.get("AGENTLAB_NOTEBOOK_STORE"):
        return Path(os.environ["AGENTLAB_NOTEBOOK_STORE"])
    return _run_folder(config, "executed-notebooks")


def _run_folder(config, name: str) -> Path:
    """``name`` in the controller's base temp dir, which every xdist worker's sits in: one folder for the run."""
    base = config._tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name


@functools.cache
def _standin() -> tuple[str, list]:
    """``(base_url, requests answered)`` of this process's one stand-in for the notebooks' live passes (the
    simulator over HTTP on 127.0.0.1, without its own headers), started the first time a notebook runs here."""
    from live_standin import serve_standin

    base, stop = serve_standin()
    return base, stop.seen


@pytest.fixture(scope="session")
def notebook_store(pytestconfig) -> NotebookStore:
    """Every notebook executed once per run and edition, offline then live and replayed in the same kernel,
    shared by the tests that read it (tests/notebook_store.py)."""
    return NotebookStore(_store_folder(pytestconfig), live=_standin)


def pytest_configure(config):
    """Before any xdist worker starts: bubblewrap for the sandboxed grading tests (root only), so every
    worker, and every process a worker starts, sees the same machine (see ``system_packages``)."""
    if not hasattr(config, "workerinput"):
        why = apt_install("bwrap", "bubblewrap")
        if why:
            print(f"bubblewrap missing and not installed ({why}); grading tests use the fallback isolation")


def pytest_terminal_summary(terminalreporter, config):
    """Where the notebook runs spent their time: each headless run, and each browser step (from the reports)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not hasattr(config, "_tmp_path_factory"):
        return
    _browser_steps(terminalreporter)
    folder = _store_folder(config)
    rows = NotebookStore(folder).timings() if folder.exists() else []
    if rows:
        terminalreporter.section("notebooks, each in one kernel: offline, then live and replayed (wall s)")
        for name, seconds, ok in rows:
            terminalreporter.write_line(f"{seconds:8.1f}  {name}{'' if ok else '  (failed)'}")
        terminalreporter.write_line(f"{sum(r[1] for r in rows):8.1f}  total, {len(rows)} notebooks")


def _browser_steps(terminalreporter) -> None:
    rows = [
        (rep.nodeid.rsplit("[", 1)[-1].rstrip("]"), dict(rep.user_properties)["steps"])
        for key in ("passed", "failed")
        for rep in terminalreporter.stats.get(key, [])
        if rep.when == "call" and "steps" in dict(rep.user_properties)
    ]
    if not rows:
        return
    names = list(dict.fromkeys(step for _, steps in rows for step in steps))
    terminalreporter.section("real-browser test, seconds per step")
    terminalreporter.write_line(f"{'notebook':34}" + "".join(f"{n[:12]:>13}" for n in names) + f"{'total':>8}")
    for nb, steps in sorted(rows, key=lambda r: -sum(r[1].values())):
        terminalreporter.write_line(
            f"{nb[:34]:34}" + "".join(f"{steps.get(n, 0):13.1f}" for n in names) + f"{sum(steps.values()):8.1f}"
        )
    terminalreporter.write_line(
        f"{'all ' + str(len(rows)):34}"
        + "".join(f"{sum(s.get(n, 0) for _, s in rows):13.1f}" for n in names)
        + f"{sum(sum(s.values()) for _, s in rows):8.1f}"
    )


BROWSER_TESTS = "tests/browser/"
"""Every test under here shares one JupyterLab, one Chromium and one build/ folder: one xdist worker runs them all."""
REPLAY_TESTS = "tests/live/test_notebooks_replay.py"
"""Its tests read each notebook's live and replay passes from the notebook store."""
ONE_GRADEBOOK_RUN = tuple(
    f"tests/grading/test_{name}.py"
    for name in (
        "grading_attacks",
        "grading_kept_process",
        "grading_reuse",
        "grading_runner",
        "grading_scratch_attacks",
        "project",
    )
)
"""Modules whose tests read one gradebook run (a module fixture, 5-30 s): one worker each, so it runs once, not
once per worker that draws one of its tests."""
FIGURE_STYLE_TESTS = "tests/views/test_figure_style.py"
"""Its tests share one drawing of every figure (a module fixture, about 30 s): one worker draws them, not each."""


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` that also holds under pytest >= 9.2, whose node ids xdist 3.8 cannot suffix.

    xdist marks a test's group by appending ``@group`` to its node id, which pytest 9.2's structured
    ids ignore, so ``xdist_group`` marks alone no longer keep a group on one worker. Here the browser
    tests form one group by their path, the figure-style tests another, and each module of ``ONE_GRADEBOOK_RUN``
    one; any ``@group`` suffix xdist does manage to add still counts.
    Tests that read one notebook's run need no group: the notebook store's lock has the second wait.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class Scheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(BROWSER_TESTS):
                return "browser"
            if nodeid.startswith(FIGURE_STYLE_TESTS):
                return "figure-style"
            if nodeid.startswith(ONE_GRADEBOOK_RUN):
                return nodeid.split("::", 1)[0]
            return super()._split_scope(nodeid)

    return Scheduling(config, log)


SLOW = (
    "tests/browser/",
    "tests/grading/",
    REPLAY_TESTS,
    "tests/test_live_costs.py",
    "tests/test_build_kit.py",
    "exercises/",
    "tests/test_benchmark_script.py",
    "tests/test_parallel_benchmark_script.py",
    "tests/sim/test_serve_benchmark.py",
    "tests/views/test_figure_style.py",
    "tests/test_i18n_figures.py",
)
"""Where the slow tests are: a browser, the gradebook and its sandbox, a recorded notebook, nbconvert, the graded
exercises, the benchmark scripts run as a user runs them, every figure of the course drawn (in English for the style
and English-text checks, on one worker; in Chinese for the translation check). Any test that reads a notebook's run
(the ``notebook_store`` fixture, a kernel) is slow too."""


def pytest_collection_modifyitems(config, items):
    """Mark every slow test ``slow``, so ``make check`` (``-m "not slow"``) runs the rest."""
    root = Path(str(config.rootpath))
    for item in items:
        where = Path(str(item.path)).relative_to(root).as_posix() if str(item.path).startswith(str(root)) else ""
        if where.startswith(SLOW) or "notebook_store" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
