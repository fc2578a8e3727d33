"""The careful agent with seeded variation (agentlab/sim/models/varied.py): same seed, same run; each variation
does what its rate says; the default model is untouched."""

from __future__ import annotations

import pytest

import agentlab
from agentlab.sim.models.careful import CarefulAgent
from agentlab.sim.models.varied import Rates, VariedAgent, swap_warmest

TASK = agentlab.city_task(["Tokyo", "Sydney", "Cairo"], "en")


def _run(policy, tmp_path, name="n"):
    client = agentlab.connect("sim", policy=policy, quiet=True)
    return agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path / name))


def _shape(run):
    return [(t.stop_reason, t.tool_calls) for t in run.turns], run.final_text, run.tool_results


def test_the_same_seed_gives_the_same_run_and_seeds_differ(tmp_path):
    runs = {seed: _shape(_run(VariedAgent(seed), tmp_path, f"s{seed}")) for seed in range(12)}
    assert _shape(_run(VariedAgent(3), tmp_path, "again")) == runs[3]
    assert len({repr(r) for r in runs.values()}) >= 3, "twelve seeds take several different paths"


def test_rates_of_zero_are_the_careful_agent_but_for_the_opening_words(tmp_path):
    still = Rates(one_at_a_time=0, typo=0, claims_done=0, wrong_city=0)
    varied, careful = _run(VariedAgent(5, still), tmp_path, "v"), _run(CarefulAgent(), tmp_path, "c")
    assert varied.tool_results == careful.tool_results and varied.final_text.endswith(careful.final_text)


def test_each_variation_does_what_its_rate_says(tmp_path):
    alone = _run(VariedAgent(0, Rates(one_at_a_time=1, typo=0, claims_done=0, wrong_city=0)), tmp_path, "a")
    assert [len(t.tool_calls) for t in alone.turns[:3]] == [1, 1, 1], "one lookup a turn"
    typo = _run(VariedAgent(0, Rates(one_at_a_time=0, typo=1, claims_done=0, wrong_city=0)), tmp_path, "t")
    errors = [r for r in typo.tool_results if r["is_error"]]
    assert errors and all("Did you mean" in r["content"] for r in errors), "every first lookup mistyped"
    assert typo.final_text and "save_note" in [r["name"] for r in typo.tool_results], "and the fix follows"
    done = _run(VariedAgent(0, Rates(one_at_a_time=0, typo=0, claims_done=1, wrong_city=0)), tmp_path, "d")
    assert "save_note" not in [r["name"] for r in done.tool_results] and "I saved the note" in done.final_text
    wrong = _run(VariedAgent(0, Rates(one_at_a_time=0, typo=0, claims_done=0, wrong_city=1)), tmp_path, "w")
    (note,) = [r["input"]["text"] for r in wrong.tool_results if r["name"] == "save_note"]
    assert not note.startswith("Cairo") and "Cairo" in note


def test_swap_names_the_wrong_city_first_in_both_languages():
    assert swap_warmest("Paris is warmer at 18.5°C, compared with London at 15°C.").startswith("London is warmer")
    assert swap_warmest("上海更暖和：20°C，北京 14°C。") == "北京更暖和：20°C，上海 14°C。"
    assert swap_warmest("Only Paris here.") == "Only Paris here."


def test_bad_rates_and_seeds_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="typo=0.1"):
        Rates(typo=1.5)
    with pytest.raises(TypeError, match="whole number"):
        VariedAgent("7")


def test_each_rate_is_how_often_its_variation_happens(tmp_path):
    """2,000 seeds on the requests of one careful run: each variation's share within four standard errors."""
    asked = []

    def record(request):
        asked.append(request)
        return CarefulAgent()(request)

    client = agentlab.connect("sim", policy=record, quiet=True)
    agentlab.run_agent(client, TASK, agentlab.task_tools(tmp_path))
    lookups, save = asked[0], asked[1]  # all three lookups at once; then save_note
    r, n = Rates(), 2000
    counts = {"one_at_a_time": 0, "typo": 0, "claims_done": 0, "wrong_city": 0}
    for seed in range(n):
        agent = VariedAgent(seed)
        calls = [b for b in agent(lookups).content if b["type"] == "tool_use"]
        counts["one_at_a_time"] += len(calls) == 1
        counts["typo"] += calls[0]["input"]["city"] not in ("Tokyo", "Sydney", "Cairo")
        reply = agent(save).content
        note = next((b["input"]["text"] for b in reply if b["type"] == "tool_use"), None)
        counts["claims_done"] += note is None
        counts["wrong_city"] += note is not None and not note.startswith("Cairo")
    expected = {
        "one_at_a_time": r.one_at_a_time,
        "typo": r.typo,
        "claims_done": r.claims_done,
        "wrong_city": (1 - r.claims_done) * r.wrong_city,
    }
    for name, p in expected.items():
        assert abs(counts[name] / n - p) <= 4 * (p * (1 - p) / n) ** 0.5, (name, counts[name] / n, p)
