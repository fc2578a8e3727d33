"""Graded tests for exercises/ex10_context.py. Run: make grade

Besides a few fixed cases, each exercise is graded on cases drawn at random here (token counts,
thresholds, conversations, ``keep``), with the expected answer worked out by the test from the rule
the exercise states: an answer that looks the fixed cases up fails the random ones.

What is forbidden, and why: every library function that computes the trigger or clears results
(``compaction.should_compact`` and ``Compaction.before_call``; ``clearing.clear_tool_results`` and
``ClearToolResults.before_call``; for 10.2, the simulator's server-side clearing
``sim.context_editing.clear_tool_uses`` and ``apply_context_management``, which the simulator itself
runs on every request, so 10.1's tests cannot forbid them); for 10.1, the lab's loop.
"""

import copy
import os
import random

import pytest

import agentlab
from agentlab.grading import answered, lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.context.compaction.should_compact",
    "agentlab.context.compaction.Compaction.before_call",
    "agentlab.context.clearing.clear_tool_results",
    "agentlab.context.clearing.ClearToolResults.before_call",
    why="Exercise 10 asks you to write the compaction trigger and the clearing yourself",
)
YOUR_OWN_CLEARING = pytest.mark.forbids(  # only where no test talks to the simulator, which applies these itself
    "agentlab.sim.context_editing.clear_tool_uses",
    "agentlab.sim.context_editing.apply_context_management",
    why="Exercise 10.2 asks you to write the clearing yourself",
)

ex10 = lazy_import("exercises.ex10_context")


@pytest.fixture
def rng():
    """A random generator seeded from the OS: new cases on every run."""
    return random.Random(os.urandom(16))


YOUR_OWN_LOOP = pytest.mark.forbids(
    "agentlab.loop.run_agent",
    "agentlab.loop.execute_tools",
    why="Exercise 10.1 asks you to write the loop yourself",
)
MODEL = "claude-haiku-4-5"


class _Recorder:
    """The report task's simulated model, keeping every request it answers (in order)."""

    def __init__(self):
        from agentlab.sim.models.context_agent import ContextAgent

        self.agent, self.requests = ContextAgent(), []

    def __call__(self, request):
        self.requests.append(request)
        return self.agent(request)


def _compacting(n_cities, threshold, forecast_days=7, **options):
    from agentlab.context.task import report_cities, report_task
    from agentlab.run import turns_of
    from agentlab.weather import make_get_weather

    model = _Recorder()
    client = agentlab.connect("sim", model=MODEL, policy=model, quiet=True)
    meter = agentlab.meter_of(client)
    start = meter.mark()
    cities = report_cities(n_cities)
    task = report_task(cities, "en")
    messages, compactions = ex10.run_compacting(
        client, task, [make_get_weather(forecast_days)], MODEL, threshold=threshold, **options
    )
    calls = [(r, t) for r, t in zip(model.requests, turns_of(meter, start))]
    return messages, compactions, calls, cities, task


def _is_summary(request):
    return not request.get("tools")


def _final_text(messages):
    last = messages[-1]
    assert last["role"] == "assistant", "the conversation you return ends with the model's last reply"
    return "".join(b.get("text", "") for b in last["content"] if isinstance(b, dict))


@pytest.mark.exercise("10.1")
@YOUR_OWN_LOOP
@pytest.mark.points(1)
def test_below_the_threshold_it_is_the_plain_loop():
    from agentlab.context.task import check_report

    messages, compactions, calls, cities, task = _compacting(5, threshold=10**9, forecast_days=0)
    assert compactions == 0 and not any(_is_summary(r) for r, _ in calls), (
        f"no call passed the threshold, so nothing should be compacted: {compactions} compactions, "
        f"{sum(_is_summary(r) for r, _ in calls)} calls without tools"
    )
    assert messages[0] == {"role": "user", "content": task}, "the conversation starts with the task, as in exercise 2.1"
    assert check_report(_final_text(messages), cities)["correct"], "the run should end with the model's report"
    assert answered(messages), "every tool_use in the conversation you return needs its tool_result"


