"""Interactive widgets for the notebooks (ipywidgets), with a static fallback wherever no widget frontend runs.

- ``trace_stepper(run_or_trace)``: a slider over a run's model calls showing the messages array as
  that call's request carried it (new blocks highlighted), its tokens and the totals so far, and
  where the call sits in the swim-lane picture.
- ``experiment_controls(controls, run)``: one widget per control; changing one calls
  ``run(**values)``, which returns a matplotlib figure, and redraws it in place.
- the concrete use, ``city_experiment()`` (model, number of cities, agent or workflow, turn limit), is
  an experiment and lives with them: ``agentlab.experiments.city``.

**Two display paths.** Each widget is an ``ipywidgets.VBox`` whose display bundle also carries a
static copy (PNG and HTML: the current figure and a note). JupyterLab draws the live widget; a
renderer without widgets (nbclient in ``make test``, nbconvert, GitHub) keeps the static copy, never
an error. ``AGENTLAB_WIDGETS=static`` (set by the notebook tests) or running with no IPython kernel
gives the static copy alone; ``AGENTLAB_WIDGETS=live`` forces the widget bundle.
"""

from __future__ import annotations

import base64
import html
import io
import os
from typing import Any, Callable

import ipywidgets as w

from agentlab.views.i18n import localize, tr
from agentlab.views.stepper import TurnFrame, messages_html, tokens_html, turn_frames

MODE_ENV = "AGENTLAB_WIDGETS"
"""Environment variable: ``static`` (no widget, only the static copy) or ``live``; unset = detect."""
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
"""The mime type a Jupyter widget frontend renders (the static copy sits beside it)."""


def widget_mode() -> str:
    """``"live"`` when an IPython kernel can talk to a widget frontend, else ``"static"`` (``AGENTLAB_WIDGETS`` wins)."""
    forced = os.environ.get(MODE_ENV, "").strip().lower()
    if forced in ("static", "live"):
        return forced
    if forced:
        raise ValueError(f"{MODE_ENV}={forced!r}: use 'static' (figures only) or 'live' (interactive widgets)")
    try:
        from IPython import get_ipython
    except ImportError:
        return "static"
    shell = get_ipython()
    return "live" if shell is not None and getattr(shell, "kernel", None) is not None else "static"


def figure_png(fig: Any, dpi: int = 90) -> bytes:
    """A matplotlib figure as PNG bytes; the figure is closed so the notebook does not draw it twice."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


STATIC_NOTE = "Static view: the interactive version needs a live Jupyter frontend (run this notebook in JupyterLab)."
"""The note above a widget's static copy (in the notebook's language, through :func:`agentlab.views.i18n.tr`)."""


class _StaticCopy:
    """Mixin: the display bundle holds the widget (when live) and a static copy of what it shows now."""

    def static_html(self) -> str:  # pragma: no cover - every widget overrides it
        raise NotImplementedError

    def static_png(self) -> bytes | None:
        return None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        png = self.static_png()
        note = (
            "<p class='agentlab-static-note' style='color:#666;font-size:12px'><i>"
            + html.escape(tr(STATIC_NOTE))
            + "</i></p>"
        )
        bundle = {"text/html": note + self.static_html(), "text/plain": f"<{type(self).__name__}: static view>"}
        if png:
            bundle["image/png"] = base64.b64encode(png).decode()
        if widget_mode() == "live":
            bundle.update(super()._repr_mimebundle_(**kwargs))  # type: ignore[misc]
        return bundle


def _img(png: bytes | None) -> str:
    return f"<img src='data:image/png;base64,{base64.b64encode(png).decode()}'/>" if png else ""


class TraceStepper(_StaticCopy, w.VBox):
    """A slider over a run's model calls: messages as sent (new blocks highlighted), tokens, swim-lane position."""

    def __init__(self, source: Any, turn: int | None = None) -> None:
        from agentlab.views.swimlane import trace_events

        self.events = trace_events(source)
        self.frames: list[TurnFrame] = turn_frames(source)
        self.estimated = getattr(source, "estimated", None)
        n = len(self.frames)
        start = n if turn is None else turn
        if not 1 <= start <= n:
            raise ValueError(f"trace_stepper(turn={turn!r}): this run has turns 1 to {n}")
        self.slider = w.IntSlider(
            value=start, min=1, max=max(n, 1), step=1, description=tr("turn"), continuous_update=True, disabled=n == 1
        )
        self.messages = w.HTML(layout=w.Layout(width="60%", max_height="420px", overflow="auto"))
        self.messages.add_class("agentlab-stepper-messages")
        self.tokens = w.HTML(layout=w.Layout(width="40%"))
        self.tokens.add_class("agentlab-stepper-tokens")
        self.lane = w.Image(format="png")
        self._pngs: dict[int, bytes] = {}
        super().__init__([self.slider, w.HBox([self.messages, self.tokens]), self.lane])
        self.add_class("agentlab-stepper")
        self.slider.observe(self._show, names="value")
        self._show()

    @property
    def frame(self) -> TurnFrame:
        """The frame of the turn the slider is on."""
        return self.frames[self.slider.value - 1]

    def _show(self, change: Any = None) -> None:
        png = self.static_png()  # the slow part first, so the three views change together
        self.messages.value = messages_html(self.frame)
        self.tokens.value = tokens_html(self.frame, self.estimated)
        self.lane.value = png

    def static_png(self) -> bytes:
        """The swim lanes with this turn's steps highlighted (drawn once per turn, then reused)."""
        turn = self.frame.turn
        if turn not in self._pngs:
            self._pngs[turn] = figure_png(lane_figure(self.events, turn))
        return self._pngs[turn]

    def static_html(self) -> str:
        return messages_html(self.frame) + tokens_html(self.frame, self.estimated) + _img(self.static_png())


