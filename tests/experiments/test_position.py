"""Position and length: the Lost-in-the-Middle layout, its token counts, the cited data, the figures, where the
section sits in notebook 08, and every number that section's prose states."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import nbformat
import pytest

import agentlab
from agentlab.experiments.position import (
    ANSWER,
    GOLD,
    layout,
    live_position_check,
    plot_context_rot,
    plot_lost_in_the_middle,
    position_tokens,
)
from agentlab.experiments.published import citation, longmemeval_accuracy, lost_in_the_middle_table, published
from agentlab.views.i18n import tr, untranslated

matplotlib.use("Agg")
ROOT = Path(__file__).resolve().parents[2]


def _section(lang: str = "en", kind: str = "markdown") -> list[str]:
    """The position-and-length section of notebook 08b (its cells carry ``metadata.agentlab_section``)."""
    path = ROOT / "notebooks" / ("zh-CN/" if lang == "zh" else "") / "08b_position_and_length.ipynb"
    return [
        c.source
        for c in nbformat.read(path, as_version=4).cells
        if c.metadata.get("agentlab_section") == "position" and c.cell_type == kind
    ]


@pytest.mark.parametrize("position", [1, 7, 20])
def test_the_gold_document_sits_where_asked_and_only_it_holds_the_answer(position):
    lay = layout(20, position)
    assert lay.k == 20 and lay.documents[position - 1].gold and lay.documents[position - 1].title == GOLD[0]
    assert [d.gold for d in lay.documents].count(True) == 1
    assert sum(ANSWER in d.text for d in lay.documents) == 1
    assert f"Document [{position}](Title: {GOLD[0]})" in lay.prompt()


def test_moving_the_gold_document_changes_only_its_place():
    a, b = layout(20, 1), layout(20, 20)
    assert sorted(d.title for d in a.documents) == sorted(d.title for d in b.documents)
    assert [d for d in a.documents if not d.gold] == [d for d in b.documents if not d.gold]


def test_the_payload_is_a_request_the_simulator_accepts():
    client = agentlab.connect("sim", quiet=True)
    reply = client.messages.create(**layout(5, 3).payload(agentlab.default_model()))
    assert reply.stop_reason == "end_turn"


def test_every_position_costs_the_same_tokens_and_the_offset_grows():
    table = position_tokens(agentlab.connect("sim", quiet=True), k=20)
    assert list(table.index) == [1, 5, 10, 15, 20]
    assert table["input tokens"].nunique() == 1
    before = list(table["tokens before the gold document"])
    assert before == sorted(before) and before[0] < before[-1] < table["input tokens"].iloc[0]


@pytest.mark.parametrize("bad", [{"k": 0}, {"k": 5, "gold_position": 6}, {"gold_position": 0}, {"k": "20"}])
def test_bad_layout_arguments_name_the_field(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        layout(**bad)


def test_published_data_carry_their_source_and_the_missing_part_is_said():
    for name in ("lost_in_the_middle", "context_rot", "multi_agent_tokens"):
        src = published(name)["source"]
        assert all(src.get(k) for k in ("title", "year", "url", "version")), name
        assert src["url"] in citation(name)
    assert "not plotted" in published("context_rot")["missing"]
    with pytest.raises(ValueError, match="available"):
        published("nope")


def test_lost_in_the_middle_rows_are_the_papers_table():
    t = lost_in_the_middle_table()
    assert list(t.loc["GPT-3.5-Turbo"])[:5] == [75.8, 57.2, 53.8, 55.4, 63.2]
    assert len(t) == 6 and (t["oracle"] > t["closed-book"]).all()


def test_longmemeval_percentages_come_from_the_counts():
    d = published("context_rot")["longmemeval_gpt_4_1"]
    assert longmemeval_accuracy() == {"focused": round(100 * 267 / 306, 1), "full": round(100 * 191 / 306, 1)}
    assert d["focused"]["questions"] == d["full"]["questions"] == 306


def test_figures_are_translated_in_zh_cn(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    for fig in (plot_lost_in_the_middle(), plot_context_rot()):
        assert untranslated(fig) == []  # names of models, papers and reports are i18n.PROPER_NAMES
    assert tr("focused input", "zh-CN") != "focused input"
    with pytest.raises(ValueError, match="not in the paper"):
        plot_lost_in_the_middle(("GPT-5",))


def test_the_section_sits_before_the_takeaway_in_both_editions():
    for lang, heading in (("en", "## Takeaway"), ("zh", "## 要点")):
        path = ROOT / "notebooks" / ("zh-CN/" if lang == "zh" else "") / "08b_position_and_length.ipynb"
        cells = nbformat.read(path, as_version=4).cells
        marked = [i for i, c in enumerate(cells) if c.metadata.get("agentlab_section") == "position"]
        assert marked and marked == list(range(marked[0], marked[-1] + 1)), f"{lang}: the section is not one block"
        assert cells[marked[-1] + 1].source.startswith(heading), f"{lang}: the takeaway does not follow the section"


def test_the_sections_code_cells_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the live cell only says it is skipped
    namespace: dict = {}
    for source in _section("en", "code"):
        exec(compile(source, "<position cell>", "exec"), namespace)  # noqa: S102 - our own cells
    assert namespace["lim"].gold_position == 10


# The section's prose, number by number (the same code as its cells).


def _prose() -> str:
    return " ".join(_section("en"))


def test_prose_token_counts_are_the_estimators():
    table = position_tokens(agentlab.connect("sim", quiet=True), k=20)
    total, first, last = (
        table["input tokens"].iloc[0],
        table["tokens before the gold document"].iloc[0],
        table["tokens before the gold document"].iloc[-1],
    )
    assert f"same {total:,} input tokens" in _prose() and f"from {first} to {last:,}" in _prose()
    zh = " ".join(_section("zh"))
    assert f"{total:,} 个 token" in zh and f"从 {first} 到 {last:,}" in zh


def test_prose_accuracies_are_the_papers():
    t = lost_in_the_middle_table()
    gpt, claude = t.loc["GPT-3.5-Turbo"], t.loc["Claude-1.3"]
    assert gpt["position 10"] < gpt["closed-book"]
    for value in (
        gpt["position 1"],
        gpt["position 10"],
        gpt["closed-book"],
        claude["position 1"],
        min(claude[f"position {p}"] for p in (1, 5, 10, 15, 20)),
        claude["position 20"],
    ):
        assert f"{value:.1f}%" in _prose(), value


def test_prose_questions_per_position_is_the_papers():
    n = published("lost_in_the_middle")["questions_per_position"]
    assert f"{n:,} questions per position" in _prose() and f"{n:,} 个问题" in " ".join(_section("zh"))


def test_prose_longmemeval_numbers_are_the_counts():
    acc, d = longmemeval_accuracy(), published("context_rot")["longmemeval_gpt_4_1"]
    for text in (
        f"{acc['focused']}% of 306",
        f"{acc['full']}%",
        f"about {d['focused']['mean_input_tokens']} tokens",
        f"about {d['full']['mean_input_tokens']:,} tokens",
    ):
        assert text in _prose(), text
    assert published("context_rot")["source"]["peer_reviewed"] is False and "not peer reviewed" in _prose()


def test_live_check_refuses_the_simulator_and_labels_one_run_with_model_and_date():
    client = agentlab.connect("sim", quiet=True)
    with pytest.raises(ValueError, match="does not model attention"):
        live_position_check(client)
    del client.agentlab_simulator  # the same transport, no longer marked as simulated: stands in for a live client
    table = live_position_check(client, k=5, positions=[1, 5])
    assert list(table.index) == [1, 5] and (table["runs"] == 1).all()
    assert set(table.columns) >= {"answer found", "model", "date"} and table["date"].str.match(r"\d{4}-\d\d-\d\d").all()
