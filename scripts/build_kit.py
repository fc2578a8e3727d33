"""Build the instructor kit's generated parts: reveal.js slides from the notebooks, and the glossary pages.

    make slides                                    # the usual way: pinned reveal.js, then every deck
    .venv/bin/python scripts/build_kit.py slides [--out build/slides] [--assets DIR] [NOTEBOOK ...]
    .venv/bin/python scripts/build_kit.py pages             # docs/<lang>/glossary.md, time.md, simulator_results.md

Slides come from nbconvert's reveal.js exporter (nbconvert is the Jupyter project's own converter, so
the slides follow the notebooks' markdown and code exactly). The build fetches nothing: every script
and style sheet the HTML loads is a relative path (``reveal.js/`` and ``require.js`` beside the HTML),
and the exporter's CDN links (jQuery, MathJax, Mermaid) are removed, since no notebook needs them;
the "white" theme takes its fonts from reveal.js's own folder (the default "simple" theme imports web fonts). To
show the slides without a network, put reveal.js 5 and require.js there: ``make slides`` installs the
versions ``scripts/slides/package-lock.json`` pins (``npm ci``) and passes them as ``--assets``; the build
copies them beside the slides. reveal.js 6 moved its plugins into ``dist/`` (the copy failed with a
traceback, seen on 2026-12-05 with 6.0.2), which is why the version is locked, and any other major
version is refused with the command that installs the right one.

The notebooks carry no slide metadata (they are stored as students use them); the build assigns it in
memory: a heading starts a slide, the sentence before a code cell starts a vertical sub-slide with
that cell, everything else continues the slide it is on. Stored notebooks have no outputs, so the
slides show the code, not its results: run the notebook in class for those.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
GLOSSARY = ROOT / "docs" / "glossary.json"
REVEAL_PREFIX = "reveal.js"
REVEAL_MAJOR = "5"
"""The reveal.js major version nbconvert's template runs with (scripts/slides/package.json pins it)."""
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

    copy = _assets(Path(assets)) if assets is not None else None  # refused before anything is written
    exporter = SlidesExporter(
        reveal_url_prefix=REVEAL_PREFIX,
        require_js_url=REQUIRE_JS,
        reveal_theme="white",
        jquery_url="",
        mathjax_url="",
        mermaid_js_url="",
    )
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
    if copy is not None:
        copy(out)
    return written


def _assets(assets: Path):
    """A function copying reveal.js and require.js from ``assets`` beside the slides; SystemExit if they are not there."""
    reveal = assets / "reveal.js"
    require = next(iter(sorted(assets.glob("requirejs/require.js"))), None) or assets / "require.js"
    if not (reveal / "dist" / "reveal.js").exists() or not require.exists():
        raise SystemExit(
            f"--assets {assets}: expected reveal.js/dist/reveal.js and requirejs/require.js "
            "(run `make slides`: it installs the pinned versions and passes their node_modules)"
        )
    version = json.loads((reveal / "package.json").read_text("utf-8")).get("version", "?")
    if version.split(".")[0] != REVEAL_MAJOR:
        raise SystemExit(
            f"--assets {assets}: reveal.js {version}; nbconvert's slides need reveal.js {REVEAL_MAJOR}.x "
            "(run `make slides`: it installs the version scripts/slides/package-lock.json pins)"
        )

    def copy(out: Path) -> None:
        shutil.copytree(reveal / "dist", out / REVEAL_PREFIX / "dist", dirs_exist_ok=True)
        shutil.copytree(reveal / "plugin", out / REVEAL_PREFIX / "plugin", dirs_exist_ok=True)
        shutil.copy(require, out / REQUIRE_JS)

    return copy


def glossary_pages(glossary: dict) -> dict[str, str]:
    """The glossary as a markdown table, once per language: lang -> page text."""
    head = {
        "en": (
            "# Glossary (English -> Chinese)\n\nOne Chinese term per concept, as the zh-CN notebooks use it. "
            "Generated from `docs/glossary.json` by `scripts/build_kit.py glossary`; a test keeps the "
            "notebooks to it.\n\n| English | 中文 | do not write | note |\n|---|---|---|---|\n"
        ),
        "zh-CN": (
            "# 术语表（英文 -> 中文）\n\n每个概念只用一个中文术语，与中文版笔记本一致。本页由 `scripts/build_kit.py glossary` "
            "从 `docs/glossary.json` 生成；有一个测试检查笔记本遵守它。\n\n| English | 中文 | 不要写成 | 说明 |\n|---|---|---|---|\n"
        ),
    }
    rows = "".join(
        f"| {t['en']} | {t['zh']} | {', '.join(t['rejected']) or '-'} | {t['note'] or '-'} |\n"
        for t in glossary["terms"]
    )
    return {lang: text + rows for lang, text in head.items()}


