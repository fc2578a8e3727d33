"""Error recovery: readable errors are acted on, raw tracebacks get one blind retry, numbers are never invented."""

import re

import pytest

from agentlab.experiments.recovery import run_case, summary
from agentlab.sim.models.misbehaving import CARELESS_CASES, CarelessModel
from agentlab.weather import lookup


@pytest.fixture(scope="module")
def rows(recovery_rows):
    return recovery_rows


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", CARELESS_CASES)
def test_readable_errors_let_the_careless_model_recover_in_one_turn(case, lang, tmp_path):
    row = run_case(case, "readable", lang, tmp_path)
    assert row["success"] and row["turns_to_recover"] == 1, row


@pytest.mark.parametrize("case", [c for c in CARELESS_CASES if c != "timeout"])
def test_a_raw_traceback_gets_one_blind_retry_then_the_model_gives_up_saying_why(case, tmp_path):
    row = run_case(case, "raw", "en", tmp_path)
    assert not row["success"] and row["turns_to_recover"] is None
    assert row["turns"] == 3  # the mistake, one blind retry, the answer that gives up
    assert row["answer"].startswith("The tool call failed and the error does not say what to change")


def test_a_transient_timeout_is_recovered_by_the_blind_retry_in_either_style(rows):
    timeouts = [r for r in rows if r["case"] == "timeout"]
    assert len(timeouts) == 4 and all(r["success"] and r["turns_to_recover"] == 1 for r in timeouts)


def test_chinese_tasks_get_chinese_error_hints_and_a_chinese_give_up(tmp_path):
    assert "缺少必填字段" in run_case("missing_field", "readable", "zh", tmp_path)["errors_seen"][0]
    assert run_case("missing_field", "raw", "zh", tmp_path)["answer"].startswith("这个工具调用失败了")


def test_no_answer_holds_a_number_that_is_not_in_a_tool_result(rows):
    allowed = {f"{lookup(c)['temp_c']:g}" for c in ("Paris", "London", "上海", "北京")}
    for r in rows:
        if r["success"]:
            numbers = set(re.findall(r"-?\d+(?:\.\d+)?(?=°C)", r["answer"]))
            assert numbers and numbers <= allowed, r


def test_summary_per_style_is_computed_from_the_rows(rows):
    s = summary(rows)
    assert s["readable"]["runs"] == s["raw"]["runs"] == 2 * len(CARELESS_CASES)
    assert s["readable"]["success_rate"] == 1.0
    assert s["raw"]["success_rate"] == pytest.approx(2 / 12)  # only the transient timeouts recover
    assert s["readable"]["mean_turns_to_recover"] == 1.0


def test_careless_model_refuses_an_unknown_case():
    with pytest.raises(ValueError, match="CarelessModel\\(case='sloppy'\\)"):
        CarelessModel("sloppy")


def test_the_timeout_case_hangs_the_first_call_for_its_city_whatever_thread_comes_first():
    import threading

    from agentlab.experiments.recovery import hangs_once

    release = threading.Event()
    weather = hangs_once(release, "Paris")

    def call(city):
        done = threading.Event()
        threading.Thread(target=lambda: (weather(city=city), done.set()), daemon=True).start()
        return done

    assert call("London").wait(4), "another city's call never hangs (a hang lasts 5 s)"
    paris = call("Paris")
    assert not paris.wait(0.2), "the first Paris call hangs, though a London call came first"
    release.set()
    assert paris.wait(5) and call("Paris").wait(4), "released, it answers; a later Paris call never hangs"


def test_runs_without_a_notes_folder_leave_no_temporary_folder_behind(tmp_path, monkeypatch):
    """recovery_table and the tool-description comparison run many agents whose notes nobody reads."""
    import tempfile

    from agentlab.experiments.tool_descriptions import DESCRIPTIONS, run_once

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    row = run_case("missing_field", "readable", "en")
    assert row["success"]  # its notes were written (success needs them) and then removed
    run_once(*DESCRIPTIONS[next(iter(DESCRIPTIONS))])
    assert list(tmp_path.iterdir()) == []
    kept = tmp_path / "kept"
    run_case("missing_field", "readable", "en", kept)
    assert (kept / "notes.md").is_file()  # a folder the caller names is the caller's
