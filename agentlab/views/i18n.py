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

A pattern's captured parts are translated too (the name ``"(\\w+): who does what"`` captures goes through
the exact table), and tick labels that formatters write at draw time (category names,
labels given to ``set_xticks``) go through the tables as they are drawn. Widget and printed text use
:func:`tr` directly. A table opts in to the same with ``df.attrs[SHOWN_IN_LANGUAGE] = True`` (its prose has been
read against the translated labels): in a zh-CN kernel ``use()`` (every notebook's first cell) has
IPython show such a DataFrame through :func:`frame`, so the data and the code stay English and only
what the student sees changes.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

SHOWN_IN_LANGUAGE = "agentlab_shown_in_language"
"""The ``DataFrame.attrs`` key of a table shown with translated labels and text (see :func:`frame`)."""
LANGUAGES = ("en", "zh-CN")
"""The languages agentlab writes figure text in."""
TABLES = Path(str(resources.files("agentlab"))) / "data" / "i18n"  # the package's data, wherever this module lives
"""One folder per language, each holding ``*.json`` translation tables."""


def language() -> str:
    """``"zh-CN"`` or ``"en"``: from ``AGENTLAB_LANG``, else from the working directory, else English."""
    chosen = os.environ.get("AGENTLAB_LANG", "").strip()
    if chosen:
        if chosen not in LANGUAGES:
            raise ValueError(
                f"AGENTLAB_LANG={chosen!r}: agentlab writes figure text in {', '.join(LANGUAGES)}; "
                "set one of these or unset it (the zh-CN notebook folder picks Chinese by itself)"
            )
        return chosen
    return "zh-CN" if "zh-CN" in Path.cwd().parts else "en"


def task_language(lang: str | None, caller: str) -> str:
    """``"en"`` or ``"zh"``, the language a task is written in: ``lang`` checked, or with ``None`` the
    notebook's (:func:`language`), so the same code cell asks in Chinese in the zh-CN edition."""
    if lang is None:
        return "zh" if language() == "zh-CN" else "en"
    if lang not in ("en", "zh"):
        raise ValueError(
            f"{caller}(lang={lang!r}): the task is written in 'en' or 'zh' (or None: the notebook's language)"
        )
    return lang


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
            match = regex.fullmatch(line)
            if match:
                line = _expand(match, replacement, lang)
                break
        out.append(line)
    return "\n".join(out)


_GROUP = re.compile(r"\\(\d+)|\\g<(\w+)>")


def _expand(match: re.Match, replacement: str, lang: str) -> str:
    """``replacement`` with ``\\1`` / ``\\g<name>`` filled in, each captured part itself translated when it is
    shorter than the whole line (so one pattern serves every name it captures)."""
    whole = match.group(0)

    def fill(ref: re.Match) -> str:
        key = ref.group(1) or ref.group(2)
        part = match.group(int(key) if key.isdigit() else key) or ""
        return tr(part, lang) if len(part) < len(whole) else part

    return _GROUP.sub(fill, replacement)


def localize(fig: Any, lang: str | None = None) -> Any:
    """Finish a figure for its notebook: whole-number ticks on its count axes (``views.style``, read from the
    English labels), then every text in ``lang`` (default: :func:`language`); returns ``fig``."""
    from agentlab.views.style import whole_number_ticks

    if fig is not None:
        whole_number_ticks(fig)
    lang = lang or language()
    if lang == "en" or fig is None:
        return fig
    import matplotlib
    from matplotlib.text import Text

    from agentlab.views.fonts import use_cjk_font

    use_cjk_font()
    families = list(matplotlib.rcParams["font.family"])  # now with the CJK font last
    for artist in fig.findobj(Text):
        text = artist.get_text()
        new = tr(text, lang)
        if new != text:
            artist.set_text(new)
        # a text made before the CJK font was registered keeps the old family list: without this, the
        # first figure of a Chinese notebook drew its Chinese in DejaVu Sans, as boxes. Empty ones too:
        # a tick label is empty until its formatter writes it at draw time (notebook 06's and 08's first
        # figures drew their translated category names, 易读 and 原始, in DejaVu Sans)
        artist.set_fontfamily(families)
    for ax in fig.axes:  # tick labels are written by formatters at draw time: translate what they write
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if type(formatter).__name__ in _TEXT_FORMATTERS:
                axis.set_major_formatter(_translated_formatter(formatter, lang))
    return fig


_TEXT_FORMATTERS = ("FixedFormatter", "StrCategoryFormatter", "FuncFormatter")
"""Formatters that may write words (category names, labels passed to ``set_xticks``); numbers pass unchanged."""


def _translated_formatter(inner: Any, lang: str) -> Any:
    """A formatter writing ``inner``'s tick labels through :func:`tr` (units and locators untouched)."""
    from matplotlib.ticker import Formatter

    class Translated(Formatter):
        def __call__(self, x: Any, pos: Any = None) -> str:
            return tr(inner(x, pos), lang)

        def format_ticks(self, values: Any) -> list[str]:
            return [tr(label, lang) for label in inner.format_ticks(values)]

        def set_axis(self, axis: Any) -> None:
            super().set_axis(axis)
            inner.set_axis(axis)

        def set_locs(self, locs: Any) -> None:
            inner.set_locs(locs)

        def get_offset(self) -> str:
            return inner.get_offset()

    return Translated()


_CODE = re.compile(r"\S*(?:[_/\[={\"]|\w\()\S*")
"""A word that is code, not prose: an identifier (``max_turns``), a step path (``orchestrator/plan``), a call
with its arguments (``get_weather(city="Paris")``) or JSON; figures show code as it is, in every language."""


PROPER_NAMES = (
    "Anthropic",
    "AgentDojo",
    "CaMeL",
    "Chroma",
    "Context Rot",
    "LongMemEval",
    "Liu",
    "TACL",
    "arXiv",
    "GPT",
    "Turbo",
    "LongChat",
    "MPT",
    "Instruct",
)
"""Names of vendors, benchmarks, papers, venues and models, written as their owners write them in either language."""


COURSE_ENGLISH = (
    "just-in-time retrieval",
    "stop reason",
    "re-prefill",
    "sub-agent",
    "agent",
    "workflow",
    "harness",
    "guard",
    "token",
    "trace",
)
"""The words the course text keeps in English inside its Chinese (docs/glossary.json's terms whose ``zh`` is English):
a Chinese figure shows them as they are."""


def untranslated(fig: Any, lang: str = "zh-CN", as_drawn: bool = False) -> list[str]:
    """The texts of a figure that still read as English words in ``lang`` (for tests of the tables).

    By default each text is first put through :func:`tr` (does a table know it?); ``as_drawn=True``
    checks the texts as the figure shows them (did :func:`localize` reach them?). The figure is drawn
    first, so tick labels written by formatters are seen too. Model names, API terms and code (see
    ``_CODE``) and the words the course text keeps in English (:data:`COURSE_ENGLISH`) do not count as English words."""
    from matplotlib.text import Text

    fig.canvas.draw()  # tick labels exist only once the figure is drawn
    words = re.compile(r"[A-Za-z]{3,}")
    keep = re.compile(
        "(" + "|".join(PROPER_NAMES) + r"|claude|sonnet|opus|haiku|USD|tool_use|tool_result|end_turn|"
        r"max_tokens|get_weather|save_note|JSON|API|ReAct|pass[@^](?:k|\d+)|"  # pass@k, pass^5: the field's notation
         + "|".join(map(re.escape, COURSE_ENGLISH)) + ")",
        re.I,
    )
    left = []
    for artist in fig.findobj(Text):
        text = artist.get_text() if as_drawn else tr(artist.get_text(), lang)
        if words.search(keep.sub("", _CODE.sub("", text))):
            left.append(text)
    return left


def frame(df: Any, lang: str | None = None) -> Any:
    """A copy of DataFrame ``df`` to show in ``lang`` (default: :func:`language`): its row and column labels,
    their names and its text cells through :func:`tr`, numbers unchanged. In English, ``df`` itself."""
    lang = lang or language()
    if lang == "en":
        return df
    import pandas as pd

    def t(value: Any) -> Any:
        return tr(value, lang) if isinstance(value, str) else value

    def labels(index: Any) -> Any:
        if isinstance(index, pd.MultiIndex):
            return pd.MultiIndex.from_tuples([tuple(map(t, k)) for k in index], names=[t(n) for n in index.names])
        return pd.Index([t(k) for k in index], name=t(index.name))

    out = df.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]):  # text, held as object or as pandas' str dtype
            out[column] = out[column].map(t)
    out.index, out.columns = labels(out.index), labels(out.columns)
    return out


def show_tables_in_language() -> None:
    """In a notebook kernel whose language is not English, show each DataFrame that opted in
    (``attrs[SHOWN_IN_LANGUAGE]``) through :func:`frame`; every other table as pandas shows it."""
    if language() == "en":
        return
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    import pandas as pd

    formatters = shell.display_formatter.formatters

    def shown(df: Any) -> Any:
        return frame(df) if df.attrs.get(SHOWN_IN_LANGUAGE) else df

    formatters["text/html"].for_type(pd.DataFrame, lambda df: shown(df)._repr_html_())
    formatters["text/plain"].for_type(pd.DataFrame, lambda df, p, cycle: p.text(repr(shown(df))))
