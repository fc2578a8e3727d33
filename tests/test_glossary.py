"""One Chinese term per concept: docs/glossary.json names it, and the zh-CN notebooks keep to it.

A zh-CN markdown cell (or a Chinese figure label) that uses a rejected variant fails here, naming the
notebook, the cell, the variant and the term to write instead. The kit's two glossary pages list every term.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = json.loads((ROOT / "docs" / "glossary.json").read_text("utf-8"))["terms"]
ZH_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh-CN").glob("*.ipynb"))
REJECTED = [(variant, term) for term in GLOSSARY for variant in term["rejected"]]


def test_every_term_has_an_english_and_a_chinese_name_and_no_rejected_variant_is_a_chosen_term():
    chosen = {t["zh"] for t in GLOSSARY}
    for term in GLOSSARY:
        assert term["en"] and term["zh"] and isinstance(term["rejected"], list), term
    assert len({t["en"] for t in GLOSSARY}) == len(GLOSSARY), "an English term is listed twice"
    clash = [v for v, _ in REJECTED if v in chosen]
    assert not clash, f"rejected variants that are also chosen terms: {clash}"


@pytest.mark.parametrize("path", ZH_NOTEBOOKS, ids=[p.name for p in ZH_NOTEBOOKS])
def test_the_chinese_notebooks_markdown_uses_no_rejected_variant(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    found = [
        f"cell {i}: {variant!r} (write {term['zh']!r} for {term['en']!r})"
        for i, c in enumerate(cells)
        if c["cell_type"] == "markdown"
        for variant, term in REJECTED
        if variant in "".join(c["source"])
    ]
    assert not found, f"zh-CN/{path.name} uses rejected variants from docs/glossary.json: " + "; ".join(found)


def test_the_chinese_figure_labels_use_no_rejected_variant():
    for path in sorted((ROOT / "agentlab" / "data" / "i18n" / "zh-CN").glob("*.json")):
        text = path.read_text("utf-8")
        found = [variant for variant, _ in REJECTED if variant in text]
        assert not found, f"{path.name}: rejected variants {found}"


def test_a_rejected_variant_would_be_caught():
    variant, term = next((v, t) for v, t in REJECTED if t["en"] == "guard")
    assert variant in "数据流" + variant and term["zh"] == "guard"


COURSE_TEXT = ROOT.parent / "shared" / "course-text"


def test_the_course_texts_own_words_win_each_quote_uses_the_term_and_no_variant_is_rejected():
    """The zh term is the course text's word: each ``course`` quote (a few words of it) uses the term, a term kept in
    English is one the course text keeps in English, and the course text uses no variant the glossary rejects."""
    quoted = [t for t in GLOSSARY if "course" in t]
    assert len(quoted) >= 20, "the glossary quotes the course text for most terms"
    for t in quoted:
        assert t["zh"] in t["course"] and not any(v in t["course"] for v in t["rejected"]), t
    english = [t for t in GLOSSARY if t["zh"].isascii() and t["en"] not in ("Finding.", "Limits.")]
    assert {t["en"] for t in english} >= {"agent", "harness", "guard", "token"}, (
        "the course text keeps these in English"
    )
    assert all("course" in t for t in english), [t["en"] for t in english if "course" not in t]


@pytest.mark.skipif(not COURSE_TEXT.is_dir(), reason=f"the course text is not beside the repository ({COURSE_TEXT})")
def test_every_quote_is_in_the_course_text_and_no_rejected_variant_is():
    text = "\n".join(p.read_text("utf-8") for p in sorted(COURSE_TEXT.glob("*.txt")))
    missing = [t["en"] for t in GLOSSARY if "course" in t and t["course"] not in text]
    assert not missing, f"quotes not found in the course text: {missing}"
    used = [(v, t["en"]) for v, t in REJECTED if v in text]
    assert not used, f"the glossary rejects words the course text uses: {used}"


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_kits_glossary_page_lists_every_term(lang):
    page = (ROOT / "docs" / lang / "glossary.md").read_text("utf-8")
    missing = [t["en"] for t in GLOSSARY if t["en"] not in page or t["zh"] not in page]
    assert not missing, f"docs/{lang}/glossary.md lacks {missing}: regenerate it with scripts/build_kit.py glossary"


def test_the_chinese_kit_pages_use_no_rejected_variant():
    for path in sorted((ROOT / "docs" / "zh-CN").glob("*.md")):
        if path.name == "glossary.md":  # it lists the variants on purpose
            continue
        found = [variant for variant, _ in REJECTED if variant in path.read_text("utf-8")]
        assert not found, f"docs/zh-CN/{path.name}: rejected variants {found}"


def test_the_harness_messages_chinese_uses_no_rejected_variant():
    # what the model reads in a Chinese task (tool errors, "Not run"), and the Chinese prompts of the sweeps
    for name in ("hints.py", "experiments/multiplying.py", "experiments/sweeps.py"):
        text = (ROOT / "agentlab" / name).read_text("utf-8")
        found = [variant for variant, _ in REJECTED if variant in text]
        assert not found, f"agentlab/{name}: rejected variants {found}"


def test_the_figures_keep_in_english_exactly_the_words_the_glossary_keeps_in_english():
    from agentlab.views.i18n import COURSE_ENGLISH

    kept = {t["zh"] for t in GLOSSARY if t["zh"].isascii() and t["en"] not in ("Finding.", "Limits.")}
    assert set(COURSE_ENGLISH) == kept, (
        f"agentlab/views/i18n.py COURSE_ENGLISH {sorted(COURSE_ENGLISH)} != {sorted(kept)}"
    )


def test_the_exercises_chinese_docstrings_use_no_rejected_variant():
    for path in sorted((ROOT / "exercises").glob("ex*_*.py")):
        found = [variant for variant, _ in REJECTED if variant in path.read_text("utf-8")]
        assert not found, f"exercises/{path.name}: rejected variants {found}"
