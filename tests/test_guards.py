"""Each guard stops the misbehaving model meant for it; each overshoot rule holds; nonsense limits are refused."""

import pytest

import agentlab
from agentlab import StopReason, run_agent, tool
from agentlab.guards import Limits, canonical_call
from agentlab.sim.models.misbehaving import FakeClock, Looper, SlowModel, ToolOutsideList, Wanderer
from agentlab.trace import read_trace


def _run(policy, tools, limits, tmp_path, task="Which is warmer, Paris or London? Save a note."):
    client = agentlab.connect("sim", policy=policy, quiet=True)
    run = run_agent(client, task, tools, limits=limits, trace=tmp_path / "t.jsonl")
    return run, read_trace(tmp_path / "t.jsonl")[-1]


def test_max_turns_stops_the_looper_before_the_next_call(tools, tmp_path):
    run, stop = _run(Looper(), tools, Limits(max_turns=3), tmp_path)
    assert run.stop_reason is StopReason.MAX_TURNS and run.model_calls == 3
    assert (stop["guard"], stop["observed"], stop["limit"]) == ("max_turns", 3, 3)


def test_repeated_call_guard_stops_the_looper_after_its_kth_identical_call(tools, tmp_path):
    run, stop = _run(Looper(), tools, Limits(max_turns=50, max_repeats=3), tmp_path)
    assert run.stop_reason is StopReason.REPEATED_CALL
    assert run.model_calls == 3 and len(run.tool_results) == 3  # the 3rd repeat runs and is answered; no 4th call
    assert stop["event"] == "stop" and stop["reason"] == "repeated_call"
    assert (stop["guard"], stop["observed"], stop["limit"]) == ("max_repeats", 3, 3)
    assert stop["detail"] == canonical_call("get_weather", {"city": "Paris"})


def test_canonical_call_ignores_key_order():
    assert canonical_call("t", {"a": 1, "b": 2}) == canonical_call("t", {"b": 2, "a": 1})
    assert canonical_call("t", {"a": 1}) != canonical_call("t", {"a": 2})


def test_no_progress_guard_stops_the_wanderer_that_the_repeat_guard_never_catches(tools, tmp_path):
    run, stop = _run(Wanderer(), tools, Limits(max_turns=50, max_repeats=2, max_idle_turns=4), tmp_path)
    assert run.stop_reason is StopReason.NO_PROGRESS and run.model_calls == 4
    assert len({r["input"]["city"] for r in run.tool_results}) == 4  # new arguments every time
    assert (stop["guard"], stop["observed"], stop["limit"]) == ("max_idle_turns", 4, 4)


def test_a_successful_new_result_resets_the_idle_count():
    budget = Limits(max_idle_turns=2).start()
    budget.after_tools([{"content": "err", "is_error": True}])
    budget.after_tools([{"content": "18.5"}])
    assert budget.idle == 0
    budget.after_tools([{"content": "18.5"}])  # the same text again is not progress
    assert budget.idle == 1


def test_wall_clock_guard_stops_the_slow_model_overshooting_by_less_than_one_call(tools, tmp_path):
    clock = FakeClock()
    run, stop = _run(
        SlowModel(clock, latency_s=3.0, policy=Looper()),
        tools,
        Limits(max_turns=50, max_wall_s=10.0, clock=clock),
        tmp_path,
    )
    assert run.stop_reason is StopReason.MAX_WALL_TIME
    assert run.model_calls == 4  # calls start at 0, 3, 6 and 9 s; at 12 s no fifth call starts
    assert stop["guard"] == "max_wall_s" and stop["limit"] == 10.0
    assert 10.0 <= stop["observed"] < 10.0 + 3.0  # overshoot: at most one call's latency


def test_token_budget_stops_after_the_call_that_crosses_it_and_does_not_run_its_tools(tools, tmp_path):
    run, stop = _run(Looper(), tools, Limits(max_turns=50, max_tokens=2000), tmp_path)
    spent = [t.input_tokens + t.output_tokens for t in run.turns]
    assert run.stop_reason is StopReason.TOKEN_BUDGET
    assert sum(spent[:-1]) <= 2000 < sum(spent)  # passed by at most the last call
    assert stop["observed"] == sum(spent) and stop["limit"] == 2000
    last = run.messages[-1]["content"][0]
    assert last["is_error"] is True and last["content"].startswith("Not run: the harness stopped")
    assert len(run.tool_results) == run.model_calls - 1


