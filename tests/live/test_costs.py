"""The live tally, its pricing, and what use() says before a live or replayed notebook (agentlab/live/costs.py).

No network anywhere: use() prints and asks before any client exists, so a fake key is enough.
"""

from __future__ import annotations

import pytest

import agentlab
import agentlab.live.costs as costs
from agentlab.live import session
from agentlab.live.spend import cheapest_model
from agentlab.meter.prices import cost_usd
from agentlab.meter.usage import Usage


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    """An empty tally, no use() left over, a table of two made-up rows, and the notebook unknown."""
    costs.reset_tally()
    monkeypatch.setattr(costs, "TABLE", tmp_path / "live_costs.json")
    rows = [
        costs.NotebookCost("cheap_nb", 4, 2000, 100, 0.004, ["claude-x"]),
        costs.NotebookCost("dear_nb", 150, 400_000, 9000, 0.45, ["claude-x"]),
    ]
    costs.write_table(rows, "claude-x", "genai-prices (test)")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv(costs.CONFIRM_ENV, raising=False)
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    yield
    session._defaults.clear()
    costs.reset_tally()


def test_an_auto_client_tallies_its_calls_and_an_explicit_sim_client_does_not(tmp_path):
    task, tools = agentlab.city_task(["Paris", "Oslo"]), agentlab.task_tools(tmp_path / "notes")
    run = agentlab.run_agent(agentlab.connect(quiet=True), task, tools)
    agentlab.run_agent(agentlab.connect("sim", quiet=True), task, tools)  # an experiment's own: never live
    [row] = costs.tally()
    assert row["model"] is None and not row["batch"] and row["calls"] == run.model_calls
    assert Usage.from_api(row["usage"]).output_tokens == sum(t.output_tokens for t in run.turns) > 0


def test_count_tokens_requests_of_an_auto_client_are_tallied_free_and_a_sim_clients_are_not(tmp_path):
    task, tools = agentlab.city_task(["Paris", "Oslo"]), agentlab.task_tools(tmp_path / "notes")
    agentlab.run_agent(agentlab.connect("sim", quiet=True, count_parts=True), task, tools)
    assert costs.tally() == []
    run = agentlab.run_agent(agentlab.connect(quiet=True, count_parts=True), task, tools)
    client = agentlab.connect(quiet=True)
    client.messages.count_tokens(model=agentlab.model_of(client), messages=[{"role": "user", "content": "hi"}])
    [row] = costs.tally()
    assert row["calls"] == run.model_calls and row["count_tokens"] > 2 * run.model_calls  # up to five per call, + 1
    alone = costs.measure("nb", [{**row, "calls": 0, "usage": Usage().as_api()}])
    assert (alone.count_tokens, alone.calls, alone.usd, alone.models) == (row["count_tokens"], 0, 0.0, [])


def test_tally_of_gives_what_one_run_adds_and_leaves_the_process_tally_alone(tmp_path):
    agentlab.connect(quiet=True).messages.count_tokens(
        model=agentlab.default_model(), messages=[{"role": "user", "content": "a"}]
    )
    before = costs.tally()
    rows = costs.tally_of(
        lambda: agentlab.run_agent(
            agentlab.connect(quiet=True), agentlab.city_task(["Paris", "Oslo"]), agentlab.task_tools(tmp_path / "notes")
        )
    )
    assert rows[0]["calls"] > 0 and rows[0]["count_tokens"] == 0 and costs.tally() == before


def test_a_client_that_names_its_model_is_tallied_under_that_model(tmp_path):
    model = agentlab.default_model()
    agentlab.run_agent(
        agentlab.connect(model=model, quiet=True),
        agentlab.city_task(["Paris", "Oslo"]),
        agentlab.task_tools(tmp_path / "notes"),
    )
    assert [r["model"] for r in costs.tally()] == [model]


def test_measure_prices_the_default_at_the_live_default_model_and_a_named_model_at_its_own():
    usage = Usage(input_tokens=10_000, output_tokens=500)
    named = agentlab.default_model()
    rows = [
        {"model": None, "batch": False, "calls": 3, "usage": usage.as_api()},
        {"model": named, "batch": True, "calls": 2, "usage": usage.as_api()},
    ]
    cost = costs.measure("nb", rows)
    live = cheapest_model()
    assert (cost.calls, cost.input_tokens, cost.output_tokens) == (5, 20_000, 1000)
    assert cost.models == sorted({live, named})
    assert cost.usd == pytest.approx(cost_usd(live, usage) + cost_usd(named, usage, batch=True), abs=1e-6)


