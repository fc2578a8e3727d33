"""Every claim of notebook 06's compounding-errors section, checked on the notebook's own run.

The notebook runs once in the notebook store (tests/notebook_store.py), the run test_notebooks.py
checks; each test reads the variables its cells left and names the sentence it checks. The zh-CN
edition says the same in Chinese, with the same code.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from notebook_store import xdist_group

import agentlab
from agentlab.experiments import compounding
from agentlab.weather import city_names

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "06_error_recovery.ipynb"
pytestmark = xdist_group(NOTEBOOK)


@pytest.fixture(scope="module")
def nb(notebook_store):
    return notebook_store.namespace(NOTEBOOK)


@pytest.fixture(scope="module")
def table(nb):
    return {(r["steps"], r["arm"]): r for r in compounding.summary(nb["steps"])}


def _prose(lang: str = "en") -> str:
    path = NOTEBOOK if lang == "en" else ROOT / "notebooks" / "zh-CN" / NOTEBOOK.name
    return "\n".join(
        "".join(c["source"]) for c in json.loads(path.read_text("utf-8"))["cells"] if c["cell_type"] == "markdown"
    )


def test_twenty_steps_at_95_percent_all_succeed_about_36_percent_of_the_time_and_fifty_under_8():
    assert round(compounding.predicted(0.95, 20), 2) == 0.36
    assert compounding.predicted(0.95, 50) < 0.08
    for lang in ("en", "zh"):
        assert "0.95**20 ≈ 0.36" in _prose(lang)


def test_the_experiment_is_10_percent_failures_8_lengths_50_runs_per_length_and_harness(nb, table):
    assert compounding.P_STEP == 0.9 and compounding.FAILURE.endswith("try again")
    assert sorted({n for n, _ in table}) == list(range(1, 9))
    assert {r["runs"] for r in table.values()} == {50}
    assert {r["seed"] for r in nb["steps"]} == set(range(50))


def test_stop_falls_with_every_step_stays_within_10_points_of_p_to_the_n_and_a_third_succeed_at_8(table):
    stop = [table[(n, "stop")] for n in range(1, 9)]
    rates = [r["success_rate"] for r in stop]
    assert all(b <= a for a, b in zip(rates, rates[1:])) and rates[-1] < rates[0], rates
    assert max(abs(r["success_rate"] - r["predicted"]) for r in stop) <= 0.10
    assert 0.28 <= rates[-1] <= 0.40  # "about a third"
    below = sum(r["success_rate"] < r["predicted"] for r in stop)
    assert below > len(stop) / 2, "the measured points sit mostly below the curve"


def test_stop_needs_no_model_its_runs_succeed_exactly_when_every_first_call_does(nb):
    for r in (r for r in nb["steps"] if r["arm"] == "stop"):
        first_ok = all(
            random.Random(f"{r['seed']}:{c}:1").random() < compounding.P_STEP for c in city_names()[: r["steps"]]
        )
        assert r["success"] == first_ok, r


def test_recover_succeeds_in_all_400_runs_and_its_per_step_rate_is_0_9999_with_three_retries(nb, table):
    assert compounding.RETRIES["recover"] == 3  # "up to three times"
    assert all(table[(n, "recover")]["success_rate"] == 1.0 for n in range(1, 9))
    assert sum(r["success"] for r in nb["steps"] if r["arm"] == "recover") == 400
    assert compounding.predicted(0.9, 1, retries=3) == pytest.approx(0.9999)
    assert round(compounding.predicted(0.9, 8, retries=3), 3) == 0.999
    assert 1 - compounding.predicted(0.9, 8, retries=3) == pytest.approx(0.001, abs=0.0005)  # one run in a thousand
    for n in range(1, 9):
        assert table[(n, "recover")]["success_rate"] >= table[(n, "stop")]["success_rate"]


def test_the_recover_arm_retries_up_to_three_times_as_the_sourced_bound_says(nb):
    # "retries the same call, up to three times": the always-failing case, and a run that used all three
    from agentlab.sim.models.reading import retry_limit, retry_source

    assert retry_limit("retry") == compounding.RETRIES["recover"] == 3
    assert "stand-in" in retry_source() and "2-3 times" in retry_source()
    row = compounding.run_task(agentlab.connect("sim", quiet=True), 1, "recover", 0.0)
    assert row["failed_calls"] == 4 and not row["success"]
    assert any(r["failed_calls"] >= 2 and r["success"] for r in nb["steps"] if r["arm"] == "recover")


def test_the_calibration_set_shows_the_recorded_first_retries_the_prose_cites():
    # "Sonnet 4.6 retried an unavailable error with the same arguments, Sonnet 4.5 a validation error once
    # with the argument corrected; each first retry succeeded"
    from agentlab.sim.calibrate import bundled

    recs = bundled()["records"]
    by = {r["cassette"].rsplit("/", 1)[-1]: r for r in recs}
    corrected = by["test_tool_search_eval[anthropic].yaml"]
    assert corrected["model"] == "claude-sonnet-4-5"
    editor = [r for r in recs if r["cassette"].endswith("test_anthropic_text_editor_code_execution_tool.yaml")][0]
    assert editor["model"] == "claude-sonnet-4-6"
    assert any("try again" in (b.get("text") or "") for b in editor["content"])
    errored = [
        r
        for r in recs
        if any(
            b.get("is_error")
            for m in r["request"].get("messages", [])
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict)
        )
    ]
    assert {r["model"] for r in errored} == {"claude-sonnet-4-5"}
    last = max(errored, key=lambda r: len(r["request"]["messages"]))
    uses = [
        b
        for m in last["request"]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use" and b.get("name") == "stock_lookup"
    ]
    assert [u["input"] for u in uses] == [{"ticker": "AAPL"}, {"symbol": "AAPL"}] and last["stop_reason"] == "end_turn"


def test_the_recover_result_is_marked_as_our_models_rule_in_both_editions():
    for lang, marker in (("en", "**[scripted model]**"), ("zh", "**[脚本模型]**")):
        paragraph = next(p for p in _prose(lang).split("\n\n") if "0.9999**8" in p and "1 − 0.1⁴" in p)
        assert marker in paragraph and "400" in paragraph and "2-3" in paragraph and "error_retries" in paragraph


def test_the_takeaway_numbers_8_steps_a_third_and_43_percent_predicted(table):
    assert round(compounding.predicted(0.9, 8), 2) == 0.43
    assert "0.9**8 predicts 43%" in _prose("en") and "0.9**8 预测的是 43%" in _prose("zh")
    assert table[(8, "stop")]["success_rate"] < 0.4 < 1.0 == table[(8, "recover")]["success_rate"]


def test_simplest_first_cites_building_effective_agents_in_both_editions():
    for lang in ("en", "zh"):
        text = _prose(lang)
        assert "https://www.anthropic.com/engineering/building-effective-agents" in text
        assert "Building effective agents" in text and "2024" in text


def test_answer_key_06_3_at_95_percent_eight_steps_measure_52_and_100_percent_against_66_and_100():
    rows = compounding.summary(compounding.compounding_runs(steps=(8,), p_step=0.95), 0.95)
    got = {r["arm"]: (round(r["success_rate"], 2), round(r["predicted"], 2)) for r in rows}
    assert got == {"stop": (0.52, 0.66), "recover": (1.0, 1.0)}


def test_the_zh_cn_edition_asks_in_chinese_and_measures_the_same_table(nb, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")  # what the zh-CN kernel's folder picks, without a code change
    assert compounding.step_task(city_names()[:2]) == "比较巴黎和伦敦今天的气温，哪个更暖和？"
    zh = compounding.compounding_runs(steps=(8,))
    assert zh == [r for r in nb["steps"] if r["steps"] == 8]  # the same failures: the zh prose's numbers hold
