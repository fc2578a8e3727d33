"""The claims the chapter-3 notebooks (05-08) make in prose, computed by the same code the notebooks run."""

import pytest

import agentlab
from agentlab.executor import waves
from agentlab.experiments import coupling
from agentlab.experiments.react_vs_native import compare_styles, means, plot_styles
from agentlab.experiments.recovery import plot_recovery, summary
from agentlab.experiments.tool_speedup import plot_speedup
from agentlab.experiments.who_decides import GENEROUS, guard_demos, plot_guards

EXPECTED = {
    "looper": "repeated_call",
    "wanderer": "no_progress",
    "slow model (3 s a call)": "max_wall_time",
    "tool outside its list": "repeated_call",
    "looper, token budget": "token_budget",
    "looper, USD budget": "usd_budget",
    "looper, turn limit only": "max_turns",
}


def test_nb05_each_misbehaving_model_is_stopped_by_its_own_guard_well_before_the_turn_limit(tmp_path):
    rows = guard_demos(tmp_path)
    assert {r["model"]: r["stop"] for r in rows} == EXPECTED
    assert all(r["model calls"] < GENEROUS for r in rows)
    by = {r["model"]: r for r in rows}
    assert by["looper"]["model calls"] == 3 and by["wanderer"]["model calls"] == 4
    assert by["slow model (3 s a call)"]["observed"] == 12.0 and by["slow model (3 s a call)"]["model calls"] == 4
    assert by["looper, token budget"]["observed"] > by["looper, token budget"]["limit"]  # known only after the call
    usd = by["looper, USD budget"]  # checked before each call against its upper bound: never passed
    assert 0 < usd["observed"] <= usd["limit"] and usd["model calls"] >= 1
    plot_guards(rows)


def test_nb06_readable_always_recovers_in_one_turn_raw_only_on_timeouts_and_raw_runs_are_cheaper(recovery_rows):
    rows = recovery_rows
    s = summary(rows)
    assert len({r["case"] for r in rows}) == 6  # "one of six ways"
    assert s["readable"]["success_rate"] == 1.0 and s["readable"]["mean_turns_to_recover"] == 1.0
    assert {r["case"] for r in rows if r["style"] == "raw" and r["success"]} == {"timeout"}
    assert sum(r["success"] for r in rows if r["style"] == "raw") == 2
    assert s["raw"]["mean_tokens"] < s["readable"]["mean_tokens"]
    plot_recovery(rows)


def test_nb07_naive_parallel_tells_the_user_1_note_when_2_are_stored_and_declared_state_gets_2():
    naive, declared = coupling.naive_vs_declared()
    assert (naive["count told to the user"], naive["notes stored"], naive["errors"]) == (1, 2, 0)
    assert (declared["count told to the user"], declared["notes stored"], declared["errors"]) == (2, 2, 0)
    coupling.plot_coupling([naive, declared])


def test_nb07_an_unrelated_tool_joins_the_writers_wave_and_reads_wait():
    writer, reader = coupling.note_tools([], declared=True)
    assert waves([writer, reader, agentlab.get_weather, reader]) == [[0, 2], [1, 3]]


def test_nb07_speedup_figure_draws_from_rows():
    plot_speedup([{"n": 1, "speedup": 1.0}, {"n": 2, "speedup": 1.9}])


def test_nb08_react_needs_one_turn_per_parse_failure_more_on_average_and_without_failures_fewer_input_tokens():
    rows = compare_styles(seeds=range(5), malformed=0.3)
    native, react = rows[0], rows[1:]
    # ReAct writes one action per turn (4 turns clean); native asks for both cities in one reply (3)
    assert native["turns"] == 3 and all(r["turns"] == 4 + r["parse_failures"] for r in react)
    assert len({r["answer"] for r in rows}) == 1
    clean = [r for r in react if r["parse_failures"] == 0]
    assert clean and all(r["input_tokens"] < native["input_tokens"] for r in clean)
    m = means(rows)
    assert m["react"]["turns"] > m["native"]["turns"]
    plot_styles(rows)


@pytest.mark.parametrize("malformed", [0.0])
def test_nb08_exercise_premise_react_without_malformed_actions_uses_fewer_input_tokens(malformed):
    m = means(compare_styles(seeds=range(2), malformed=malformed))
    assert m["react"]["input_tokens"] < m["native"]["input_tokens"] and m["react"]["parse_failures"] == 0
