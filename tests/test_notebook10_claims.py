"""Every numeric claim in notebooks/10_context_engineering.ipynb's prose, checked by running the same code.

Each test names the sentence it checks (the zh-CN edition says the same in Chinese).
"""

import pytest

from agentlab.context import WINDOW_TOKENS, compare_tactics, report_task, report_cities


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    return compare_tactics(n_cities=30, workdir=tmp_path_factory.mktemp("nb10"))


def test_task_is_30_cities_with_a_planted_second_line_and_a_12000_token_window():
    task = report_task(report_cities(30))
    assert "30 cities" in task and task.splitlines()[1].startswith("Note:") and WINDOW_TOKENS == 12_000


def test_plain_last_call_sends_about_19000_tokens_past_the_window(lab):
    table, results = lab
    last = results["plain"].per_call[-1]
    assert 18_000 <= last <= 20_500 and last > WINDOW_TOKENS


def test_every_tactic_stays_under_the_window_and_every_answer_is_right(lab):
    table, _ = lab
    assert table["answer correct"].all()
    assert not table.drop(index="plain")["window exceeded"].any()


def test_compaction_falls_lowest_and_the_api_clearing_line_stays_flat(lab):
    _, r = lab
    assert min(r["compaction"].per_call[5:]) < min(r["clearing (harness)"].per_call[5:])
    api = r["clearing (API, simulated)"]
    after = api.per_call[api.events[0]["turn"] - 1:]
    assert max(after) - min(after) < 1_000 and max(after) < 4_000


def test_our_summariser_kept_2_of_5_planted_facts_the_task_line_and_paris_temperature(lab):
    kept = lab[1]["compaction"].extra["facts kept by the first summary"]
    assert sum(kept.values()) == 2 and len(kept) == 5
    assert kept["what the report must give"] and kept["Paris's temperature"]


def test_three_sessions_of_at_most_12_calls(lab):
    events = lab[1]["memory (sessions)"].events
    assert len(events) == 3 and all(e["calls"] <= 12 for e in events)


def test_sub_agents_take_8_cities_each_and_more_than_nine_tenths_of_the_tokens(lab):
    extra = lab[1]["sub-agents"].extra
    assert extra["sub-agents"] == 4  # 30 cities, 8 per sub-agent
    assert extra["sub-agent input tokens"] / (extra["sub-agent input tokens"] + extra["orchestrator input tokens"]) > 0.9


def test_just_in_time_is_cheapest_and_totals_differ_by_almost_three_times(lab):
    table, _ = lab
    tactics = table.drop(index="plain")["input tokens"]
    assert tactics.idxmin() == "just-in-time"
    assert 2.5 < tactics.max() / tactics.min() < 3.1
    assert tactics.min() < table.loc["plain", "input tokens"] / 5
