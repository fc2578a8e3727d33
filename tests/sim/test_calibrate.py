"""``agentlab calibrate``: the simulator replayed against recorded real traffic, offline."""

import json

import pytest

from agentlab.cli import main
from agentlab.sim.calibrate import Row, bundled, groups_of, real_tokens, replay, summary
from agentlab.sim.calibrate_report import rows_for, table


def test_bundled_set_names_its_source_commit_and_licence_and_carries_no_headers():
    data = bundled()
    assert data["source"] == "https://github.com/pydantic/pydantic-ai" and len(data["commit"]) == 40
    assert "MIT License" in data["licence"] and "Permission is hereby granted" in data["licence"]
    text = json.dumps(data["records"])
    assert "sk-ant" not in text and "headers" not in data["records"][0]
    assert {r["split"] for r in data["records"]} == {"fit", "held_out"}


def test_split_keeps_each_cassette_on_one_side():
    sides: dict[str, set] = {}
    for r in bundled()["records"]:
        sides.setdefault(r["cassette"], set()).add(r["split"])
    assert all(len(s) == 1 for s in sides.values())


def test_real_tokens_add_cache_reads_and_writes():
    assert real_tokens({"input_tokens": 3, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100}) == 113
    assert real_tokens(None) is None


def test_server_tools_are_not_core():
    body = {"tools": [{"type": "web_search_20250305", "name": "web_search"}], "messages": []}
    assert groups_of(body) == ("server",)
    assert Row("c", "m", "fit", 100, 90, groups=groups_of(body)).core is False
    assert groups_of({"messages": [{"role": "user", "content": "hi"}]}) == ("plain",)


def test_calibrate_prints_per_model_error_on_the_held_out_set(capsys):
    assert main(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "held_out" in out and "claude-sonnet-4-5" in out and "median" in out and "p90" in out


def test_calibrate_reads_an_instructors_own_cassette(tmp_path, capsys):
    cassette = {
        "interactions": [
            {
                "request": {
                    "uri": "https://api.anthropic.com/v1/messages",
                    "method": "POST",
                    "parsed_body": {
                        "model": "claude-opus-4-6",
                        "max_tokens": 10,
                        "system": "You are a scientist",
                        "messages": [{"role": "user", "content": "Hello, Claude"}],
                    },
                },
                "response": {
                    "status": {"code": 200},
                    "parsed_body": {"usage": {"input_tokens": 14, "output_tokens": 3}},
                },
            }
        ]
    }
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(cassette))
    rows = rows_for([str(path)])
    assert len(rows) == 1 and rows[0].real == 14 and rows[0].estimate == 14 and rows[0].error == 0
    assert main(["calibrate", str(path)]) == 0
    assert "your cassettes" in capsys.readouterr().out


def test_a_refused_request_is_listed_with_the_reason():
    rec = {
        "cassette": "x",
        "split": "yours",
        "model": "claude-opus-4-6",
        "status": 200,
        "usage": {"input_tokens": 9},
        "request": {"model": "claude-opus-4-6", "max_tokens": 10, "messages": [{"role": "robot", "content": "hi"}]},
    }
    (row,) = replay([rec])
    assert row.refused.startswith("400 ") and "role" in row.refused and row.estimate is None
    assert "refused by the simulator though the API answered 200: 1" in table([row])


def test_summary_reports_median_p90_and_signed_bias():
    rows = [Row("c", "m", "fit", 100, e) for e in (90, 95, 100, 110, 150)]
    s = summary(rows)["m"]
    assert s["n"] == 5 and s["median_abs"] == pytest.approx(0.10) and s["bias"] == pytest.approx(0.0)
    assert s["p90_abs"] == pytest.approx(0.5)


def test_figure_draws_one_bar_per_model_and_the_target_line():
    import matplotlib

    matplotlib.use("Agg")
    from agentlab.sim.calibrate_report import figure

    fig = figure([Row("c", "a", "fit", 100, 90), Row("c", "b", "fit", 100, 130)])
    ax = fig.axes[0]
    assert len(ax.patches) == 2 and len(ax.lines) == 1


def test_every_model_with_five_held_out_core_requests_is_within_the_target():
    from agentlab.sim.calibrate_report import MIN_N, TARGET

    core = summary(rows_for())
    above = {m: round(s["median_abs"], 3) for m, s in core.items() if s["n"] >= MIN_N and s["median_abs"] > TARGET}
    assert above == {}
    assert core["claude-opus-4-8"]["n"] >= MIN_N  # the model that was above it (stand-in offset on plain tools)