def test_use_in_sim_mode_says_nothing_about_cost_or_the_scripted_model(capsys, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "/course/notebooks/dear_nb.ipynb")
    agentlab.use("sim", max_usd=0.5)
    agentlab.use("auto", max_usd=0.5)  # no key: sim
    assert capsys.readouterr().err == ""


def test_use_live_shows_the_notebooks_expected_cost_against_max_usd(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
    monkeypatch.setenv("JPY_SESSION_NAME", "/course/notebooks/cheap_nb.ipynb")
    agentlab.use("auto", max_usd=0.5)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("agentlab: cheap_nb live: 4 paid calls, 2,000 input and 100 output tokens, about $0.00")
    assert "against MAX_USD = $0.5." in err[0] and "[scripted model]" in err[1] and len(err) == 2
    assert session._defaults["mode"] == "auto"


def test_use_live_above_the_threshold_with_nobody_to_answer_stops_and_says_how_to_confirm(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
    monkeypatch.setenv("JPY_SESSION_NAME", "/course/notebooks/dear_nb.ipynb")
    monkeypatch.setattr("builtins.input", lambda prompt: (_ for _ in ()).throw(EOFError()))
    with pytest.raises(costs.NotConfirmed, match=r"use\(\.\.\., confirm=True\)"):
        agentlab.use("live", max_usd=0.5)
    assert "about $0.45" in capsys.readouterr().err
    assert session.session_defaults(None, None, None)[0] == "sim"  # a cell run by hand afterwards stays offline


def test_a_notebook_dearer_than_its_cap_is_told_the_cap_stops_it_partway(capsys, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "/course/notebooks/dear_nb.ipynb")
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    agentlab.use("live", max_usd=0.2)
    assert "the cap stops it partway, raise MAX_USD to about $0.54" in capsys.readouterr().err


def test_confirm_true_or_the_environment_confirms_ahead_without_asking(monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "/course/notebooks/dear_nb.ipynb")
    monkeypatch.setattr("builtins.input", lambda prompt: pytest.fail("asked although confirmed"))
    agentlab.use("live", max_usd=0.5, confirm=True)
    monkeypatch.setenv(costs.CONFIRM_ENV, "1")
    agentlab.use("live", max_usd=0.5)


def test_an_answer_other_than_yes_stops(monkeypatch):
    asked = []
    with pytest.raises(costs.NotConfirmed):
        costs.live_preview(0.5, notebook="dear_nb", ask=lambda p: asked.append(p) or "no", say=lambda line: None)
    assert asked == ["Send these paid calls? Type yes to go on: "]
    costs.live_preview(0.5, notebook="dear_nb", ask=lambda p: " Yes ", say=lambda line: None)


def test_a_notebook_missing_from_the_table_points_to_it_and_is_not_asked(capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: pytest.fail("asked for a notebook with no row"))
    agentlab.use("live", max_usd=0.5)
    assert "this notebook's live cost is not in the table (docs/en/live_cost.md" in capsys.readouterr().err


def test_replay_says_scripted_model_results_describe_the_simulator_in_the_notebooks_language(
    capsys, monkeypatch, tmp_path
):
    agentlab.use("replay", cassette=tmp_path / "run.yaml")
    assert capsys.readouterr().err.strip() == costs.SCRIPTED["replay"]
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    agentlab.use("replay", cassette=tmp_path / "run.yaml")
    assert capsys.readouterr().err.strip().startswith("agentlab：标有 [脚本模型] 的结论描述的是模拟器的脚本模型")


def test_the_chinese_preview_and_confirmation_lines_are_translated(monkeypatch):
    from agentlab.views.i18n import tr

    cost = costs.expected("dear_nb")
    for cap in (0.5, 0.2, None):
        assert "live" not in tr(costs.preview_line("dear_nb", cost, cap), "zh-CN").replace("live_cost", "")
    assert tr(costs.preview_line("x", None, 0.5), "zh-CN").startswith("agentlab：x 的真实运行花费不在表中")
    assert tr(costs.preview_line(None, None, 0.5), "zh-CN").startswith("agentlab：这个笔记本的真实运行花费不在表中")
    assert tr(costs.HOW_TO_CONFIRM, "zh-CN").startswith("未确认")
    counted = costs.NotebookCost("counting_nb", 4, 2000, 100, 0.004, ["claude-x"], count_tokens=1234)
    line = costs.preview_line("counting_nb", counted, 0.5)
    assert "4 paid calls and 1,234 free count_tokens calls, 2,000 input" in line
    assert "4 次付费调用，另有 1,234 次免费的 count_tokens 调用，2,000 个输入 token" in tr(line, "zh-CN")
