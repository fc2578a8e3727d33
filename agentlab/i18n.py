"""Figure text in the notebook's language: the zh-CN edition gets Chinese titles and labels, same code.

Both editions of a notebook run identical code, so the language cannot be an argument. It is read
from the place the code runs in:

1. ``AGENTLAB_LANG`` (``en`` or ``zh-CN``) when set;
2. otherwise ``zh-CN`` when the working directory is inside a folder named ``zh-CN`` (a Jupyter
   kernel starts in its notebook's folder, so ``notebooks/zh-CN/*.ipynb`` gets Chinese);
3. otherwise English.

Every agentlab plot function draws in English and ends with ``localize(fig)``, which walks the
figure's texts (titles, axis labels, legend entries, annotations, tick labels) and rewrites each one
found in the translation tables: ``agentlab/data/i18n/<lang>/*.json``, each file
``{"exact": {english: translated}, "patterns": [[regex, replacement], ...]}``. A text no table knows
stays English, so a missing entry shows as English, never as an error. One file per area of the
package (``plots.json``, ``context.json``...) keeps additions from colliding.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "zh-CN")
"""The languages agentlab writes figure text in."""
TABLES = Path(__file__).parent / "data" / "i18n"
"""One folder per language, each holding ``*.json`` translation tables."""


def language() -> str:
    """``"zh-CN"`` or ``"en"``: from ``AGENTLAB_LANG``, else from the working directory, else English."""
    chosen = os.environ.get("AGENTLAB_LANG", "").strip()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(f"AGENTLAB_LANG={chosen!r}: agentlab writes figure text in {', '.join(LANGUAGES)}; "
                             "set one of these or unset it (the zh-CN notebook folder picks Chinese by itself)")
        return chosen
    return "zh-CN" if "zh-CN" in Path.cwd().parts else "en"


@lru_cache(maxsize=None)
def _table(lang: str) -> tuple[dict[str, str], tuple[tuple[re.Pattern, str], ...]]:
    """The merged exact and pattern tables of one language (read once)."""
    exact: dict[str, str] = {}
    patterns: list[tuple[re.Pattern, str]] = []
    for path in sorted((TABLES / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        exact.update(data.get("exact", {}))
        for regex, replacement in data.get("patterns", []):
            patterns.append((re.compile(regex), replacement))
    return exact, tuple(patterns)


def tr(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: :func:`language`): an exact entry, else the first matching pattern,
    applied line by line; unknown text comes back unchanged."""
    lang = lang or language()
    if lang == "en" or not text:
        return text
    exact, patterns = _table(lang)
    out = []
    for line in text.split("\n"):
        if line in exact:
            out.append(exact[line])
            continue
        for regex, replacement in patterns:
            if regex.fullmatch(line):
                line = regex.sub(replacement, line)
                break
        out.append(line)
    return "\n".join(out)


def localize(fig: Any, lang: str | None = None) -> Any:
    """Rewrite every text of a matplotlib figure in ``lang`` (default: :func:`language`); returns ``fig``."""
    lang = lang or language()
    if lang == "en" or fig is None:
        return fig
    from matplotlib.text import Text

    from .fonts import use_cjk_font
    use_cjk_font()
    for artist in fig.findobj(Text):
        text = artist.get_text()
        if text:
            new = tr(text, lang)
            if new != text:
                artist.set_text(new)
    return fig


def untranslated(fig: Any, lang: str = "zh-CN") -> list[str]:
    """The texts of a figure that still read as English words in ``lang`` (for tests of the tables)."""
    from matplotlib.text import Text

    words = re.compile(r"[A-Za-z]{3,}")
    keep = re.compile(r"(claude|sonnet|opus|haiku|USD|tool_use|tool_result|end_turn|max_tokens|"
                      r"get_weather|save_note|JSON|API|ReAct|agent|workflow)", re.I)
    left = []
    for artist in fig.findobj(Text):
        text = tr(artist.get_text(), lang)
        if words.search(keep.sub("", text)):
            left.append(text)
    return left