def test_the_unseen_set_names_each_source_its_commit_licence_and_what_it_left_out():
    from agentlab.sim.calibrate import unseen

    data = unseen()
    names = [s["repository"].removeprefix("https://github.com/") for s in data["sources"]]
    assert len(names) >= 2 and "pydantic/pydantic-ai" not in names  # never the source the estimator is fitted on
    for s in data["sources"]:
        assert len(s["commit"]) == 40 and s["licence"].strip() and s["cassettes"], s["repository"]
        assert s["kept"] == sum(r["source"] == s["repository"][19:] for r in data["records"])
        assert {"left_out_no_server_evidence", "left_out_before_claude_4"} <= set(s)
    text = json.dumps(data["records"])
    assert "sk-ant" not in text and all("headers" not in r for r in data["records"])
    assert {r["split"] for r in data["records"]} == {"unseen"}
    assert not any(str(r["model"]).startswith("claude-3") for r in data["records"])


def test_every_request_the_api_answered_in_another_project_is_answered_by_the_simulator():
    from agentlab.sim.calibrate import unseen

    rows = rows_for(split="unseen")
    assert rows and {r.source for r in rows} == {s["repository"][19:] for s in unseen()["sources"]}
    refused = [(r.source, r.cassette, r.refused) for r in rows if r.refused and r.real is not None]
    assert refused == []


def test_out_of_sample_is_the_held_out_half_and_the_other_projects_reported_by_source(capsys):
    from agentlab.sim.calibrate import by_source

    rows = rows_for(split="out_of_sample")
    assert len(rows) == len(rows_for()) + len(rows_for(split="unseen"))
    sources = {s for s, _ in by_source(rows)}
    assert "pydantic/pydantic-ai (held out)" in sources and len(sources) >= 3
    assert main(["calibrate", "--split", "out_of_sample"]) == 0
    out = capsys.readouterr().out
    assert "by source (core requests; none of these was fitted on)" in out and "<- posit-dev/chatlas" in out


def test_every_request_the_api_refused_in_any_source_is_refused_with_the_same_status():
    from agentlab.sim.calibrate import unseen

    refused = [r for r in unseen()["records"] + bundled()["records"] if r.get("status", 200) != 200]
    assert refused, "the sources hold the API's own refusals (a misspelt model, an effort the model does not take)"
    got = [row.refused.split(" ", 1)[0] for row in replay(refused)]
    assert got == [str(r["status"]) for r in refused], [(r["cassette"], r["status"]) for r in refused]


def test_a_source_given_as_copies_keeps_real_answers_and_counts_the_rest(tmp_path):
    """scripts/make_unseen_set.py's reader for a source too large to mirror (http-recorder JSON, as opencode's)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "make_unseen_set", Path(__file__).resolve().parents[2] / "scripts" / "make_unseen_set.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    copies_of = script.copies_of

    def interaction(model, status, body):
        request = {"model": model, "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}
        url = "https://api.anthropic.com/v1/messages"
        return {"request": {"url": url, "body": json.dumps(request)}, "response": {"status": status, "body": body}}

    real = json.dumps(
        {
            "id": "msg_01DgAEgLgB1ZhavZon4qGE1t",
            "type": "message",
            "content": [{"type": "text", "text": "Hello"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 9, "output_tokens": 2},
        }
    )
    refused = '{"type":"error","error":{"type":"invalid_request_error","message":"no"},"request_id":"req_011Cak2XdJgnzxKCY2BC2Beh"}'
    cassette = {
        "interactions": [
            interaction("claude-haiku-4-5", 200, real),
            interaction(
                "claude-haiku-4-5", 200, real.replace("msg_01DgAEgLgB1ZhavZon4qGE1t", "msg_123")
            ),  # hand-written
            interaction("claude-3-5-haiku-latest", 200, real),
            interaction("claude-haiku-4-5", 400, refused),
        ]
    }
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "a.json").write_text(json.dumps(cassette))
    (tmp_path / "LICENSE").write_text("MIT License\n")
    about = {"commit": "c" * 40, "committed": "2026-05-03", "commits": {"rec/a.json": "c" * 40}, "copied": "by hand"}
    (tmp_path / "provenance.json").write_text(json.dumps(about))
    records, provenance = copies_of("someone/project", tmp_path)
    assert [(r["status"], r.get("usage", {}).get("input_tokens"), r.get("error", {}).get("type")) for r in records] == [
        (200, 9, None),
        (400, None, "invalid_request_error"),
    ]
    assert {r["source"] for r in records} == {"someone/project"} and records[0]["commit"] == "c" * 40
    assert provenance["kept"] == 2 and provenance["left_out_no_server_evidence"] == 1
    assert provenance["left_out_before_claude_4"] == 1 and provenance["licence"] == "MIT License\n"
