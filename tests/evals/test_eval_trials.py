"""The trials (agentlab/evals/trials.py), their outcome check (tasks.py) and ``agentlab eval``."""

from __future__ import annotations

import re

import pytest

from agentlab.cli import main
from agentlab.evals import trials
from agentlab.evals.tasks import TASKS, check

TWO = TASKS[:2]


@pytest.fixture(scope="module")
def rows():
    """Four trials of both variants on two tasks, from scratch."""
    return trials.run_trials(trials=4, tasks=TWO, progress=False)


def test_every_trial_is_a_row_and_the_same_seeds_give_the_same_rows(rows):
    assert len(rows) == 2 * 2 * 4
    assert trials.run_trials(trials=4, tasks=TWO, progress=False) == rows


def test_a_stopped_eval_resumes_where_it_was_and_runs_nothing_twice(rows, tmp_path, monkeypatch):
    out = tmp_path / "eval.csv"
    trials.run_trials(trials=2, tasks=TWO, out=out, progress=False)  # stopped after two trials each
    ran = []
    real = trials._one
    monkeypatch.setattr(trials, "_one", lambda *a: ran.append(a[1:3]) or real(*a))
    again = trials.run_trials(trials=4, tasks=TWO, out=out, progress=False)
    assert len(ran) == 2 * 2 * 2, "only the trials not yet in the file"
    key = lambda r: (r["variant"], r["task"], r["trial"])
    assert sorted(again, key=key) == sorted(rows, key=key) == sorted(trials.read_rows(out), key=key)


def test_a_trial_that_raises_is_a_failed_row_said_in_one_line(tmp_path, monkeypatch, capsys):
    real = trials._one

    def flaky(client, variant, task, notes):
        if variant == "agent" and task.id == TWO[0].id:
            raise RuntimeError("tool server gone")
        return real(client, variant, task, notes)

    monkeypatch.setattr(trials, "_one", flaky)
    got = trials.run_trials(trials=2, tasks=TWO, out=tmp_path / "e.csv", progress=False)
    bad = [r for r in got if r["why"].startswith("raised")]
    assert len(bad) == 2 and not any(r["success"] for r in bad) and len(got) == 8
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("raised RuntimeError: tool server gone" in line for line in err)
    table = trials.summarize(got, k=2)
    assert table.loc["agent", "failures"] == "raised RuntimeError x2" and table.loc["agent", "crashed"] == 2
    assert table.loc["agent", "turns"] >= 3 and table.loc["agent", "USD/trial"] > 0, "crashes left out of means"


@pytest.mark.parametrize(
    "note,why",
    [
        ("London is warmer at 18.5°C, compared with Paris at 15°C.", "names the wrong city as warmest"),
        ("Paris is warmer at 15°C, compared with London at 18.5°C.", "a temperature missing or wrong"),
        ("Paris is warmer at 19°C, compared with London at 15°C.", "a temperature missing or wrong"),
        ("Paris is warmer at 18.5°C.", "a city missing from the note"),
        ("Paris 18.5°C. London 15°C. London is the warmest.", "names the wrong city as warmest"),
        ("London at 15°C is cooler; Paris at 18.5°C is warmer.", None),
        ("Paris is warmer at 18.5°C, compared with London at 15°C.", None),
        ("Paris: 18.50 °C, London: 15 ℃.", None),
    ],
)
def test_the_check_reads_the_note_not_the_words(tmp_path, note, why):
    task = TASKS[0]  # Paris 18.5, London 15
    (tmp_path / "notes.md").write_text(note + "\n", "utf-8")
    assert check(task, tmp_path) == why


def test_no_note_is_a_failure_whatever_the_run_said(tmp_path):
    assert check(TASKS[0], tmp_path) == "no note saved"
    zh = next(t for t in TASKS if t.lang == "zh")  # Shanghai 20, Beijing 14
    (tmp_path / "notes.md").write_text("上海更暖和：20°C，北京 14°C。\n", "utf-8")
    assert check(zh, tmp_path) is None


