"""The Chinese edition (notebooks/zh-CN/) keeps step with the English notebooks: same code, translated prose.

Each English notebook must have a zh-CN twin with exactly its code cells (comments aside, which are
translated) and its cell layout, every markdown cell in Chinese, and no output stored. A missing
twin fails: translate the notebook (markdown, comments) and keep the code as it is.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
ZH_DIR = NOTEBOOK_DIR / "zh-CN"
ENGLISH = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CJK = re.compile(r"[\u4e00-\u9fff]")


def code_without_comments(source: str) -> str:
    """The cell's code with comments and trailing blanks removed (comments may be translated, code may not)."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source + "\n").readline) if t.type != tokenize.COMMENT]
    return "\n".join(line.rstrip() for line in tokenize.untokenize(tokens).splitlines()).strip()


def _cells(path: Path) -> list:
    return nbformat.read(path, as_version=4).cells


def test_there_are_english_notebooks_to_translate():
    assert ENGLISH, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("english", ENGLISH, ids=[p.name for p in ENGLISH])
def test_each_notebook_has_a_chinese_twin_with_the_same_code(english: Path):
    twin = ZH_DIR / english.name
    assert twin.exists(), (
        f"{english.name} has no Chinese twin: write {twin.relative_to(NOTEBOOK_DIR.parent)} "
        "(translate markdown and comments, keep every code cell as it is)"
    )
    en, zh = _cells(english), _cells(twin)
    assert [c.cell_type for c in zh] == [c.cell_type for c in en], (
        f"zh-CN/{english.name}: cell layout differs from the English notebook "
        f"({len(zh)} cells vs {len(en)}); add or remove cells in both editions together"
    )
    for i, (a, b) in enumerate(zip(en, zh)):
        if a.cell_type == "code":
            assert code_without_comments(b.source) == code_without_comments(a.source), (
                f"zh-CN/{english.name}, cell {i}: code differs from the English notebook; only comments may be translated"
            )


@pytest.mark.parametrize("english", ENGLISH, ids=[p.name for p in ENGLISH])
def test_the_chinese_twin_is_translated_and_stripped(english: Path):
    twin = ZH_DIR / english.name
    if not twin.exists():
        pytest.fail(f"{twin} is missing (see the test above)")
    nb = nbformat.read(twin, as_version=4)
    english_only = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and not CJK.search(c.source)]
    assert not english_only, f"zh-CN/{english.name}: markdown cells {english_only} have no Chinese text"
    dirty = [
        i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count is not None)
    ]
    assert not dirty, f"zh-CN/{english.name}: code cells {dirty} have outputs; clear them before committing"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", (
        f"zh-CN/{english.name}: kernelspec must be python3"
    )


def test_every_chinese_notebook_has_an_english_original():
    orphans = sorted(p.name for p in ZH_DIR.glob("*.ipynb") if not (NOTEBOOK_DIR / p.name).exists())
    assert not orphans, f"notebooks/zh-CN has notebooks with no English original: {orphans}"


def test_a_changed_line_of_code_is_caught_but_a_translated_comment_is_not():
    assert code_without_comments("x = 1  # one\n") == code_without_comments("x = 1  # 一\n")
    assert code_without_comments("x = 1\n") != code_without_comments("x = 2\n")