def lane_figure(events: list[dict], turn: int, max_steps: int = 24) -> Any:
    """``plot_swimlane`` with the steps of model call ``turn`` shaded, or a note if they are collapsed."""
    from agentlab.views.swimlane import collapse_steps, plot_swimlane, step_y, swimlane_steps

    fig = plot_swimlane(events, max_steps=max_steps)
    ax = fig.axes[0]
    shown, _ = collapse_steps(swimlane_steps(events), max_steps)
    ys = [step_y(p) for p, s in enumerate(shown, start=1) if s is not None and s.turn == turn]
    if ys:
        ax.axhspan(min(ys) - 0.45, max(ys) + 0.45, color="#ffd54f", alpha=0.35, zorder=0)
        where = "shaded"
    else:
        where = "inside the collapsed band"
    ax.set_title(f"{ax.get_title()}: model call {turn} {where}", fontsize=10)
    return localize(fig)


def trace_stepper(run_or_trace_path: Any, turn: int | None = None) -> TraceStepper:
    """A stepper over a ``Run`` (run with ``trace=...``), a trace path, or a trace's events; starts at the last turn."""
    return TraceStepper(run_or_trace_path, turn)


def _control(name: str, spec: Any) -> w.ValueWidget:
    """A widget from a control spec: a widget as is, a bool, a list of options, or ``(low, high[, start])`` ints."""
    style = {"description_width": "initial"}
    if isinstance(spec, w.ValueWidget):
        return spec
    if isinstance(spec, bool):
        return w.Checkbox(value=spec, description=name, style=style)
    if isinstance(spec, list) and spec:
        return w.Dropdown(options=spec, value=spec[0], description=name, style=style)
    if isinstance(spec, tuple) and len(spec) in (2, 3) and all(isinstance(v, int) for v in spec) and spec[0] <= spec[1]:
        start = spec[2] if len(spec) == 3 else spec[0]
        return w.IntSlider(
            value=start, min=spec[0], max=spec[1], description=name, continuous_update=False, style=style
        )
    raise ValueError(
        f"experiment_controls: control {name!r} = {spec!r} is not a control; use a list of options, "
        "True/False, a (low, high) or (low, high, start) tuple of ints, or an ipywidgets value widget"
    )


class ExperimentControls(_StaticCopy, w.VBox):
    """Controls that rerun an experiment: ``run(**values)`` returns a figure, redrawn in place on every change."""

    def __init__(self, controls: dict[str, Any], run: Callable[..., Any]) -> None:
        if not controls:
            raise ValueError("experiment_controls: give at least one control, e.g. {'cities': (2, 6)}")
        self.run = run
        self.controls = {name: _control(name, spec) for name, spec in controls.items()}
        self.figure = w.Image(format="png")
        self.status = w.HTML()
        self.runs = 0
        """How many times ``run`` has been called."""
        super().__init__([w.HBox(list(self.controls.values())), self.status, self.figure])
        self.add_class("agentlab-experiment")
        for control in self.controls.values():
            control.observe(self.rerun, names="value")
        self.rerun()

    @property
    def values(self) -> dict[str, Any]:
        """The current value of every control, by name."""
        return {name: c.value for name, c in self.controls.items()}

    def rerun(self, change: Any = None) -> None:
        """Call ``run`` with the current values and show its figure; a failure after the first run is shown, not raised."""
        values = self.values
        try:
            png = figure_png(self.run(**values))
        except Exception as e:
            if self.runs == 0:
                raise
            failed = tr(
                f"run({_args(values)}) failed: {type(e).__name__}: {e}; the figure below is from the last good run"
            )
            self.status.value = f"<span style='color:#D55E00'>{html.escape(failed)}</span>"
            return
        self.runs += 1
        self.figure.value = png
        self.status.value = f"<small>{html.escape(tr(f'ran with {_args(values)}'), quote=False)}</small>"

    def static_png(self) -> bytes:
        return bytes(self.figure.value)

    def static_html(self) -> str:
        return self.status.value + _img(self.static_png())


def _args(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def experiment_controls(controls: dict[str, Any], run: Callable[..., Any]) -> ExperimentControls:
    """Widgets for ``controls`` (name -> spec) that call ``run(**values) -> figure`` and redraw it on every change."""
    return ExperimentControls(controls, run)


__all__ = [
    "trace_stepper",
    "TraceStepper",
    "experiment_controls",
    "ExperimentControls",
    "widget_mode",
    "figure_png",
    "lane_figure",
]
