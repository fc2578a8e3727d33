"""The instructor kit builds offline: reveal.js slides from the notebooks, and glossary pages that match their data.

scripts/build_kit.py is run here on two notebooks (one per edition) into tmp_path; the HTML must load
nothing from the network and carry one slide per heading and the notebook's own code.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_kit", ROOT / "scripts" / "build_kit.py")
build_kit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_kit)

NAME = "01_one_round_trip.ipynb"


@pytest.fixture(scope="module")
def slides(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides")
    paths = build_kit.build_slides([ROOT / "notebooks" / NAME, ROOT / "notebooks" / "zh-CN" / NAME], out)
    return {p.name: p.read_text("utf-8") for p in paths}


def _headings(lang_dir: Path) -> int:
    cells = json.loads((lang_dir / NAME).read_text("utf-8"))["cells"]
    return sum(
        1
        for c in cells
        if c["cell_type"] == "markdown"
        and "".join(c["source"]).lstrip().startswith("#")
        and not "".join(c["source"]).lstrip().startswith("###")
    )


def test_one_slide_deck_per_notebook_and_edition(slides):
    assert sorted(slides) == [f"en-{NAME[:-6]}.slides.html", f"zh-CN-{NAME[:-6]}.slides.html"]


def test_the_slides_load_nothing_from_the_network(slides):
    for name, html in slides.items():
        loaded = re.findall(r'<(?:script|link|img)[^>]*(?:src|href)="([^"]*)"', html)
        assert loaded and not [u for u in loaded if re.match(r"(https?:)?//", u)], (name, loaded)
        assert "reveal.js/dist/reveal.js" in html and "mermaid from ''" not in html and '<script src=""' not in html


def test_each_heading_starts_a_slide_and_the_code_is_on_them(slides):
    for lang_dir, prefix in ((ROOT / "notebooks", "en"), (ROOT / "notebooks" / "zh-CN", "zh-CN")):
        html = slides[f"{prefix}-{NAME[:-6]}.slides.html"]
        top = re.findall(r"<section>\s*<section>", html)
        assert len(top) == _headings(lang_dir), (prefix, len(top))
        assert "messages.create(model=model" in re.sub(r"<[^>]+>", "", html)
    assert "一次往返" in slides[f"zh-CN-{NAME[:-6]}.slides.html"]
    assert "<title>01 · One round trip slides</title>" in slides[f"en-{NAME[:-6]}.slides.html"]


def test_assets_without_reveal_js_are_refused_with_the_fix(tmp_path):
    with pytest.raises(SystemExit, match="run `make slides`"):
        build_kit.build_slides([], tmp_path / "out", assets=tmp_path)


def test_another_reveal_major_is_refused_before_a_deck_is_written(tmp_path):
    """reveal.js 6 (npm's newest) moved its plugins: the copy used to fail with a traceback after every deck was written."""
    (tmp_path / "reveal.js" / "dist").mkdir(parents=True)
    (tmp_path / "reveal.js" / "dist" / "reveal.js").write_text("")
    (tmp_path / "reveal.js" / "package.json").write_text('{"version": "6.0.2"}')
    (tmp_path / "requirejs").mkdir()
    (tmp_path / "requirejs" / "require.js").write_text("")
    with pytest.raises(SystemExit, match=r"reveal.js 6.0.2; nbconvert's slides need reveal.js 5.x \(run `make slides`"):
        build_kit.build_slides([ROOT / "notebooks" / NAME], tmp_path / "out", assets=tmp_path)
    assert not (tmp_path / "out").exists()


def test_make_slides_installs_the_locked_reveal_js_and_builds_with_the_venvs_python():
    lock = json.loads((ROOT / "scripts" / "slides" / "package-lock.json").read_text("utf-8"))
    assert lock["packages"]["node_modules/reveal.js"]["version"].split(".")[0] == build_kit.REVEAL_MAJOR
    assert lock["packages"]["node_modules/reveal.js"]["integrity"].startswith("sha512-")
    recipe = re.search(r"^slides: .*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text("utf-8"), re.M)
    assert recipe and "npm ci" in recipe.group(1) and "$(PY) scripts/build_kit.py slides --assets" in recipe.group(1)


def test_build_kit_outside_the_venv_says_how_to_run_it_instead_of_a_traceback():
    """-S: this interpreter without its site-packages, as a system python3 without nbconvert would be."""
    done = subprocess.run(
        [sys.executable, "-S", str(ROOT / "scripts" / "build_kit.py"), "slides"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "run `make slides`" in done.stderr


def test_the_generated_pages_are_what_the_notebooks_and_data_generate_now(tmp_path):
    paths = build_kit.build_pages(tmp_path)
    assert {p.name for p in paths} == {"glossary.md", "time.md", "simulator_results.md"}
    for path in paths:
        lang, stored = path.parent.name, (ROOT / "docs" / path.parent.name / path.name).read_text("utf-8")
        stale = f"docs/{lang}/{path.name} is stale: run python scripts/build_kit.py pages"
        if path.name != "time.md":
            assert path.read_text("utf-8") == stored, stale
            continue
        # Minutes follow words and cells, which small prose edits move: the stated minutes must stay within 10.
        now = {r["notebook"]: r["minutes"] for r in build_kit.time_estimates()}
        said = dict(re.findall(r"^\| (\d\d[a-z]?_\w+) \|.*\| (\d+) \|$", stored, re.M))
        assert set(said) == set(now) and all(abs(int(said[k]) - now[k]) <= 10 for k in now), (stale, said, now)


def test_time_estimates_count_every_notebook_its_points_and_its_questions():
    rows = {r["notebook"]: r for r in build_kit.time_estimates()}
    assert len(rows) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert rows["02_the_loop"]["points"] == 6 and rows["02_the_loop"]["questions"] == 2
    assert rows["02b_where_the_tokens_go"]["points"] == 3 and rows["02b_where_the_tokens_go"]["questions"] == 2
    assert sum(build_kit.graded_points().values()) == sum(r["points"] for r in rows.values())
    assert all(r["minutes"] % 5 == 0 and r["minutes"] > 0 for r in rows.values())


def test_the_simulator_page_lists_every_marked_paragraph_in_both_languages():
    pages = build_kit.simulator_pages()
    for lang, marker in build_kit.MARKER.items():
        assert pages[lang].count(marker) >= 8 + 1, lang  # the intro names it once


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_every_graded_exercise_is_listed_by_exactly_one_notebook_with_its_points(lang):
    listed = {
        path.stem: build_kit.graded_ids(json.loads(path.read_text("utf-8"))["cells"])
        for path in build_kit._notebooks(lang)
    }
    ids = [i for found in listed.values() for i in found]
    graded = build_kit.graded_points()
    assert sorted(ids) == sorted(graded), (
        f"{lang}: each graded exercise must be listed (`- **Exercise N.M**`) by one notebook, the one time.md gives "
        f"its points to; listed twice: {sorted({i for i in ids if ids.count(i) > 1})}, "
        f"never: {sorted(set(graded) - set(ids))}, not graded: {sorted(set(ids) - set(graded))}"
    )
    assert sum(graded[i] for i in ids) == 114
