"""Chinese text in figures: a CJK font for matplotlib, so 中文 labels render as glyphs, not boxes.

The font is Noto Sans CJK SC (SIL Open Font License), shipped inside the ``mplfonts`` package from
PyPI, which is one of agentlab's dependencies, so ``make venv``, ``pip install -e .``, conda and
Binder all bring it. Only the font file is used (mplfonts' own set-up, which rewrites matplotlib's
configuration, is not run). Where that file is missing, a system CJK font (e.g. Debian's
``fonts-noto-cjk``) is looked for instead.

``use_cjk_font()`` registers the font and puts it after the default Latin font in matplotlib's
family list; matplotlib (>= 3.6) then falls back to it glyph by glyph, so Latin text looks as
before and Chinese text uses the CJK font. Every agentlab plot calls it; calling it twice is free.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

CJK_FAMILY = "Noto Sans CJK SC"
"""The family name matplotlib knows the bundled font by."""
BUNDLED_FILE = "NotoSansCJKsc-Regular.otf"
"""The font file inside the ``mplfonts`` package's ``fonts/`` folder."""
SYSTEM_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei")
"""System families accepted when the bundled file is missing."""

_done: str | None = None


def bundled_font_path() -> Path | None:
    """Path of the bundled Noto Sans CJK SC file, without importing mplfonts (its import pulls extra packages)."""
    spec = importlib.util.find_spec("mplfonts")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "fonts" / BUNDLED_FILE
        if path.is_file():
            return path
    return None


def _register() -> str:
    """Add the font to matplotlib's font list (once) and return its family name."""
    global _done
    if _done:
        return _done
    from matplotlib import font_manager

    path = bundled_font_path()
    if path is not None:
        font_manager.fontManager.addfont(str(path))
        family = font_manager.FontProperties(fname=str(path)).get_name()
    else:
        have = {f.name for f in font_manager.fontManager.ttflist}
        family = next((f for f in SYSTEM_FAMILIES if f in have), "")
        if not family:
            raise RuntimeError(
                "agentlab.views.fonts: no CJK font found for Chinese figure text; install agentlab's "
                "dependencies again (`make venv` or `pip install -e .` brings mplfonts), "
                "or install a system font (Debian: apt-get install fonts-noto-cjk)"
            )
    _done = family
    return family


def use_cjk_font() -> str:
    """Make matplotlib draw CJK characters; returns the family used. Raises naming the fix if there is none.

    Checked on every call (cheap), so a notebook that resets matplotlib's settings gets the font back
    at its next agentlab plot.
    """
    import matplotlib

    family = _register()
    families = list(matplotlib.rcParams["font.family"])
    if family not in families:
        matplotlib.rcParams["font.family"] = families + [family]
    return family