def test_a_cut_off_file_resumes_and_a_foreign_one_is_refused(tmp_path):
    out = tmp_path / "eval.csv"
    trials.run_trials(["workflow"], trials=2, tasks=TWO, out=out, progress=False)
    whole = trials.read_rows(out)
    out.write_bytes(out.read_bytes()[:-7])  # killed while writing the last row
    again = trials.run_trials(["workflow"], trials=2, tasks=TWO, out=out, progress=False)
    assert again == whole and trials.read_rows(out) == whole, "the cut row ran again, nothing else"
    out.write_text(out.read_text() + out.read_text().splitlines()[1] + "\n")  # a row twice
    assert trials.run_trials(["workflow"], trials=2, tasks=TWO, out=out, progress=False) == whole
    (tmp_path / "other.csv").write_text("name,score\nx,1\n")
    with pytest.raises(ValueError, match="not an eval results file"):
        trials.run_trials(["workflow"], trials=1, tasks=TWO, out=tmp_path / "other.csv", progress=False)
    bad = out.read_text().replace(",True,", ",Tr,", 1)
    (tmp_path / "bad.csv").write_text(bad)
    with pytest.raises(ValueError, match=r"bad.csv:2: not a row"):
        trials.read_rows(tmp_path / "bad.csv")


def test_only_the_asked_rows_come_back(tmp_path):
    out = tmp_path / "eval.csv"
    trials.run_trials(["workflow", "workflow"], trials=3, tasks=TASKS[:3], out=out, progress=False)
    assert len(trials.read_rows(out)) == 9, "a variant named twice runs once"
    got = trials.run_trials(["workflow"], trials=2, tasks=TWO, out=out, progress=False)
    assert {(r["task"], r["trial"]) for r in got} == {(t.id, i) for t in TWO for i in range(2)}


def test_summary_figures_follow_from_the_rows(rows):
    table = trials.summarize(rows, k=2)
    for variant in ("agent", "workflow"):
        mine = [r for r in rows if r["variant"] == variant]
        ok = sum(r["success"] for r in mine)
        assert table.loc[variant, "trials"] == len(mine) and table.loc[variant, "pass@1"] == ok / len(mine)
        assert table.loc[variant, "pass^2"] <= table.loc[variant, "pass@1"] <= table.loc[variant, "pass@2"]
    assert table.loc["workflow", "turns"] == 1 and table.loc["agent", "turns"] > 2
    for variant in ("agent", "workflow"):
        mine = [r for r in rows if r["variant"] == variant]
        spent = sum(r["input_tokens"] + r["output_tokens"] for r in mine)
        assert table.loc[variant, "tokens/success"] == pytest.approx(spent / sum(r["success"] for r in mine))
    with pytest.raises(ValueError, match="give k <= 4"):
        trials.summarize(rows, k=5)
    one = trials.summarize(rows, k=1)
    assert [c for c in one.columns if c.startswith("pass")] == ["pass@1", "pass@1 interval"]


def test_agentlab_eval_prints_the_table_marked_as_the_scripted_model(tmp_path, capsys):
    out = tmp_path / "e.csv"
    assert main(["eval", "--trials", "2", "-k", "2", "--variants", "workflow", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pass^2" in printed and "[scripted model]" in printed and "agent " not in printed
    assert main(["eval", "--trials", "2", "-k", "3", "--out", str(out)]) == 2
    assert "-k 3 needs at least 3 trials" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "--trials", "0"])
    assert "give a whole number >= 1" in capsys.readouterr().err


def test_the_live_default_cap_is_several_times_what_the_default_eval_costs_at_the_live_default_model():
    import argparse

    from agentlab.client import default_model
    from agentlab.evals.cli import LIVE_MAX_USD, _preview

    args = argparse.Namespace(variants=["agent", "workflow"], trials=20, out="eval.csv")
    said = _preview(args, default_model("live"), LIVE_MAX_USD)
    (usd,) = re.findall(r"about \$([\d.]+) at", said)
    assert 0 < float(usd) * 4 <= LIVE_MAX_USD and "the cap stops it" not in said