def test_usd_budget_stops_before_the_call_whose_upper_bound_would_cross_it(tools, tmp_path):
    from agentlab.live.spend import upper_bound_usd

    run, stop = _run(Looper(), tools, Limits(max_turns=50, max_usd=0.02), tmp_path)
    costs = [t.cost_usd for t in run.turns]
    assert run.stop_reason is StopReason.USD_BUDGET
    assert sum(costs) <= 0.02  # never passed
    nxt = {"model": run.model, "max_tokens": 1024, "messages": run.messages, "tools": [t.spec() for t in tools]}
    assert sum(costs) + upper_bound_usd(nxt) > 0.02  # the next call could have crossed it
    assert stop["guard"] == "max_usd" and stop["observed"] == pytest.approx(sum(costs))
    assert "could cost up to" in stop["detail"]


def test_upper_bound_covers_what_each_call_really_cost(tools, tmp_path):
    from agentlab.live.spend import upper_bound_usd

    run, _ = _run(Looper(), tools, Limits(max_turns=4), tmp_path)
    for i, t in enumerate(run.turns):
        msgs = run.messages[: 2 * i + 1]
        body = {"model": run.model, "max_tokens": 1024, "messages": msgs, "tools": [x.spec() for x in tools]}
        assert t.cost_usd <= upper_bound_usd(body)


def test_usd_budget_refuses_an_unpriced_model_before_its_first_call(tools):
    client = agentlab.connect("sim", model="claude-mythos-5-1", quiet=True)
    with pytest.raises(ValueError, match="no known price"):
        run_agent(client, "Which is warmer, Paris or London?", tools, limits=Limits(max_usd=1.0))
    assert agentlab.meter_of(client).calls == []


def test_a_tool_outside_the_list_never_runs_and_the_repeat_guard_ends_the_run(tools, tmp_path):
    ran = []

    @tool
    def get_time() -> str:
        """The time."""
        ran.append(1)
        return "noon"

    run, stop = _run(ToolOutsideList(), [*tools, get_time], Limits(max_turns=20, max_repeats=2), tmp_path)
    assert run.stop_reason is StopReason.REPEATED_CALL and run.model_calls == 2
    assert all(r["is_error"] and r["content"].startswith("Unknown tool 'delete_files'") for r in run.tool_results)
    assert not ran


def test_a_well_behaved_run_is_not_stopped_by_generous_guards(sim, tools, tmp_path):
    limits = Limits(max_turns=10, max_wall_s=60, max_repeats=2, max_idle_turns=2, max_tokens=10**6, max_usd=5.0)
    run = run_agent(sim, agentlab.city_task(["Paris", "London"]), tools, limits=limits)
    assert run.stop_reason is StopReason.END_TURN and run.model_calls == 3  # both cities in one turn


def test_a_workflow_can_use_the_same_budget_without_the_loop():
    budget = Limits(max_turns=2, max_tokens=100).start()
    assert budget.check() is None
    budget.after_call([], {"input_tokens": 60, "output_tokens": 10}, "claude-haiku-4-5")
    assert budget.check(after_call=True) is None
    budget.after_call([], {"input_tokens": 60, "output_tokens": 10}, "claude-haiku-4-5")
    stopped = budget.check(after_call=True)
    assert (stopped.reason, stopped.observed, stopped.limit) == (StopReason.TOKEN_BUDGET, 140, 100)


@pytest.mark.parametrize(
    "field,value",
    [
        ("max_turns", 0),
        ("max_turns", -1),
        ("max_turns", 2.5),
        ("max_turns", None),
        ("max_wall_s", 0),
        ("max_wall_s", -3.0),
        ("max_wall_s", "10"),
        ("max_wall_s", float("nan")),
        ("max_repeats", 0),
        ("max_idle_turns", 1.5),
        ("max_tokens", -100),
        ("max_usd", 0.0),
        ("max_usd", True),
    ],
)
def test_nonsense_limits_raise_naming_the_field_and_value(field, value):
    with pytest.raises(ValueError) as e:
        Limits(**{field: value})
    assert f"Limits({field}={value!r})" in str(e.value) and field in str(e.value)


def test_usd_budget_refuses_a_model_without_a_price():
    budget = Limits(max_usd=1.0).start()
    with pytest.raises(ValueError, match="no known price"):
        budget.after_call([], {"input_tokens": 1, "output_tokens": 1}, "my-local-model")


def test_the_turn_limit_is_given_once(sim, tools):
    with pytest.raises(ValueError, match="give the turn limit once"):
        run_agent(sim, "x", tools, max_turns=3, limits=Limits(max_turns=5))
