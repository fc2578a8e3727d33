"""Graded tests for exercises/ex10_context.py. Run: make grade

Besides a few fixed cases, each exercise is graded on cases drawn at random here (token counts,
thresholds, conversations, ``keep``), with the expected answer worked out by the test from the rule
the exercise states: an answer that looks the fixed cases up fails the random ones.

What is forbidden, and why: every library function that computes the trigger or clears results
(``compaction.should_compact`` and ``Compaction.before_call``; ``clearing.clear_tool_results`` and
``ClearToolResults.before_call``; the simulator's server-side clearing
``sim.context_editing.clear_tool_uses`` and ``apply_context_management``).
"""

import copy
import os
import random

import pytest

import agentlab
from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids(
    "agentlab.context.compaction.should_compact",
    "agentlab.context.compaction.Compaction.before_call",
    "agentlab.context.clearing.clear_tool_results",
    "agentlab.context.clearing.ClearToolResults.before_call",
    "agentlab.sim.context_editing.clear_tool_uses",
    "agentlab.sim.context_editing.apply_context_management",
    why="Exercise 10 asks you to write the compaction trigger and the clearing yourself",
)

ex10 = lazy_import("exercises.ex10_context")


@pytest.fixture
def rng():
    """A random generator seeded from the OS: new cases on every run."""
    return random.Random(os.urandom(16))


def _random_calls(rng):
    """Random per-call token counts and a threshold near, at, or away from the last call's size."""
    n = rng.randint(1, 8)
    prompts = [rng.randint(100, 50_000) for _ in range(n)]
    outputs = [rng.randint(1, 4_000) for _ in range(n)]
    last = prompts[-1] + outputs[-1]
    threshold = rng.choice([last, last - 1, last + 1, rng.randint(1, 60_000), max(prompts) + max(outputs)])
    return prompts, outputs, max(threshold, 1)


@pytest.mark.exercise("10.1")
@pytest.mark.points(1)
def test_no_call_yet_means_no_compaction():
    assert ex10.compact_now([], [], 100) is False


@pytest.mark.exercise("10.1")
@pytest.mark.points(1)
def test_the_trigger_reads_the_last_call_prompt_plus_output():
    assert ex10.compact_now([500, 7_900], [50, 200], 8_000) is True
    assert ex10.compact_now([9_000, 7_000], [50, 200], 8_000) is False, "only the LAST call counts: the history was cut"
    assert ex10.compact_now([7_800], [200], 8_000) is False, "exactly at the threshold is not past it"


@pytest.mark.exercise("10.1")
@pytest.mark.points(3)
def test_the_trigger_on_random_calls(rng):
    for _ in range(200):
        prompts, outputs, threshold = _random_calls(rng)
        want = prompts[-1] + outputs[-1] > threshold  # the rule the exercise states
        got = ex10.compact_now(list(prompts), list(outputs), threshold)
        assert got is want, f"compact_now({prompts}, {outputs}, {threshold}): expected {want}, got {got}"


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
    assert cleared < full - 400, f"clearing 5 of 6 results should save over 400 tokens: {full} -> {cleared}"
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
        assert not broken, f"budget {budget}, parts {parts}: {broken}"
