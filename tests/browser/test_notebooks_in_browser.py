"""The notebooks that show a widget, run in a real JupyterLab in a real (headless) Chromium, as a student would.

For each notebook of either edition that shows a widget, and the first notebook (standing for the plain ones, see
``_in_the_browser``): open a copy of it, run all cells, wait until
the server says its kernel is idle and the page shows every code cell executed, then check: no error
output, every cell that draws a figure shows an image, and for each trace stepper, moving its slider
changes what it shows. A scratch notebook made here (build/, never committed) exercises the widgets
whatever the course notebooks contain. Screenshots: build/browser-screenshots/.

JupyterLab loads once (the ``lab_page`` fixture); each notebook is opened in it with JupyterLab's own
``docmanager:open`` command (what double-clicking it in the file browser does), in a fresh kernel,
and closed afterwards, kernel shut down. How long each step took goes into the test report
(``steps`` property) and the run's summary.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from i18n_cases import FIGURE_CELL

from .conftest import ROOT, SHOTS

pytestmark = pytest.mark.xdist_group(
    "browser"
)  # one JupyterLab, one Chromium: one xdist worker, in file order (conftest.py's scheduler enforces it by path)

NOTEBOOK_DIR = ROOT / "notebooks"
WIDGETS = re.compile(r"\b(trace_stepper|city_experiment|experiment_controls)\(")
"""The calls that show a widget: the browser is the only place its frontend (and its translated labels) runs."""


PLAIN = NOTEBOOK_DIR / "00_setup_and_your_key.ipynb"
"""The one notebook without a widget run here: the first a student opens, standing for every plain notebook."""


def _in_the_browser(path: Path) -> bool:
    """A notebook of either edition that shows a widget, and :data:`PLAIN`. What the page shows of any other
    notebook is what its headless run (tests/test_notebooks.py) already checks of every notebook of both
    editions, in the same kind of kernel started in its edition's folder: every cell ran, no error output, no
    traceback on stderr, an image from every cell that draws a figure. The browser adds the widgets'
    frontend (their sliders, controls and translated labels), which runs nowhere else; a plain notebook's
    second run here would check nothing new, so one stands for them all."""
    return path == PLAIN or bool(WIDGETS.search(path.read_text("utf-8")))


NOTEBOOKS = sorted(
    p for p in NOTEBOOK_DIR.glob("**/*.ipynb") if ".ipynb_checkpoints" not in p.parts and _in_the_browser(p)
)
RUN_S = 600
"""Longest a notebook may take to run all its cells, in seconds (a bound, not a speed claim)."""

SCRATCH_CELLS = [
    "import tempfile\nfrom pathlib import Path\n\nimport agentlab\nfrom agentlab.experiments.city import city_experiment\nfrom agentlab.views.widgets import trace_stepper\n\n"
    "client = agentlab.connect()\nworkdir = Path(tempfile.mkdtemp(prefix='agentlab-browser-'))\n"
    "run = agentlab.run_agent(client, agentlab.city_task(['Paris', 'London']), agentlab.task_tools(workdir),\n"
    "                         trace=workdir / 'agent.jsonl')",
    "trace_stepper(run)",
    "city_experiment()",
]


def _scratch(workdir: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Widgets scratch notebook (made by the browser test)")]
    nb.cells += [nbformat.v4.new_code_cell(src) for src in SCRATCH_CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = workdir / "00_widgets_scratch.ipynb"
    nbformat.write(nb, path)
    return path


CASES = [pytest.param(p, id=str(p.relative_to(NOTEBOOK_DIR))) for p in NOTEBOOKS] + [
    pytest.param(None, id="widgets_scratch")
]

PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
"""The notebook tab in front."""
_READ_CELLS = (
    """() => Array.from(document.querySelectorAll('"""
    + PANEL
    + """ .jp-Notebook .jp-CodeCell')).map(c => ({
  prompt: (c.querySelector('.jp-InputArea-prompt') || {}).textContent || '',
  images: c.querySelectorAll('.jp-OutputArea-output img').length,
  errors: Array.from(c.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')).map(e => e.innerText.slice(0, 1500)),
  stderr: Array.from(c.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')).map(e => e.innerText.slice(0, 1500)),
  steppers: c.querySelectorAll('.agentlab-stepper').length,
}))"""
)


def _kernel_state(lab, rel: str) -> str | None:
    for s in lab.api("/api/sessions"):
        if s.get("path") == rel:
            return s["kernel"]["execution_state"]
    return None


POLL_MS = 300
"""How often the page and the server are polled while a notebook runs."""
STABLE_POLLS = 4
"""Polls in a row that must find everything done (about a second): not a gap between two queued cells."""


def _wait_until_done(page, lab, rel: str, n_code: int) -> list[dict]:
    """Poll the server (kernel idle) and the page (no cell queued, every code cell numbered), bounded by RUN_S."""
    deadline, stable = time.monotonic() + RUN_S, 0
    while time.monotonic() < deadline:
        cells = page.evaluate(_READ_CELLS)
        queued = any("*" in c["prompt"] for c in cells)
        numbered = sum(any(ch.isdigit() for ch in c["prompt"]) for c in cells)
        errored = any(c["errors"] for c in cells)
        if _kernel_state(lab, rel) == "idle" and not queued and (numbered == n_code or errored):
            stable += 1
            if stable >= STABLE_POLLS:
                return cells
        else:
            stable = 0
        page.wait_for_timeout(POLL_MS)
    pytest.fail(f"{rel}: cells still running after {RUN_S} s (prompts: {[c['prompt'] for c in cells]})")


def _run_all(page) -> None:
    """JupyterLab's own "Run All Cells" command, through the command palette."""
    page.locator(f"{PANEL} .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+Shift+C")
    palette = page.locator(".lm-CommandPalette-input").first
    palette.wait_for(state="visible", timeout=30_000)
    palette.fill("Run All Cells")
    page.locator(".lm-CommandPalette-item", has_text="Run All Cells").first.click(timeout=30_000)


def _slider_changes_the_stepper(page, name: str) -> None:
    stepper = page.locator(".agentlab-stepper").first
    stepper.scroll_into_view_if_needed(timeout=30_000)
    before = stepper.locator(".agentlab-stepper-tokens").inner_text(timeout=30_000)
    page.screenshot(path=str(SHOTS / f"{name}--stepper-before.png"), full_page=False)
    handle = stepper.locator(".noUi-handle").first
    handle.focus()
    page.keyboard.press("Home")  # noUiSlider: Home jumps to the first turn
    deadline = time.monotonic() + 30
    after = before
    while after == before and time.monotonic() < deadline:
        page.wait_for_timeout(300)
        after = stepper.locator(".agentlab-stepper-tokens").inner_text()
    page.screenshot(path=str(SHOTS / f"{name}--stepper-after.png"), full_page=False)
    assert after != before, f"{name}: moving the trace stepper's slider did not change what it shows"
    first = "第 1 轮" if name.startswith("zh-CN") else "turn 1"  # a zh-CN kernel writes the stepper in Chinese
    assert first in after, f"{name}: after moving the slider to the start the stepper shows {after[:80]!r}"


def _control_reruns_the_experiment(page, name: str) -> None:
    panel = page.locator(".agentlab-experiment").first
    panel.scroll_into_view_if_needed(timeout=30_000)
    image = panel.locator("img").first
    before = image.get_attribute("src", timeout=30_000)
    panel.locator("select", has=page.locator("option", has_text="workflow")).first.select_option("workflow")  # path
    deadline, after = time.monotonic() + 60, before
    while (after == before or "path='workflow'" not in panel.inner_text()) and time.monotonic() < deadline:
        page.wait_for_timeout(300)
        after = image.get_attribute("src")
    page.screenshot(path=str(SHOTS / f"{name}--experiment-after.png"))
    assert "path='workflow'" in panel.inner_text(), f"{name}: choosing path=workflow did not rerun the experiment"
    assert after != before, f"{name}: the experiment reran but its figure was not redrawn"


class _Steps:
    """Seconds spent in each step of one notebook's run, in order."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._t = time.monotonic()

    def done(self, step: str) -> None:
        now = time.monotonic()
        self.seconds[step] = round(self.seconds.get(step, 0.0) + now - self._t, 2)
        self._t = now


def _open(page, rel: str) -> None:
    """Open the notebook in the running JupyterLab (its docmanager:open command), in front."""
    page.evaluate(
        "async p => { await window.jupyterapp.commands.execute('docmanager:open', {path: p}); return true; }", rel
    )


def _close_all(page) -> None:
    """Close every tab without a save prompt: the run's outputs are not saved (the copy is thrown away)."""
    page.evaluate("""() => { for (const w of Array.from(window.jupyterapp.shell.widgets('main'))) {
        if (w.context && w.context.model) { w.context.model.dirty = false; }
        w.close(); } return true; }""")


@pytest.mark.parametrize("source", CASES)
def test_notebook_runs_in_jupyterlab_in_chromium(source, lab, lab_page, workdir, record_property) -> None:
    if source is None:
        path = _scratch(workdir)
        name = path.stem
    else:
        rel_src = source.relative_to(NOTEBOOK_DIR)
        path = workdir / rel_src
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, path)
        name = str(rel_src.with_suffix("")).replace("/", "_")
    rel = path.relative_to(ROOT).as_posix()
    code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    page, steps = lab_page.page, _Steps()
    try:
        _open(page, rel)
        page.locator(f"{PANEL} .jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        steps.done("open")
        deadline = time.monotonic() + 120
        while _kernel_state(lab, rel) != "idle":  # the kernel must be up before "Run All"
            if time.monotonic() > deadline:
                pytest.fail(f"{rel}: no idle kernel within 120 s (state {_kernel_state(lab, rel)!r})")
            page.wait_for_timeout(200)
        steps.done("kernel start")
        _run_all(page)
        cells = _wait_until_done(page, lab, rel, len(code))
        steps.done("run all cells")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        assert len(cells) == len(code), f"{rel}: the page shows {len(cells)} code cells, the file has {len(code)}"
        errors = [(i, c["errors"]) for i, c in enumerate(cells) if c["errors"]]
        assert not errors, f"{rel}: error output in code cells {errors}"
        tracebacks = [(i, s) for i, c in enumerate(cells) for s in c["stderr"] if "Traceback" in s]
        assert not tracebacks, f"{rel}: tracebacks on stderr {tracebacks}"
        unrun = [i for i, c in enumerate(cells) if not any(ch.isdigit() for ch in c["prompt"])]
        assert not unrun, f"{rel}: code cells {unrun} never ran"
        missing = [i for i, src in enumerate(code) if FIGURE_CELL.search(src) and cells[i]["images"] == 0]
        assert not missing, f"{rel}: code cells {missing} draw a figure but show no image"
        first_image = page.locator(f"{PANEL} .jp-OutputArea-output img").first
        if first_image.count():
            first_image.scroll_into_view_if_needed(timeout=30_000)
            page.screenshot(path=str(SHOTS / f"{name}--first-figure.png"))
        steps.done("checks + screenshots")
        if any("trace_stepper(" in src for src in code):
            assert any(c["steppers"] for c in cells), f"{rel}: a cell calls trace_stepper but no stepper is shown"
            _slider_changes_the_stepper(page, name)
            steps.done("stepper slider")
        if any("city_experiment(" in src for src in code):
            _control_reruns_the_experiment(page, name)
            steps.done("experiment control")
    finally:
        try:
            _close_all(page)
        except Exception:  # a dialog or a broken page: start the next notebook on a fresh JupyterLab
            lab_page.reload()
        finally:
            for s in lab.api("/api/sessions"):
                if s.get("path") == rel:
                    lab.api(f"/api/sessions/{s['id']}", method="DELETE")
        steps.done("close + kernel shutdown")
        record_property("steps", steps.seconds)


def test_screenshots_are_saved(browser) -> None:
    """Runs last (file order): one screenshot per notebook run above, plus the stepper before/after pair."""
    shots = sorted(p.name for p in SHOTS.glob("*.png"))
    expected = [str(p.relative_to(NOTEBOOK_DIR).with_suffix("")).replace("/", "_") + ".png" for p in NOTEBOOKS]
    missing = [e for e in expected + ["00_widgets_scratch.png"] if e not in shots]
    assert not missing, f"screenshots missing from {SHOTS}: {missing} (have {json.dumps(shots)})"