@pytest.mark.exercise("10.1")
@YOUR_OWN_LOOP
@pytest.mark.points(2)
def test_it_compacts_exactly_when_the_last_task_call_passed_the_threshold(rng):
    def sizes(n):  # what each call of a run that never compacts sent and wrote
        return [turn.input_tokens + turn.output_tokens for _, turn in _compacting(n, threshold=10**9)[2]]

    plain = {7: sizes(7)}
    cases = [(7, plain[7][2])]  # exactly what call 3 sent and wrote: not past it
    for n in (rng.randint(6, 9) for _ in range(3)):
        plain[n] = plain.get(n) or sizes(n)
        peak = max([*plain[n][:-1], 901])  # some call before the last passes the threshold: a summary is due
        cases.append((n, rng.randint(900, peak - 1)))
    for n, threshold in cases:
        messages, compactions, calls, _, _ = _compacting(n, threshold)
        previous, between = None, []
        for request, turn in calls:
            if _is_summary(request):
                between.append(request)
                continue
            due = previous is not None and previous.input_tokens + previous.output_tokens > threshold
            sent = previous.input_tokens + previous.output_tokens if previous else 0
            assert len(between) == int(due), (
                f"threshold {threshold}: the previous task call sent and wrote {sent} tokens, so "
                f"{'one summary call' if due else 'no summary call'} should come before the next one; there were "
                f"{len(between)}. Read the previous TASK call's usage (input + output), not the summary call's "
                "(reread 'The sawtooth' and 'What a summary keeps' in notebook 10)"
            )
            if due:
                system = between[0].get("system") or ""
                system = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
                assert "summar" in system.lower(), f"the summary call's system prompt asks for a summary: {system!r}"
                assert len(request["messages"]) == 1 and "Progress so far" in str(request["messages"][0]["content"]), (
                    "after compacting, the next call goes on from one user message holding the summary"
                )
            elif previous is not None:
                assert len(request["messages"]) > 1, "without compaction the call re-sends the whole conversation"
            previous, between = turn, []
        summaries = sum(_is_summary(r) for r, _ in calls)
        assert compactions == summaries, f"you returned {compactions} compactions but made {summaries} summary calls"
        assert summaries >= 1, f"with {n} cities and threshold {threshold} at least one call passes it"


@pytest.mark.exercise("10.1")
@YOUR_OWN_LOOP
@pytest.mark.points(1)
def test_the_facts_survive_compaction_and_the_report_is_right():
    from agentlab.context.task import check_report

    messages, compactions, calls, cities, _ = _compacting(10, threshold=1_000)
    assert compactions >= 3, f"a 1,000-token threshold over 10 cities should compact several times, not {compactions}"
    report = check_report(_final_text(messages), cities)
    assert report["correct"], (
        "after compacting, the report must still give every city's temperature: send the whole conversation "
        f"(tool results included) to the summary call. The check said {report}"
    )
    assert answered(messages), "every tool_use in the conversation you return needs its tool_result"


@pytest.mark.exercise("10.1")
@YOUR_OWN_LOOP
@pytest.mark.points(1)
def test_max_turns_counts_task_calls_and_the_first_call_never_compacts():
    messages, compactions, calls, _, task = _compacting(10, threshold=1, max_turns=4)
    kinds = ["summary" if _is_summary(r) else "task" for r, _ in calls]
    assert kinds == ["task", "summary", "task", "summary", "task", "summary", "task"], (
        "with threshold=1 every call after the first is due, and max_turns=4 allows four calls of the task "
        f"(summaries are not turns); before the first call there is no usage to read. Got {kinds}"
    )
    assert calls[0][0]["messages"][0]["content"] == task and compactions == 3
    assert answered(messages), "every tool_use in the conversation you return needs its tool_result"


def _history(n):
    msgs = [{"role": "user", "content": "Report on these cities."}]
    for i in range(n):
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Next {i}."},
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {"city": f"C{i}"}},
                ],
            }
        )
        msgs.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"result {i} " * 40}],
            }
        )
    return msgs


@pytest.mark.exercise("10.2")
@YOUR_OWN_CLEARING
@pytest.mark.points(2)
def test_all_but_the_newest_results_are_cleared_and_the_input_is_untouched():
    msgs = _history(5)
    before = copy.deepcopy(msgs)
    out = ex10.clear_old_results(msgs, keep=2, placeholder="[gone]")
    assert msgs == before, "the history you were given changed: return a new list"
    results = [m["content"][0]["content"] for m in out[2::2]]
    assert results[:3] == ["[gone]"] * 3 and results[3:] == [
        before[8]["content"][0]["content"],
        before[10]["content"][0]["content"],
    ]
    assert [m["content"] for m in out[1::2]] == [m["content"] for m in before[1::2]], (
        "tool_use blocks must stay as they were"
    )


