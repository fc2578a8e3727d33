"""Build the instructor kit's generated parts: reveal.js slides from the notebooks, and the glossary pages.

    python scripts/build_kit.py slides [--out build/slides] [--assets DIR] [NOTEBOOK ...]
    python scripts/build_kit.py glossary          # docs/en/glossary.md and docs/zh-CN/glossary.md

Slides come from nbconvert's reveal.js exporter (nbconvert is the Jupyter project's own converter, so
the slides follow the notebooks' markdown and code exactly). The build fetches nothing: every script
and style sheet the HTML loads is a relative path (``reveal.js/`` and ``require.js`` beside the HTML),
and the exporter's CDN links (jQuery, MathJax, Mermaid) are removed, since no notebook needs them;
the "white" theme takes its fonts from reveal.js's own folder (the default "simple" theme imports web fonts). To
show the slides without a network, put reveal.js 4+ and require.js there, e.g. ``npm install reveal.js
requirejs`` and pass ``--assets node_modules``; the build copies them beside the slides.

The notebooks carry no slide metadata (they are stored as students use them); the build assigns it in
memory: a heading starts a slide, the sentence before a code cell starts a vertical sub-slide with
that cell, everything else continues the slide it is on. Stored notebooks have no outputs, so the
slides show the code, not its results: run the notebook in class for those.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
GLOSSARY = ROOT / "docs" / "glossary.json"
REVEAL_PREFIX = "reveal.js"
REQUIRE_JS = "require.js"
_EMPTY_SCRIPT = re.compile(r'<script src="">\s*</script>')
_MERMAID = re.compile(r"<script type=\"module\">\s*import mermaid from '';.*?</script>", re.S)


def slide_types(nb) -> None:
    """Give each cell of ``nb`` (an nbformat node, changed in place) a reveal.js slide type."""
    cells = nb.cells
    for i, cell in enumerate(cells):
        text = cell.source.lstrip()
        if cell.cell_type == "markdown" and text.startswith("#") and not text.startswith("###"):
            kind = "slide"
        elif cell.cell_type == "markdown" and i + 1 < len(cells) and cells[i + 1].cell_type == "code":
            kind = "subslide"
        else:
            kind = "-"
        cell.metadata["slideshow"] = {"slide_type": kind}


def title_of(nb, fallback: str) -> str:
    """The notebook's first heading, without its #s."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            return cell.source.lstrip().splitlines()[0].lstrip("#").strip()
    return fallback


def offline_html(html: str) -> str:
    """The exporter's page without its CDN scripts (jQuery, MathJax, Mermaid): only relative paths remain."""
    html = _MERMAID.sub("", _EMPTY_SCRIPT.sub("", html))
    return html.replace("if(MathJax.Hub.getAllJax(", "if(window.MathJax && MathJax.Hub.getAllJax(")


def build_slides(notebooks: list[Path], out: Path, assets: Path | None = None) -> list[Path]:
    """Write one ``<lang>-<name>.slides.html`` per notebook into ``out``; copy reveal.js/require.js from ``assets``."""
    import nbformat
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(reveal_url_prefix=REVEAL_PREFIX, require_js_url=REQUIRE_JS, reveal_theme="white",
                              jquery_url="", mathjax_url="", mermaid_js_url="")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        slide_types(nb)
        html, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title_of(nb, path.stem)}})
        lang = "zh-CN" if path.parent.name == "zh-CN" else "en"
        target = out / f"{lang}-{path.stem}.slides.html"
        target.write_text(offline_html(html), encoding="utf-8")
        written.append(target)
    if assets is not None:
        _copy_assets(Path(assets), out)
    return written


def _copy_assets(assets: Path, out: Path) -> None:
    reveal = assets / "reveal.js"
    require = next(iter(sorted(assets.glob("requirejs/require.js"))), None) or assets / "require.js"
    if not (reveal / "dist" / "reveal.js").exists() or not require.exists():
        raise SystemExit(f"--assets {assets}: expected reveal.js/dist/reveal.js and requirejs/require.js "
                         "(run `npm install reveal.js requirejs` and pass its node_modules)")
    shutil.copytree(reveal / "dist", out / REVEAL_PREFIX / "dist", dirs_exist_ok=True)
    shutil.copytree(reveal / "plugin", out / REVEAL_PREFIX / "plugin", dirs_exist_ok=True)
    shutil.copy(require, out / REQUIRE_JS)


def glossary_pages(glossary: dict) -> dict[str, str]:
    """The glossary as a markdown table, once per language: lang -> page text."""
    head = {"en": ("# Glossary (English -> Chinese)\n\nOne Chinese term per concept, as the zh-CN notebooks use it. "
                   "Generated from `docs/glossary.json` by `scripts/build_kit.py glossary`; a test keeps the "
                   "notebooks to it.\n\n| English | 中文 | do not write | note |\n|---|---|---|---|\n"),
            "zh-CN": ("# 术语表（英文 -> 中文）\n\n每个概念只用一个中文术语，与中文版笔记本一致。本页由 `scripts/build_kit.py glossary` "
                      "从 `docs/glossary.json` 生成；有一个测试检查笔记本遵守它。\n\n| English | 中文 | 不要写成 | 说明 |\n|---|---|---|---|\n")}
    rows = "".join(f"| {t['en']} | {t['zh']} | {', '.join(t['rejected']) or '-'} | {t['note'] or '-'} |\n"
                   for t in glossary["terms"])
    return {lang: text + rows for lang, text in head.items()}


def build_glossary(docs: Path = ROOT / "docs") -> list[Path]:
    glossary = json.loads(GLOSSARY.read_text("utf-8"))
    written = []
    for lang, page in glossary_pages(glossary).items():
        target = docs / lang / "glossary.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    slides = sub.add_parser("slides", help="reveal.js slides from notebooks (default: every notebook, both editions)")
    slides.add_argument("notebooks", nargs="*", type=Path)
    slides.add_argument("--out", type=Path, default=ROOT / "build" / "slides")
    slides.add_argument("--assets", type=Path, default=None, help="a node_modules with reveal.js and requirejs")
    sub.add_parser("glossary", help="docs/<lang>/glossary.md from docs/glossary.json")
    args = parser.parse_args(argv)
    if args.what == "glossary":
        paths = build_glossary()
    else:
        notebooks = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "zh-CN").glob("*.ipynb"))
        paths = build_slides(notebooks, args.out, args.assets)
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
