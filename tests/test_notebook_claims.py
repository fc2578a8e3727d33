"""Every claim notebook 02's prose makes, checked on the notebook's own variables.

The notebook runs once, in a real kernel, in the notebook store (tests/notebook_store.py), the same run
test_notebooks.py executes; each test then checks one sentence of the prose against the variables
those cells left. A sentence that stops being true fails here, with the figure that broke it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from notebook_store import xdist_group

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "02_the_loop.ipynb"
TOKENS = NOTEBOOK.with_name("02b_where_the_tokens_go.ipynb")  # 02's second part: where each turn's tokens go
pytestmark = xdist_group(NOTEBOOK)


@pytest.fixture(scope="module")
def nb(notebook_store):
    """Notebook 02's variables after its run in the notebook store (the same run test_notebooks.py checks)."""
    return notebook_store.namespace(NOTEBOOK)


@pytest.fixture(scope="module")
def nbb(notebook_store):
    """Notebook 02b's variables after its run in the notebook store."""
    return notebook_store.namespace(TOKENS)


def test_the_two_city_run_takes_four_calls_one_per_tool_then_the_answer(nb):
    run = nb["run"]
    assert run.stop_reason.value == "end_turn" and run.model_calls == 4
    assert [t.tool_calls for t in run.turns] == [["get_weather"], ["get_weather"], ["save_note"], []]


def test_only_history_and_new_change_from_turn_to_turn(nbb):
    table = nbb["turns_table"](nbb["run"])
    for fixed in ["tool-use system prompt", "tool definitions", "task"]:
        assert table[fixed].nunique() == 1, f"{fixed} changes between turns: {list(table[fixed])}"
    assert list(table["history (earlier turns)"]) == sorted(table["history (earlier turns)"])


def test_tool_prompt_and_definitions_are_more_than_half_of_turn_4_and_history_less_than_a_third(nbb):
    shares = nbb["shares"]
    assert nbb["last"].index == 4
    assert shares["tools"] > 50, shares
    assert shares["history"] < 100 / 3, shares


def test_the_fixed_part_resent_is_larger_than_the_history_resent_in_every_later_turn(nbb):
    for t in nbb["run"].turns[1:]:
        assert t.reprefill_fixed == t.breakdown.fixed
        assert t.reprefill_fixed > t.reprefill_history, (t.index, t.reprefill_fixed, t.reprefill_history)


def test_short_results_each_city_costs_more_yet_within_10_percent_of_a_straight_line(nbb):
    scaling = nbb["scaling"]
    steps = list(scaling["extra input tokens vs previous row"].dropna())
    assert all(b > a for a, b in zip(steps, steps[1:])), steps
    assert list(scaling["model calls"]) == [n + 2 for n in scaling.index]
    assert 0 < nbb["above_straight_line"](scaling) < 10


def test_with_forecasts_history_overtakes_by_turn_4_and_is_over_three_quarters_at_the_end(nbb):
    big = nbb["big"]
    assert big.stop_reason.value == "end_turn" and big.model_calls == 14
    assert nbb["history_overtakes"](big) <= 4
    assert nbb["input_shares"](big.turns[-1])["history"] > 75


def test_with_forecasts_12_cities_cost_over_40_percent_more_than_the_straight_line(nbb):
    long = nbb["long_scaling"]
    assert (long["stop"] == "end_turn").all()
    assert nbb["above_straight_line"](long) > 40


def test_max_turns_ends_the_run_on_an_unread_tool_result(nb):
    capped = nb["capped"]
    assert capped.stop_reason.value == "max_turns" and capped.model_calls == 2
    assert capped.messages[-1]["role"] == "user"
    assert [b["type"] for b in capped.messages[-1]["content"]] == ["tool_result"]


def test_the_trace_ends_with_a_single_stop_event(nb):
    kinds = [e.get("event") for e in nb["events"][1:]]
    assert kinds[-1] == "stop" and kinds.count("stop") == 1


def test_the_parallel_run_makes_fewer_calls_and_uses_fewer_input_tokens(nb):
    run, prun = nb["run"], nb["prun"]
    assert prun.model_calls < run.model_calls and prun.input_tokens < run.input_tokens
    assert prun.turns[0].tool_calls == ["get_weather", "get_weather"]


def test_workflow_input_is_under_a_tenth_and_tools_are_over_half_of_the_agents_input(nbb):
    agent, workflow = nbb["agent"], nbb["workflow"]
    assert workflow.model_calls == 1 and workflow.input_tokens < agent.input_tokens / 10
    assert nbb["tools_part"] > agent.input_tokens / 2
    assert workflow.turns[0].breakdown.tool_prompt == 0


@pytest.mark.parametrize(
    "edition, cell, sentence",
    [
        ("02_the_loop", 0, "`agentlab.run_agent` is that loop (15 lines in `agentlab/loop.py`, printed below)"),
        ("02_the_loop", 7, "Its body is 15 lines."),
        ("zh-CN/02_the_loop", 0, "`agentlab.run_agent` 就是这个循环（`agentlab/loop.py` 里 15 行，下面会打印出来）"),
        ("zh-CN/02_the_loop", 7, "它的函数体共 15 行。"),
    ],
)
def test_notebook_02_states_the_loops_real_length_and_prints_the_code_that_runs(edition, cell, sentence):
    import ast
    import inspect

    from claims import said

    import agentlab.loop

    where = said(edition, cell, sentence)
    source = inspect.getsource(agentlab.loop.run_agent)
    body = ast.parse(source).body[0].body[1:]  # after the docstring
    lines = body[-1].end_lineno - body[0].lineno + 1
    assert re.search(rf"(?<!\d){lines}(?!\d)", sentence), f"{where}: run_agent's body is {lines} lines"
    assert lines <= 60, f"run_agent's body is {lines} lines: the loop must fit one screen (at most 60)"
    printed = said(edition, 6, "print(inspect.getsource(agentlab.run_agent))")  # the notebook prints the code that runs
    assert agentlab.run_agent is agentlab.loop.run_agent, printed


def test_the_readme_states_the_loops_real_length():
    import ast
    import inspect

    import agentlab.loop

    body = ast.parse(inspect.getsource(agentlab.loop.run_agent)).body[0].body[1:]
    lines = body[-1].end_lineno - body[0].lineno + 1
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert f"its body is {lines} lines, notebook 02 prints it" in readme, (
        f"README.md: run_agent's body is {lines} lines"
    )
