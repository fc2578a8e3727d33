"""The context figures draw every tactic with value labels and have a Chinese text for every label."""

import matplotlib

matplotlib.use("Agg")

import pytest

from agentlab.context import compare_tactics
from agentlab.context.plots import plot_tactics, plot_tokens_per_call
from agentlab.views.i18n import untranslated


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    return compare_tactics(n_cities=12, workdir=tmp_path_factory.mktemp("plots"), window_tokens=5_000)


def test_tokens_per_call_draws_one_line_per_tactic_and_the_window(lab):
    fig = plot_tokens_per_call(lab[1])
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 5  # four tactics and the window
    assert any("window: 5,000 tokens" == t.get_text() for t in ax.texts)
    assert untranslated(fig) == []


def test_the_two_clearings_are_told_apart_by_line_style_where_they_share_a_colour(lab):
    fig = plot_tokens_per_call(lab[1])
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    harness, api = lines["clearing (harness)"], lines["clearing (API, simulated)"]
    assert (harness.get_color(), harness.get_linestyle()) != (api.get_color(), api.get_linestyle())
    drawn = [(line.get_color(), line.get_linestyle()) for name, line in lines.items() if not name.startswith("_")]
    assert len(set(drawn)) == len(drawn), f"two tactics drawn alike: {drawn}"


def test_tactic_chart_labels_every_bar_in_both_panels(lab):
    table, _ = lab
    fig = plot_tactics(table)
    for ax in fig.axes:
        assert len(ax.texts) == len(table)
    assert f"{int(table.loc['plain', 'input tokens']):,}" in [t.get_text() for t in fig.axes[0].texts]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(table.index)
    assert untranslated(fig) == []
