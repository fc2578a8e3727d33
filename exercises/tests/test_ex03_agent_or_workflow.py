"""Graded tests for exercises/ex03_agent_or_workflow.py. Run: make grade"""

import pytest

import agentlab
from agentlab.client import connect  # noqa: F401  (imports the SDK at collection, outside the time limit)
from agentlab.grading import lazy_import, shared

pytestmark = pytest.mark.forbids(
    "agentlab.workflows.chaining.run_chain", why="Exercise 3 asks you to write the chain and its gate yourself"
)

ex03 = lazy_import("exercises.ex03_agent_or_workflow")
MODEL = "claude-haiku-4-5"


def _calls(client):
    return len(agentlab.meter_of(client).calls)


@pytest.mark.exercise("3.1")
@pytest.mark.points(2)
def test_chain_writes_and_saves_the_note_in_two_model_calls(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    out = ex03.city_chain(client, "Which is warmer today, Paris or Rome? Save a note.", tmp_path, MODEL)
    assert isinstance(out, dict) and out.get("stopped_at") is None, f"expected a finished chain, got {out!r}"
    assert "Rome is warmer at 22°C" in (out.get("note") or ""), (
        f"the note should compare the data, got {out.get('note')!r}"
    )
    assert (tmp_path / "notes.md").exists(), "step 4 should save the note with save_note"
    assert _calls(client) == 2, (
        f"a chain makes exactly 2 model calls here (extract, write); yours made {_calls(client)} (reread '1. Prompt chaining' in notebook 04)"
    )


@pytest.mark.exercise("3.1")
@pytest.mark.points(2)
def test_gate_stops_on_a_city_the_tool_refuses_with_its_message(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    out = ex03.city_chain(client, "Which is warmer today, Pariss or Rome? Save a note.", tmp_path, MODEL)
    assert out.get("stopped_at") == "gate" and out.get("note") is None, f"the gate should stop the chain, got {out!r}"
    assert "Did you mean: Paris" in out.get("reason", ""), (
        f"the reason should be the tool's message, got {out.get('reason')!r}"
    )
    assert _calls(client) == 1 and not (tmp_path / "notes.md").exists(), (
        "after a failed gate: no more model calls, no note"
    )


@pytest.mark.exercise("3.1")
@pytest.mark.points(1)
def test_gate_stops_with_fewer_than_two_cities(tmp_path):
    client = agentlab.connect("sim", quiet=True)
    out = ex03.city_chain(client, "How warm is Paris today?", tmp_path, MODEL)
    assert out.get("stopped_at") == "gate" and _calls(client) == 1, f"one city cannot be compared: {out!r}"


@pytest.mark.exercise("3.2")
@pytest.mark.points(1)
def test_known_city_needs_no_retry():
    assert ex03.weather_with_retry("Oslo") == ("Oslo", 9.5)


@pytest.mark.exercise("3.2")
@pytest.mark.points(2)
def test_misspelt_city_is_retried_with_the_suggestion():
    got = ex03.weather_with_retry("Pariss")
    assert got == ("Paris", 18.5), (
        f"'Pariss' should be retried as 'Paris' (the tool suggests it); got {got!r} (reread 'Fixing the workflow means writing code' in notebook 03b)"
    )


@pytest.mark.exercise("3.2")
@pytest.mark.points(1)
def test_city_with_no_suggestion_gives_none():
    assert ex03.weather_with_retry("Qqqqzzzz") is None


@shared
def measured_costs():
    """The variants run both ways here, in the grader, in both editions' languages (a student reads the
    costs off the table of the notebook they ran): per task, the pick it calls for, what the pick
    costs in each language, and each side's success and cost."""
    import tempfile

    from agentlab.experiments.replacement import variant_table

    tables = {}
    for lang in ("en", "zh"):
        with tempfile.TemporaryDirectory(prefix="ship-") as folder:
            tables[lang] = variant_table(agentlab.connect("sim", quiet=True), folder, lang)
    out = {}
    for task in ("plain", "misspelt", "rain"):
        rows = tables["en"][tables["en"]["variant"] == task]
        done = rows[rows["success"]].sort_values("cost (USD)")
        pick = done.iloc[0]["side"]
        usd = {}
        for lang, table in tables.items():
            mine = table[(table["variant"] == task) & (table["side"] == pick)]
            usd[lang] = float(mine.iloc[0]["cost (USD)"])
        out[task] = (
            pick,
            usd,
            {r["side"]: (bool(r["success"]), float(r["cost (USD)"])) for _, r in rows.iterrows()},
        )
    return out


@pytest.fixture(scope="module")
def measured():
    return measured_costs()  # in the gradebook, its worker computed it once before forking this test


def check_ship(measured, task):
    answer = ex03.designs_to_ship()
    assert isinstance(answer, dict) and isinstance(answer.get(task), dict), (
        f"return {{task: {{'pick': ..., 'usd': ...}}}} for each of {ex03.SHIP_TASKS}; got {answer!r}"
    )
    pick, usd, sides = measured[task]
    got = answer[task]
    if got.get("pick") in sides and not sides[got["pick"]][0]:
        pytest.fail(f"{task}: the {got['pick']} did not do the task (see the table's success column): it cannot ship")
    assert got.get("pick") == pick, (
        f"{task}: {got.get('pick')!r} does the task but costs more "
        f"({sides.get(got.get('pick'), (None, '?'))[1]} USD) than the {pick} (reread 'Five versions of the task' in notebook 03b)"
    )
    assert isinstance(got.get("usd"), (int, float)) and any(abs(got["usd"] - u) <= 0.02 * u for u in usd.values()), (
        f"{task}: usd {got.get('usd')!r} is not the {pick}'s measured cost of one run "
        f"({usd['en']:.6f} USD; {usd['zh']:.6f} USD as the zh-CN notebook measures it)"
    )


@pytest.mark.exercise("3.3")
@pytest.mark.points(1)
def test_the_plain_task_ships_the_cheapest_design_that_does_it_at_its_measured_cost(measured):
    check_ship(measured, "plain")


@pytest.mark.exercise("3.3")
@pytest.mark.points(1)
def test_the_misspelt_task_ships_the_cheapest_design_that_does_it_at_its_measured_cost(measured):
    check_ship(measured, "misspelt")


@pytest.mark.exercise("3.3")
@pytest.mark.points(1)
def test_the_rain_task_ships_the_cheapest_design_that_does_it_at_its_measured_cost(measured):
    check_ship(measured, "rain")
