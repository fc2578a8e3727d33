"""Chinese figure text is drawn with a CJK font (no boxes, no missing-glyph warnings)."""

import warnings
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from agentlab.views import fonts  # noqa: E402

LABEL = "输入 token（每轮）"


def _draw(label: str) -> list[str]:
    """Render a figure with ``label`` as title and axis label; the warnings matplotlib raised."""
    fig, ax = plt.subplots()
    ax.set_title(label)
    ax.set_xlabel(label)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    plt.close(fig)
    return [str(w.message) for w in caught]


def test_the_bundled_cjk_font_is_installed_with_agentlab():
    path = fonts.bundled_font_path()
    assert path is not None and path.stat().st_size > 1_000_000, (
        "Noto Sans CJK SC is missing: mplfonts (an agentlab dependency) should ship it; rerun `make venv`"
    )


def test_a_chinese_label_without_the_cjk_font_is_missing_glyphs():
    """The check below can fail: with only matplotlib's default font, Chinese is drawn as boxes."""
    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        assert any("missing from font" in w for w in _draw(LABEL))


def test_a_chinese_label_uses_the_cjk_font_with_no_missing_glyph():
    family = fonts.use_cjk_font()
    assert family == fonts.CJK_FAMILY
    assert not [w for w in _draw(LABEL) if "missing from font" in w]
    used = {
        str(p)
        for p in font_manager.fontManager._find_fonts_by_props(
            font_manager.FontProperties(family=matplotlib.rcParams["font.family"])
        )
    }
    # the bundled file, or a system copy of the same family (Debian's fonts-noto-cjk, which the browser
    # tests install, carries Noto Sans CJK SC too and matplotlib may prefer it): either draws the glyphs
    cjk = {f.fname for f in font_manager.fontManager.ttflist if f.name == fonts.CJK_FAMILY}
    assert used & cjk, f"no {fonts.CJK_FAMILY} file among the fonts matplotlib uses: {sorted(used)}"
    # the bundled one is registered, whatever the system has (by name: a font cache written from another
    # checkout of the lab, e.g. a clean clone, records that checkout's path)
    assert fonts.BUNDLED_FILE in {Path(f).name for f in cjk}


def test_latin_text_keeps_the_default_font_first():
    fonts.use_cjk_font()
    assert matplotlib.rcParams["font.family"][0] != fonts.CJK_FAMILY


def test_agentlab_plots_register_the_font(sim, tools):
    import agentlab
    from agentlab.views.figures import plot_tokens_per_turn

    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        run = agentlab.run_agent(sim, agentlab.city_task(["巴黎", "伦敦"], "zh"), tools)
        fig = plot_tokens_per_turn(run)
        fig.suptitle(LABEL)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fig.canvas.draw()
        plt.close(fig)
        assert fonts.CJK_FAMILY in matplotlib.rcParams["font.family"]
    assert not [w for w in caught if "missing from font" in str(w.message)]


@pytest.fixture(autouse=True)
def _restore_rc():
    with matplotlib.rc_context():
        yield


def _boxes_in_a_fresh_process(make_figure: str, check: str) -> list:
    """Draw a figure made by ``make_figure`` (code run in a fresh process, before any CJK font was set),
    localized to zh-CN; ``check`` runs after the draw. Returns the 'missing from font' warnings."""
    import json
    import subprocess
    import sys

    code = (
        "import warnings, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
        + make_figure
        + "from agentlab.views.i18n import localize; localize(fig, 'zh-CN')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always'); fig.canvas.draw()\n"
        + check
        + "import json; print(json.dumps([str(w.message) for w in caught if 'missing from font' in str(w.message)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_figure_made_before_the_cjk_font_is_set_is_localized_without_boxes():
    """Notebook 04's first figure (zh-CN) was made with the default fonts; localize() must give its texts the CJK one."""
    title = "Wall-time speed-up with a simulated response time per call"
    assert (
        _boxes_in_a_fresh_process(
            f"fig, ax = plt.subplots(); ax.set_title({title!r})\n"
            "ax.set_xlabel('calls that can run at once (count)'); ax.annotate('成都 1.9x', (0.5, 0.5))\n",
            f"assert fig.axes[0].get_title() != {title!r}\n",
        )
        == []
    )


def test_tick_labels_written_at_draw_time_get_the_cjk_font_in_a_figure_made_before_it_was_set():
    """Notebook 06's and 08's first figures (zh-CN): category tick labels are empty until drawn, then translated
    (readable -> 易读); localize() must give the empty texts the CJK font too, or they draw as boxes."""
    assert (
        _boxes_in_a_fresh_process(
            "fig, ax = plt.subplots(); ax.bar(['readable', 'raw'], [1, 2])\n",
            "labels = [t.get_text() for t in ax.get_xticklabels()]\n"
            "assert labels != ['readable', 'raw'], labels  # translated at draw time, so the check means something\n",
        )
        == []
    )
