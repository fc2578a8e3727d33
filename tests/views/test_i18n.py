"""Figure text follows the notebook's language without a code change."""

from __future__ import annotations

import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from agentlab.views import i18n  # noqa: E402


def test_language_comes_from_the_zh_cn_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    (tmp_path / "zh-CN").mkdir()
    monkeypatch.chdir(tmp_path / "zh-CN")
    assert i18n.language() == "zh-CN"
    monkeypatch.chdir(tmp_path)
    assert i18n.language() == "en"


def test_env_variable_wins_and_bad_values_name_the_choices(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert i18n.language() == "zh-CN"
    monkeypatch.setenv("AGENTLAB_LANG", "fr")
    with pytest.raises(ValueError, match="AGENTLAB_LANG='fr'.*en, zh-CN"):
        i18n.language()


def test_localize_rewrites_exact_and_pattern_texts(tmp_path, monkeypatch):
    folder = tmp_path / "xx"
    folder.mkdir()
    (folder / "t.json").write_text(
        json.dumps({"exact": {"turn": "轮次"}, "patterns": [[r"cost \((\w+)\)", r"成本（\1）"]]}), encoding="utf-8"
    )
    monkeypatch.setattr(i18n, "TABLES", tmp_path)
    i18n._table.cache_clear()
    try:
        fig, ax = plt.subplots()
        ax.set_xlabel("turn")
        ax.set_ylabel("cost (USD)")
        ax.set_title("unknown stays")
        i18n.localize(fig, "xx")
        assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("轮次", "成本（USD）", "unknown stays")
        plt.close(fig)
    finally:
        i18n._table.cache_clear()


def test_english_figures_are_left_alone():
    fig, ax = plt.subplots()
    ax.set_xlabel("turn (model call number)")
    i18n.localize(fig, "en")
    assert ax.get_xlabel() == "turn (model call number)"
    plt.close(fig)
