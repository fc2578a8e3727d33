"""One look for every figure of the lab: a colour-blind-safe palette, and whole numbers on count axes.

The palette is Okabe and Ito's (https://jfly.uni-koeln.de/color/): eight colours told apart with the common
forms of colour blindness, so no figure says something in red against green alone. Heatmaps use
``cividis``, made for the same purpose. Greys (equal red, green and blue) and the highlight yellow of the
steppers come on top. ``tests/views/test_figure_style.py`` holds the package's colours to this list.

An axis counts things when its label says so (``"... (count)"``, ``"(N)"``, ``"... number)"``): its ticks are
then whole numbers, never 2.5 cities. Every plot function ends with ``localize(fig)``, which applies this
before it translates (``views.i18n``).
"""

from __future__ import annotations

import re
from typing import Any

PALETTE = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "bluish green": "#009E73",
    "orange": "#E69F00",
    "reddish purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}
"""Okabe-Ito's eight colours, by name."""
TINTS = {"#b3a2c7": "light purple", "#9dc3e6": "light blue", "#f4b183": "light orange", "#5b3f8c": "dark purple"}
"""Lighter or darker partners of a palette colour, each beside its own full colour in one figure."""
HIGHLIGHT = "#ffd54f"
"""The steppers' and the swim lanes' highlight: the lane that acts, the turn being looked at."""
HEATMAP = "cividis"
"""The colour map of every heatmap (``cividis``: readable with colour blindness, and in greyscale)."""
_COUNT = re.compile(r"\((count|N)\)\s*$|number\)\s*$")


def whole_number_ticks(fig: Any) -> None:
    """Whole-number ticks on every axis whose label says it counts (``(count)``, ``(N)``, ``... number)``)."""
    import math

    from matplotlib.ticker import MaxNLocator

    for ax in getattr(fig, "axes", ()):
        for axis in (ax.xaxis, ax.yaxis):
            if not _COUNT.search(axis.get_label().get_text()) or _fixed(axis):
                continue
            low, high = sorted(axis.get_view_interval())
            whole = list(range(math.ceil(low), math.floor(high) + 1))
            if len(whole) < 2:  # a narrow axis (one value drawn): MaxNLocator would fall back to fractions
                axis.set_ticks(whole)
            else:
                axis.set_major_locator(MaxNLocator(integer=True))


def _fixed(axis: Any) -> bool:
    """True when the plot set the ticks itself (``set_xticks``): its positions are kept as they are."""
    return type(axis.get_major_locator()).__name__ == "FixedLocator"


def text_on(cmap: str, fraction: float) -> str:
    """``"white"`` or ``"black"``: the text colour readable on ``cmap``'s colour at ``fraction`` (0 to 1)."""
    import matplotlib

    r, g, b, _ = matplotlib.colormaps[cmap](min(1.0, max(0.0, fraction)))
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
