"""One profile per exact model id, with a source for each figure, driving the estimator and the validator."""

from __future__ import annotations

import typing

import anthropic
import pytest
from anthropic.types.model_param import ModelParam
from sim_http import body, error, post

import agentlab
from agentlab.api.profiles import profile, profiles
from agentlab.api.tokens import content_tokens, estimate_input_tokens, tool_prompt_overhead
from agentlab.meter.prices import models_table, rows
from agentlab.sim.clock import SimClock
from agentlab.sim.server import Simulator

SDK_IDS = [a for arg in typing.get_args(ModelParam) for a in typing.get_args(arg)]
TEXT = "The quick brown fox jumps over the lazy dog near the riverbank while the sun sets slowly. " * 20


def test_every_model_the_sdk_lists_has_an_exact_profile():
    missing = [m for m in SDK_IDS if profile(m) is None]
    assert not missing, f"add a profile to agentlab/api/data/profiles.json for {missing}"


def test_a_newer_dated_id_is_not_caught_by_an_older_profile():
    assert profile("claude-opus-4-7-20991231") is None
    status, kind, message = error(post(body("claude-opus-4-7-20991231")))
    assert (status, kind, message) == (404, "not_found_error", "model: claude-opus-4-7-20991231")


def test_every_figure_names_its_source():
    for p in profiles().values():
        for field in ("limits", "tokenizer", "forced_tool_choice", "prefill", "sampling", "thinking", "tool_prompt"):
            assert p.sources.get(field), f"{p.id}: no source for {field}"


def test_newer_tokenizer_counts_about_30_percent_more_for_the_same_text():
    old, new = content_tokens(TEXT, model="claude-opus-4-6"), content_tokens(TEXT, model="claude-opus-4-7")
    assert old > 100 and round(new / old, 2) == 1.3


def test_request_estimates_use_the_model_s_tokenizer_and_tool_prompt():
    tool = {
        "name": "get_weather",
        "description": "Weather for a city",
        "input_schema": {"type": "object", "properties": {}},
    }
    req = {"messages": [{"role": "user", "content": TEXT}], "tools": [tool]}
    a = estimate_input_tokens({"model": "claude-opus-4-6", **req}) - tool_prompt_overhead("claude-opus-4-6", None)[0]
    b = estimate_input_tokens({"model": "claude-opus-4-7", **req}) - tool_prompt_overhead("claude-opus-4-7", None)[0]
    assert b > a * 1.25
    assert tool_prompt_overhead("claude-opus-4-7", None)[0] == 675  # published; no recording measures an offset
    assert tool_prompt_overhead("claude-opus-4-8", None)[0] == 290  # published; the recordings measure no offset
    # a deferred tool adds Opus 5's measured deferred_tools figure (the stand-in of the 1.3-tokenizer models)
    assert tool_prompt_overhead("claude-opus-4-8", None, deferred=True)[0] == 290 + 165


def test_models_table_shows_prices_and_says_which_figures_stand_in():
    text = models_table()
    assert "claude-sonnet-5-5" in text and "$2" in text
    assert "* claude-sonnet-5-5: Claude Sonnet 5 figure stands in" in text
    priced = {r["model"]: r["in_per_mtok"] for r in rows()}
    assert all(v == "unknown" or v.startswith("$") for v in priced.values())
    assert "$0" not in priced.values()


def test_cli_models_prints_the_table(capsys):
    from agentlab.cli import main

    assert main(["models"]) == 0
    assert "claude-opus-4-7" in capsys.readouterr().out


def test_max_tokens_above_the_model_maximum_is_the_api_400():
    before_retirement = Simulator(clock=SimClock(day="2026-04-19"))  # Haiku 3 retired on 2026-04-20
    status, _, message = error(post(body("claude-3-haiku-20240307", max_tokens=4097), sim=before_retirement))
    assert (status, message) == (
        400,
        "max_tokens: 4097 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307",
    )
    assert post(body("claude-3-haiku-20240307", max_tokens=4096), sim=before_retirement).status_code == 200
    status, _, message = error(post(body("claude-haiku-4-5", max_tokens=64001)))
    assert status == 400 and message.startswith("max_tokens: 64001 > 64000, which is the maximum")


def test_retired_model_is_not_found(sim):
    with pytest.raises(anthropic.NotFoundError, match="model: claude-3-7-sonnet-20250219"):
        sim.messages.create(
            model="claude-3-7-sonnet-20250219", max_tokens=5, messages=[{"role": "user", "content": "x"}]
        )


def test_connect_refuses_a_retired_model():
    with pytest.raises(ValueError, match="no such model"):
        agentlab.connect("sim", model="claude-3-5-haiku-20241022", quiet=True)


def test_prompt_longer_than_the_context_window_is_the_api_400():
    long = "word " * 210_000
    status, _, message = error(post(body("claude-haiku-4-5", messages=[{"role": "user", "content": long}])))
    assert status == 400 and message.startswith("prompt is too long: ") and message.endswith(" tokens > 200000 maximum")
