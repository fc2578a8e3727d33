"""``agentlab eval`` live (against a stand-in that answers like the API): through the spending cap, recorded
once and replayed offline into the same rows."""

from __future__ import annotations

import pytest
from live_standin import serve_standin, standin

import agentlab
from agentlab.cli import main
from agentlab.evals import trials
from agentlab.evals.tasks import TASKS

KEY = "sk-ant-api03-" + "RXZ" * 14 + "-evaltail"
MODEL = "claude-sonnet-5-5"
TWO = TASKS[:2]


def _live(tmp_path, **options):
    transport, seen = standin()
    return agentlab.connect("live", api_key=KEY, transport=transport, quiet=True, model=MODEL, **options), seen


def test_a_live_eval_is_recorded_once_and_replays_offline_into_the_same_rows(tmp_path):
    live, seen = _live(tmp_path, record=tmp_path / "eval.yaml")
    recorded = trials.run_trials(trials=2, tasks=TWO, out=tmp_path / "live.csv", client=live, progress=False)
    assert {r["mode"] for r in recorded} == {"live"} and len(recorded) == 8 and seen
    replay = agentlab.connect("replay", cassette=tmp_path / "eval.yaml", quiet=True, model=MODEL)
    replayed = trials.run_trials(trials=2, tasks=TWO, out=tmp_path / "replay.csv", client=replay, progress=False)
    assert [{**r, "mode": "-"} for r in replayed] == [{**r, "mode": "-"} for r in recorded]
    assert replay.agentlab_replayer.played == len(seen)
    with pytest.raises(ValueError, match="holds live trials and this eval is sim"):
        trials.run_trials(trials=2, tasks=TWO, out=tmp_path / "live.csv", progress=False)


def test_the_cap_stops_the_eval_before_a_call_and_keeps_every_finished_trial(tmp_path):
    live, _ = _live(tmp_path, max_usd=0.03)
    with pytest.raises(trials.CapReached, match="the spending cap refused the next call"):
        trials.run_trials(["agent"], trials=4, tasks=TWO, out=tmp_path / "e.csv", client=live, progress=False)
    kept = trials.read_rows(tmp_path / "e.csv")
    assert kept and all(r["success"] and r["stop_reason"] != "usd_budget" for r in kept)
    assert live.agentlab_cap.spent() <= 0.03


def test_agentlab_eval_live_previews_caps_and_says_how_to_go_on(tmp_path, monkeypatch, capsys):
    base, stop = serve_standin()
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        out = tmp_path / "e.csv"
        args = ["eval", "--live", "--trials", "1", "-k", "1", "--model", MODEL, "--out", str(out)]
        assert main([*args, "--max-usd", "0.008"]) == 1
        err = capsys.readouterr().err
        assert "agentlab eval --live: about" in err and "the cap stops it before the end" in err
        assert "Raise the cap and run the same command to go on, e.g. --max-usd 0.032" in err
        assert main([*args, "--max-usd", "0.2"]) == 0, "the same command with a higher cap finishes the eval"
        printed = capsys.readouterr().out
        assert "live trials on claude-sonnet-5-5" in printed and "[scripted model]" not in printed
        assert len(trials.read_rows(out)) == 10
    finally:
        stop()
    assert main(["eval", "--record", str(tmp_path / "x.yaml")]) == 2
    assert "--record and --max-usd go with --live" in capsys.readouterr().err