def _random_history(rng):
    """A random conversation: turns with one or more tool calls, text-only turns, errors, block contents."""
    msgs, n = [{"role": "user", "content": f"Task {rng.randint(1, 999)}."}], 0
    for _ in range(rng.randint(0, 7)):
        if rng.random() < 0.2:
            msgs.append({"role": "assistant", "content": f"Thinking {rng.random():.3f}"})
            msgs.append({"role": "user", "content": "Go on."})
            continue
        uses = []
        for _ in range(rng.randint(1, 3)):
            n += 1
            uses.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{rng.randrange(16**8):08x}_{n}",
                    "name": rng.choice(["get_weather", "lookup"]),
                    "input": {"q": f"x{rng.randint(0, 99)}"},
                }
            )
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": f"Step {n}."}, *uses]})
        results = []
        for u in uses:
            content = (
                f"value {rng.random():.4f} " * rng.randint(1, 5)
                if rng.random() < 0.7
                else [{"type": "text", "text": f"block {rng.randint(0, 9)}"}]
            )
            r = {"type": "tool_result", "tool_use_id": u["id"], "content": content}
            if rng.random() < 0.2:
                r["is_error"] = True
            results.append(r)
        if rng.random() < 0.3:
            results.append({"type": "text", "text": "Here are the results."})
        msgs.append({"role": "user", "content": results})
    return msgs