MARKER = {"en": "**[scripted model]**", "zh-CN": "**[脚本模型]**"}
"""The notebooks' one marker for a result that holds because of how our simulated model is written."""
# Minutes per notebook, a stated rule (not a measurement of students): reading at 100 words a minute
# (technical prose, read with the code), 1.5 minutes per code cell (run it, read its output), 4 minutes
# per ungraded question, 5 minutes per graded point. Rounded to 5 minutes.
READ_WPM, PER_CELL, PER_QUESTION, PER_POINT = 100, 1.5, 4, 5


def _notebooks(lang: str) -> list[Path]:
    return sorted((NOTEBOOKS if lang == "en" else NOTEBOOKS / lang).glob("*.ipynb"))


def graded_points() -> dict[str, int]:
    """Exercise id -> points, read from the graders' ``@pytest.mark.points`` / ``exercise`` markers."""
    import ast

    points: dict[str, int] = {}
    for path in sorted((ROOT / "exercises" / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            marks = {
                d.func.attr: d.args[0].value
                for d in node.decorator_list
                if isinstance(d, ast.Call)
                and isinstance(d.func, ast.Attribute)
                and d.args
                and isinstance(d.args[0], ast.Constant)
            }
            if "points" in marks and "exercise" in marks:
                points[marks["exercise"]] = points.get(marks["exercise"], 0) + marks["points"]
    return points


def graded_ids(cells: list[dict]) -> list[str]:
    """The graded exercises a notebook lists (a notebook and its part two, e.g. 08 and 08b, share one number),
    by the listing line ``make grade`` reads too (``GRADED_LISTING``)."""
    from agentlab.grading.student_view import GRADED_LISTING

    return [i for c in cells if c["cell_type"] == "markdown" for i in GRADED_LISTING.findall("".join(c["source"]))]


def ungraded_questions(cells: list[dict]) -> int:
    """Numbered items under the Recall and Change-predict-run headings of the exercises cell."""
    count = 0
    for cell in cells:
        section = None
        for line in "".join(cell["source"]).splitlines():
            if line.startswith("### "):
                section = line[4:].startswith(("Recall", "Change")) or line[4:].startswith(("回顾", "修改"))
            elif section and re.match(r"\d+\. ", line):
                count += 1
    return count


def time_estimates() -> list[dict]:
    """One row per notebook: the counts the rule uses and the minutes it gives."""
    points = graded_points()
    rows = []
    for path in _notebooks("en"):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        words = sum(len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
        code = sum(c["cell_type"] == "code" for c in cells)
        pts = sum(points.get(i, 0) for i in graded_ids(cells))
        questions = ungraded_questions(cells)
        raw = words / READ_WPM + code * PER_CELL + questions * PER_QUESTION + pts * PER_POINT
        rows.append(
            {
                "notebook": path.stem,
                "words": words,
                "code cells": code,
                "questions": questions,
                "points": pts,
                "minutes": int(5 * round(raw / 5)),
            }
        )
    return rows


def time_pages(rows: list[dict]) -> dict[str, str]:
    head = {
        "en": (
            "# Time per notebook\n\nA stated rule, not a measurement of students: "
            f"{READ_WPM} words of prose a minute, {PER_CELL} minutes per code cell, {PER_QUESTION} per "
            f"ungraded question, {PER_POINT} per graded point, rounded to 5 minutes. Generated by "
            "`scripts/build_kit.py pages`; a test regenerates it.\n\n"
            "| notebook | words | code cells | ungraded questions | graded points | minutes |\n|---|---|---|---|---|---|\n"
        ),
        "zh-CN": (
            "# 每本笔记本的时间\n\n这是一条写明的规则，而不是对学生的测量：每分钟读 "
            f"{READ_WPM} 个英文词的正文，每个代码单元格 {PER_CELL} 分钟，每道不计分的题 {PER_QUESTION} 分钟，"
            f"每个评分练习的分数 {PER_POINT} 分钟，四舍五入到 5 分钟。由 `scripts/build_kit.py pages` 生成；"
            "有一个测试会重新生成并比对。\n\n"
            "| 笔记本 | 词数 | 代码单元格 | 不计分的题 | 评分练习分数 | 分钟 |\n|---|---|---|---|---|---|\n"
        ),
    }
    body = "".join(
        f"| {r['notebook']} | {r['words']} | {r['code cells']} | {r['questions']} | {r['points']} | {r['minutes']} |\n"
        for r in rows
    )
    total = sum(r["minutes"] for r in rows)
    foot = {
        "en": f"\nTotal: {total} minutes ({total / 60:.1f} hours) of student work.\n",
        "zh-CN": f"\n合计：学生用时 {total} 分钟（{total / 60:.1f} 小时）。\n",
    }
    return {lang: head[lang] + body + foot[lang] for lang in head}


def simulator_pages(loso: list[dict] | None = None) -> dict[str, str]:
    """Every paragraph of the notebooks that carries the marker, by notebook, in each language (``loso``: the rows
    of ``calibrate_loso.leave_one_out``, computed here when not given)."""
    head = {
        "en": (
            "# Results that belong to the simulator\n\nEach paragraph below states a result that holds "
            f"because of how our simulated (scripted) model is written, marked {MARKER['en']} in the "
            "notebook. It is not a fact about Claude: rerun the cell before it with `ANTHROPIC_API_KEY` "
            "set to see what a real model does. Beyond these, every token count is the simulator's "
            "estimate and every latency an assumed rate (each notebook's **Limits.** says so). "
            "Generated by `scripts/build_kit.py pages`.\n"
        ),
        "zh-CN": (
            "# 属于模拟器的结果\n\n下面每一段陈述的结果之所以成立，是因为我们的模拟（脚本）模型就是这样写的，"
            f"在笔记本中标为 {MARKER['zh-CN']}。它不是关于 Claude 的事实：设置 `ANTHROPIC_API_KEY` 后重新运行"
            "它前面的单元格，就能看到真实模型会怎么做。除此之外，所有 token 数都是模拟器的估算值，所有延迟都是"
            "假定的速率（每本笔记本的 **局限。** 都写明了）。由 `scripts/build_kit.py pages` 生成。\n"
        ),
    }
    from agentlab.sim.calibrate_loso import leave_one_out

    pages, loso = {}, leave_one_out() if loso is None else loso
    for lang, text in head.items():
        for path in _notebooks(lang):
            cells = json.loads(path.read_text("utf-8"))["cells"]
            joiner = " " if lang == "en" else ""
            found = [
                p
                for c in cells
                if c["cell_type"] == "markdown"
                for p in "".join(c["source"]).split("\n\n")
                if MARKER[lang] in p
            ]
            if found:
                text += f"\n## {path.stem}\n\n" + "".join(
                    f"- {joiner.join(line.strip() for line in p.splitlines())}\n" for p in found
                )
        pages[lang] = text + _estimate_by_source(lang) + _leave_one_source_out(lang, loso)
    return pages


def _leave_one_source_out(lang: str, rows: list[dict]) -> str:
    """The figures fitted on all public sources but one, measured on the one left out (``agentlab calibrate --loso``)."""
    from agentlab.sim.calibrate_loso import ordered, summary, why

    head = {
        "en": (
            "\n## Leave one source out\n\n"
            "`agentlab calibrate --loso`: the estimator's measured figures (the hidden tool-use prompt, and what a "
            "deferred tool, a round trip, thinking, JSON outputs and a task budget add) fitted from nothing on every "
            "public source but one, then the one left out measured with them (core requests), beside the shipped "
            "figures. The shipped figures were fitted on half of pydantic-ai's recordings, so on its rows that column "
            "is partly in sample. *Fitted on*: the model's requests among the other sources that fitted a figure; 0 "
            "means it got none, and its row shows the estimator without any figure (the shipped profiles borrow "
            "another model's there). The last column holds each row to issue 46's bar (at most 5% for a model with "
            "five requests or more in the source left out). {summary} The shipped figures are what the simulator "
            "uses.\n\n"
            "| model | left out | requests | fitted on | shipped figures | refit on the others | bias (refit) | 5% bar |\n"
            "|---|---|---|---|---|---|---|---|\n"
        ),
        "zh-CN": (
            "\n## 留出一个来源\n\n"
            "`agentlab calibrate --loso`：估算器的实测数字（隐藏的工具使用提示，以及延迟加载的工具、一次往返、thinking、JSON 输出和"
            "任务预算各加多少）只用其余的公开来源从零拟合，再用它们测量被留出的那个来源（核心请求），与随附的数字并列。随附的数字"
            "是用 pydantic-ai 一半的录制拟合的，所以它那几行的这一栏有一部分是样本内的。*拟合用*：其余来源里该模型参与拟合的请求数；"
            "0 表示它没有得到任何数字，那一行就是估算器不带任何数字时的误差（随附的模型档案在这种情况下借用别的模型的数字）。"
            "最后一栏用 issue 46 的标准衡量每一行（被留出的来源里有五个及以上请求的模型，误差不超过 5%）。{summary}"
            "模拟器用的是随附的数字。\n\n"
            "| 模型 | 留出的来源 | 请求数 | 拟合用 | 随附的数字 | 用其余来源重拟合 | bias（重拟合） | 5% 标准 |\n"
            "|---|---|---|---|---|---|---|---|\n"
        ),
    }[lang].replace("{summary}", summary(rows, lang))
    return head + "".join(
        f"| {r['model']} | {r['source']} | {r['n']} | {r['fitted_on']} | {r['shipped']:.1%} | {r['refit']:.1%} | "
        f"{r['bias']:+.1%} | {why(r, lang)} |\n"
        for r in ordered(rows)
    )


def _estimate_by_source(lang: str) -> str:
    """The token estimate's error on recorded real traffic it was not fitted on, per source and model."""
    from agentlab.sim.calibrate import bundled, by_source
    from agentlab.sim.calibrate_report import FITTED_ON, rows_for, unseen_sources

    where = {f"{FITTED_ON} (held out)": (bundled()["commit"][:12], "MIT")}
    where |= {name: (f"{p['commit']} ({p['committed']})", p["licence"]) for name, p in unseen_sources().items()}
    head = {
        "en": (
            "\n## The token estimate against recorded real traffic, by source\n\n"
            "`agentlab calibrate --split out_of_sample`: core requests (no server-side work) recorded by public "
            f"projects, replayed through the simulator. Its figures are fitted on the other half of {FITTED_ON}'s "
            "recordings, so none of these was fitted on. A negative bias means the simulator counts too few.\n\n"
            "| source | commit | licence | model | requests | median error | bias |\n|---|---|---|---|---|---|---|\n"
        ),
        "zh-CN": (
            "\n## 按来源：token 估算与录制的真实流量对比\n\n"
            "`agentlab calibrate --split out_of_sample`：公开项目录制的核心请求（没有服务器端工作），经模拟器重放。"
            f"估算器的数字是用 {FITTED_ON} 录制的另一半拟合的，所以下面这些都没有参与拟合。bias 为负表示模拟器数少了。\n\n"
            "| 来源 | 提交 | 许可证 | 模型 | 请求数 | 误差中位数 | bias |\n|---|---|---|---|---|---|---|\n"
        ),
    }[lang]
    rows = by_source(rows_for(split="out_of_sample"))
    return head + "".join(
        f"| {src} | {where[src][0]} | {where[src][1]} | {model} | {st['n']} | {st['median_abs']:.1%} | {st['bias']:+.1%} |\n"
        for (src, model), st in rows.items()
    )


PROFILES = ROOT / "agentlab" / "api" / "data" / "profiles.json"


def write_loso(loso: list[dict]) -> None:
    """Put the leave-one-source-out rows into ``profiles.json``'s ``measured.loso`` (``calibrate_loso.loso_by_model``),
    replacing that one value and leaving every other byte of the hand-kept file as it is; written whole or not at all."""
    from agentlab.sim.calibrate_loso import loso_by_model

    text, key = PROFILES.read_bytes().decode("utf-8"), '\n    "loso": '
    if text.count(key) != 1:
        raise SystemExit(f"{PROFILES}: expected one {key.strip()!r} inside measured, found {text.count(key)}")
    at = text.index(key) + len(key)
    _, end = json.JSONDecoder().raw_decode(text, at)
    value = loso_by_model(loso)
    new = text[:at] + json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n    ") + text[end:]
    if json.loads(new)["measured"]["loso"] != value:
        raise SystemExit(f"{PROFILES}: the rewritten file does not hold the new value where expected")
    tmp = PROFILES.with_suffix(".json.tmp")
    tmp.write_bytes(new.encode("utf-8"))
    os.replace(tmp, PROFILES)


def build_pages(docs: Path = ROOT / "docs") -> list[Path]:
    """Write the kit's generated pages into ``docs/<lang>/``."""
    from agentlab.sim.calibrate_loso import leave_one_out

    glossary, loso = json.loads(GLOSSARY.read_text("utf-8")), leave_one_out()
    generated = {
        "glossary.md": glossary_pages(glossary),
        "time.md": time_pages(time_estimates()),
        "simulator_results.md": simulator_pages(loso),
    }
    if docs == ROOT / "docs":  # the repository's own pages: the profiles say the same (a test run writes elsewhere)
        write_loso(loso)
    written = []
    for name, by_lang in generated.items():
        for lang, page in by_lang.items():
            target = docs / lang / name
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
    sub.add_parser("pages", help="docs/<lang>/glossary.md, time.md and simulator_results.md")
    args = parser.parse_args(argv)
    try:
        import nbconvert  # noqa: F401 - the lab's venv has it; a system Python usually does not
    except ImportError:
        print(
            f"scripts/build_kit.py needs the lab's venv (nbconvert is not importable from {sys.executable}): "
            f"run `make slides`, or `.venv/bin/python scripts/build_kit.py {args.what}`",
            file=sys.stderr,
        )
        return 2
    if args.what == "pages":
        paths = build_pages()
    else:
        notebooks = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "zh-CN").glob("*.ipynb"))
        paths = build_slides(notebooks, args.out, args.assets)
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
