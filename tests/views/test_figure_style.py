"""Every figure a notebook draws, read as a student reads it: text large enough, counts in whole numbers,
no legend over a value, one colour-blind-safe palette (``agentlab.views.style``), and in the English
edition English only.

The figures are the ones ``tests/i18n_cases.py`` rebuilds for each figure function the notebooks call,
drawn in English; each is drawn once, read into plain data, and closed (the Chinese drawing of the same
cases is tests/test_i18n_figures.py's).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from i18n_cases import FIGURE_CASES
from matplotlib.text import Text

from agentlab.views.style import HIGHLIGHT, PALETTE, TINTS

PACKAGE = Path(__file__).resolve().parents[2] / "agentlab"
CJK = re.compile(r"[\u4e00-\u9fff]")
MIN_PT = 7.0
"""The smallest text any figure may draw."""
COUNT = re.compile(r"\((count|N)\)\s*$|number\)\s*$")


def _read(fig) -> dict:
    """What the checks need of one drawn figure, as plain data."""
    if not hasattr(fig.canvas, "get_renderer"):  # a figure made without pyplot: give it an Agg canvas
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    from agentlab.views import i18n

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    every = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    counts, covered = {}, []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            label = axis.get_label().get_text()
            if COUNT.search(label):
                counts[label] = [
                    t.get_text() for t in axis.get_ticklabels() if t.get_visible() and t.get_text().strip()
                ]
        legend = ax.get_legend()
        if legend is not None:
            box = legend.get_window_extent(renderer)
            covered += [
                t.get_text()
                for t in ax.texts
                if t.get_visible() and t.get_text().strip() and t.get_window_extent(renderer).overlaps(box)
            ]
    return {
        "chinese": [t for t in every if CJK.search(t)],
        "english": bool(i18n.untranslated(fig, as_drawn=True)),
        "translated_ticks": [
            type(axis.get_major_formatter()).__name__ == "Translated"
            for ax in fig.axes
            for axis in (ax.xaxis, ax.yaxis)
        ].count(True),
        "small": sorted({(t.get_text()[:30], t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_PT}),
        "counts": counts,
        "covered": covered,
        "on_axes": [
            (t.get_text()[:30], t.get_fontsize(), t.get_rotation()) for t in fig.axes[0].texts if t.get_text().strip()
        ]
        if fig.axes
        else [],
    }


@pytest.fixture(scope="module")
def figures(tmp_path_factory) -> dict[str, list[dict]]:
    """name -> what each figure its case draws shows, in English (each figure drawn once, then closed)."""
    import matplotlib.pyplot as plt

    read = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AGENTLAB_LANG", "en")
        for name, build in FIGURE_CASES.items():
            out = build(tmp_path_factory.mktemp(name))
            out = [f for f in (list(out.values()) if isinstance(out, dict) else list(out)) if hasattr(f, "findobj")]
            read[name] = [_read(fig) for fig in out]
            plt.close("all")  # a case's builder may draw figures it does not return (more than 20 open warn)
    return read


@pytest.mark.parametrize("name", sorted(FIGURE_CASES))
def test_english_figures_keep_their_english_text(figures, name):
    assert figures[name], f"{name}: the case drew no figure"
    for fig in figures[name]:
        assert not fig["chinese"], f"{name}: Chinese text in an English figure: {fig['chinese']}"
        assert fig["english"], f"{name}: the English figure shows no English text"
        assert not fig["translated_ticks"], f"{name}: English ticks rewritten"


@pytest.mark.parametrize("name", sorted(FIGURE_CASES))
def test_no_text_is_smaller_than_7_points(figures, name):
    for fig in figures[name]:
        assert not fig["small"], f"{name}: text under {MIN_PT:g} pt: {fig['small'][:5]}"


@pytest.mark.parametrize("name", sorted(FIGURE_CASES))
def test_a_counting_axis_has_whole_number_ticks(figures, name):
    for fig in figures[name]:
        for label, shown in fig["counts"].items():
            whole = [re.fullmatch(r"[-\u2212]?[\d,]+", s) is not None for s in shown]
            assert shown and all(whole), f"{name}: {label!r} ticks read {shown}"


@pytest.mark.parametrize("name", sorted(FIGURE_CASES))
def test_no_legend_covers_a_value_written_on_the_plot(figures, name):
    for fig in figures[name]:
        assert not fig["covered"], f"{name}: the legend covers {fig['covered'][:4]}"


def test_the_swim_lanes_label_every_arrow_horizontally_at_9_points_or_more(figures):
    for fig in figures["plot_swimlane"] + figures["trace_stepper"]:
        assert fig["on_axes"], "no arrow labels"
        bad = [(text, size, turn) for text, size, turn in fig["on_axes"] if size < 9 or turn not in (0.0, 360.0)]
        assert not bad, f"swim-lane labels under 9 pt or turned: {bad[:5]}"


def test_every_colour_the_package_names_is_from_the_palette():
    """Okabe-Ito's colours, their tints, greys and the highlight; no red-green colour map."""
    allowed = {c.lower() for c in PALETTE.values()} | set(TINTS) | {HIGHLIGHT}
    found = {}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text("utf-8")
        for colour in re.findall(r"[\"'](#[0-9a-fA-F]{6})[\"']", text):
            r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
            if colour.lower() not in allowed and not r == g == b:
                found.setdefault(colour, path.relative_to(PACKAGE).as_posix())
        assert not re.search(r"RdYlGn|RdGn|\"RdYl", text), f"{path.name}: a red-green colour map"
    assert not found, f"colours outside agentlab/views/style.py's palette: {found}"