def _expected(msgs, keep, placeholder):
    """The exercise's rule, worked out here: every tool_result but the newest ``keep`` gets the placeholder."""
    out = copy.deepcopy(msgs)
    results = [b for m in out if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_result"]
    for b in results[: max(len(results) - keep, 0)]:
        b["content"] = placeholder
    return out


@pytest.mark.exercise("10.2")
@YOUR_OWN_CLEARING
@pytest.mark.points(2)
def test_random_conversations_are_cleared_by_the_rule(rng):
    for _ in range(100):
        msgs = _random_history(rng)
        n = sum(b["type"] == "tool_result" for m in msgs if isinstance(m["content"], list) for b in m["content"])
        keep, placeholder = rng.randint(0, n + 2), f"[cleared {rng.randint(0, 99)}]"
        before = copy.deepcopy(msgs)
        got = ex10.clear_old_results(msgs, keep=keep, placeholder=placeholder)
        assert msgs == before, "the history you were given changed: return a new list"
        assert got == _expected(before, keep, placeholder), (
            f"keep={keep}, {n} results: the cleared history differs from the rule"
        )


@pytest.mark.exercise("10.2")
@YOUR_OWN_CLEARING
@pytest.mark.points(2)
def test_the_cleared_history_is_still_a_valid_request_and_costs_fewer_tokens(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    msgs = _history(6)
    out = ex10.clear_old_results(msgs, keep=1)
    tools = [agentlab.get_weather.spec()]
    model = agentlab.default_model()
    full = client.messages.count_tokens(model=model, messages=msgs, tools=tools).input_tokens
    cleared = client.messages.count_tokens(
        model=model, messages=out, tools=tools
    ).input_tokens  # a 400 here: pairing broken
    assert cleared < full - 400, (
        f"clearing 5 of 6 results should save over 400 tokens: {full} -> {cleared} (reread 'Every tactic on the same task' in notebook 10)"
    )
    assert ex10.clear_old_results(msgs, keep=10) == msgs, "keep larger than the number of results clears nothing"


# Exercise 10.3 is a design decision: any plan that follows the four rules earns the points, whatever
# order the parts give way in. The checker below states the rules; it never compares with one answer.

FIXED_KINDS = ("tool_prompt", "tool_definitions", "system", "task")


def _window(history):
    """Fixed parts, then ``history`` as (tokens, summary_tokens, needed), then the newest tool result."""
    parts = [{"name": k, "kind": k, "tokens": t} for k, t in zip(FIXED_KINDS, (354, 74, 40, 133))]
    parts += [
        {"name": f"turn {i}", "kind": "history", "tokens": t, "summary_tokens": s, "needed": n}
        for i, (t, s, n) in enumerate(history, 1)
    ]
    return parts + [{"name": "newest result", "kind": "new", "tokens": 587}]


def _broken_rules(parts, budget, plan):
    """The rules of exercise 10.3 that ``plan`` breaks (an empty list: a good plan)."""
    if not isinstance(plan, dict) or set(plan) != {p["name"] for p in parts}:
        return [f"the plan must name every part exactly once, got {plan!r}"]
    if set(plan.values()) - {"keep", "summarise", "drop"}:
        return [f"each action must be 'keep', 'summarise' or 'drop', got {set(plan.values())}"]
    size = {
        "keep": lambda p: p["tokens"],
        "summarise": lambda p: p.get("summary_tokens", p["tokens"]),
        "drop": lambda p: 0,
    }
    used = sum(size[plan[p["name"]]](p) for p in parts)
    broken = [] if used <= budget else [f"the plan needs {used} tokens, over the budget of {budget}"]
    broken += [
        f"{p['name']} ({p['kind']}) must be kept, not {plan[p['name']]!r}"
        for p in parts
        if p["kind"] != "history" and plan[p["name"]] != "keep"
    ]
    broken += [
        f"{p['name']} holds a needed fact and was dropped"
        for p in parts
        if p.get("needed") and plan[p["name"]] == "drop"
    ]
    up = {"drop": "summarise", "summarise": "keep"}
    for p in parts:
        step = up.get(plan[p["name"]])
        if step and p["kind"] == "history" and used - size[plan[p["name"]]](p) + size[step](p) <= budget:
            broken.append(f"room is wasted: {p['name']} could be {step!r} and the plan would still fit")
    return broken


@pytest.mark.exercise("10.3")
@pytest.mark.points(1)
def test_a_plan_fits_the_budget_keeps_every_part_that_is_not_history_and_wastes_no_room():
    parts = _window([(620, 60, False)] * 6)  # 1,188 fixed and new, 6 old turns of 620
    before = copy.deepcopy(parts)
    for budget in (5_000, 3_000, 1_600, 1_188):
        plan = ex10.plan_window(parts, budget)
        assert not _broken_rules(parts, budget, plan), f"budget {budget}: {_broken_rules(parts, budget, plan)}"
    assert ex10.plan_window(parts, 10_000) == {p["name"]: "keep" for p in parts}, "everything fits: keep everything"
    assert parts == before, "do not change the parts you were given"


@pytest.mark.exercise("10.3")
@pytest.mark.points(1)
def test_a_needed_part_is_summarised_or_kept_never_dropped_and_a_budget_too_small_raises():
    parts = _window([(900, 80, True), (620, 60, False), (620, 60, False), (700, 90, True)])  # smallest: 1,188 + 170
    for budget in (1_358, 1_500, 2_100, 3_000):
        plan = ex10.plan_window(parts, budget)
        assert not _broken_rules(parts, budget, plan), f"budget {budget}: {_broken_rules(parts, budget, plan)}"
    with pytest.raises(ValueError, match="1357"):
        ex10.plan_window(parts, 1_357)  # one token short of the smallest plan: say the budget in the error


def _random_window(rng):
    """A random window: some fixed parts (a system prompt or not), 0-12 history turns, the newest result."""
    parts = [{"name": k, "kind": k, "tokens": rng.randint(0 if k == "system" else 20, 800)} for k in FIXED_KINDS]
    for i in range(rng.randint(0, 12)):
        tokens = rng.randint(2, 3_000)
        parts.append(
            {
                "name": f"h{i}-{rng.randrange(10**6)}",
                "kind": "history",
                "tokens": tokens,
                "summary_tokens": rng.randint(1, tokens - 1),
                "needed": rng.random() < 0.3,
            }
        )
    return parts + [{"name": "new", "kind": "new", "tokens": rng.randint(1, 2_000)}]


@pytest.mark.exercise("10.3")
@pytest.mark.points(1)
def test_random_windows_get_plans_that_fit_keep_what_is_needed_and_waste_no_room(rng):
    for _ in range(300):
        parts = _random_window(rng)
        smallest = sum(
            p["summary_tokens"] if p.get("needed") else 0 if p["kind"] == "history" else p["tokens"] for p in parts
        )
        budget = rng.choice([smallest, smallest + rng.randint(1, 4_000), sum(p["tokens"] for p in parts), smallest - 1])
        before = copy.deepcopy(parts)
        if budget < smallest:
            with pytest.raises(ValueError):
                ex10.plan_window(parts, budget)
            continue
        plan = ex10.plan_window(parts, budget)
        assert parts == before, "do not change the parts you were given"
        broken = _broken_rules(parts, budget, plan)
        assert not broken, (
            f"budget {budget}, parts {parts}: {broken} (reread 'What context engineering is: the window as a budget' in notebook 10)"
        )
