"""Model facts from the docs (issue 19 item 5): retirement on the simulator's calendar, sampling
parameters, ``anthropic-beta`` values, per-model cache minimums and message-thread lifetimes."""

from __future__ import annotations

import json
from datetime import date, timedelta

import anthropic
import pytest
from sim_http import body, error, post

import agentlab
from agentlab.api.profiles import read_date
from agentlab.meter.prices import rows
from agentlab.sim.caching import min_cacheable_tokens
from agentlab.sim.calibrate import read_cassettes, replay
from agentlab.sim.clock import SimClock
from agentlab.sim.server import Simulator, model_catalog

OLD = {"anthropic-version": "2023-06-01"}
RETIRED = [
    ("claude-sonnet-4-5", "2026-11-30"),
    ("claude-sonnet-4-5-20250929", "2026-11-30"),
    ("claude-opus-4-1", "2026-08-05"),
    ("claude-opus-4-1-20250805", "2026-08-05"),
    ("claude-opus-4-0", "2026-06-15"),
    ("claude-opus-4-20250514", "2026-06-15"),
    ("claude-sonnet-4-0", "2026-06-15"),
    ("claude-sonnet-4-20250514", "2026-06-15"),
    ("claude-3-haiku-20240307", "2026-04-20"),
]


def _on(day: str) -> Simulator:
    return Simulator(clock=SimClock(day=day))


@pytest.mark.parametrize("model, retires", RETIRED)
def test_a_model_answers_until_its_retirement_day_and_then_is_the_unknown_model_404(model, retires):
    eve = (date.fromisoformat(retires) - timedelta(days=1)).isoformat()
    assert post(body(model), sim=_on(eve)).status_code == 200
    assert error(post(body(model), sim=_on(retires))) == (404, "not_found_error", f"model: {model}")
    assert error(post(body("claude-sonet-4-5"))) == (
        404,
        "not_found_error",
        "model: claude-sonet-4-5",
    )  # a typo: same shape


def test_retirement_follows_the_simulators_clock_not_the_machines_date():
    clock = SimClock(day="2026-11-29")
    sim = Simulator(clock=clock)
    assert post(body("claude-sonnet-4-5"), sim=sim).status_code == 200
    clock.advance(24 * 3600)  # midnight UTC: 2026-11-30, Sonnet 4.5's retirement day
    assert clock.today() == date(2026, 11, 30) and "claude-sonnet-4-5" not in sim.models
    assert error(post(body("claude-sonnet-4-5"), sim=sim))[:2] == (404, "not_found_error")
    assert post(body(), sim=sim).status_code == 200  # the default model is untouched


def test_the_model_list_drops_retired_ids_on_the_day_and_the_table_marks_them(monkeypatch):
    assert "claude-sonnet-4-5" in model_catalog(date(2026, 11, 29))["models"]
    assert "claude-sonnet-4-5" not in model_catalog(date(2026, 11, 30))["models"]
    monkeypatch.setattr("agentlab.api.profiles.today", lambda: date(2026, 11, 29))
    assert {r["model"]: r["status"] for r in rows()}["claude-sonnet-4-5"] == "deprecated, retires 2026-11-30"
    monkeypatch.setattr("agentlab.api.profiles.today", lambda: date(2026, 12, 1))
    table = {r["model"]: r["status"] for r in rows(include_retired=True)}
    assert table["claude-sonnet-4-5"] == "retired 2026-11-30" and "claude-sonnet-4-5" not in {
        r["model"] for r in rows()
    }


def test_a_sim_clock_starts_on_the_day_the_profiles_were_read():
    assert SimClock().today() == date.fromisoformat(read_date())
    with pytest.raises(ValueError, match="ISO date"):
        SimClock(day="30/11/2026")


def test_calibrate_replays_a_cassette_on_the_day_it_was_recorded(tmp_path):
    cassette = tmp_path / "c.json"
    ask = {
        "method": "POST",
        "uri": "https://api.anthropic.com/v1/messages",
        "parsed_body": {
            "model": "claude-sonnet-4-0",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "Hi"}],
        },
    }
    answer = {"status": {"code": 200}, "parsed_body": {"usage": {"input_tokens": 8, "output_tokens": 2}}}
    cassette.write_text(
        json.dumps(
            {
                "interactions": [
                    {"request": ask, "response": answer, "recorded_at": at}
                    for at in ("2026-03-06T19:24:49+00:00", "2026-07-01T00:00:00+00:00")
                ]
            }
        )
    )
    served, late = replay(read_cassettes([str(cassette)]))
    assert (served.replayed_on, served.refused) == ("2026-03-06", "") and served.estimate > 0
    assert late.replayed_on == "2026-07-01" and late.refused == "404 model: claude-sonnet-4-0"


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-4-8", "claude-fable-5"])
def test_a_lone_default_temperature_passes_where_sampling_is_deprecated(model):
    assert post(body(model, temperature=1), headers=OLD).status_code == 200
    assert post(body(model, temperature=1.0), headers=OLD).status_code == 200
    for bad in ({"temperature": 0.5}, {"temperature": 1, "top_p": 1}, {"top_p": 0.9}, {"top_k": 5}):
        status, kind, message = error(post(body(model, **bad), headers=OLD))
        assert (status, kind) == (400, "invalid_request_error") and message.endswith("is deprecated for this model")


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-6"])
def test_temperature_with_top_p_is_the_api_400_on_the_4_5_and_4_6_models(model):
    assert error(post(body(model, temperature=0.7, top_p=0.9), headers=OLD)) == (
        400,
        "invalid_request_error",
        "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
    )
    assert post(body(model, temperature=0.7), headers=OLD).status_code == 200
    assert post(body(model, top_p=0.9, top_k=5), headers=OLD).status_code == 200


def test_an_unknown_beta_header_value_is_the_api_400_naming_each_unknown_value():
    status, kind, message = error(
        post(body(), headers={"anthropic-beta": "context-management-2025-06-27, made-up-2026-01-01,other"})
    )
    assert (status, kind) == (400, "invalid_request_error")
    assert message == (
        "Unexpected value(s) `made-up-2026-01-01`, `other` for the `anthropic-beta` header. "
        "Please consult our documentation at docs.anthropic.com or try again without the header."
    )
    known = post(body(), headers={"anthropic-beta": "context-management-2025-06-27,message-threads-2026-08-12"})
    assert known.status_code == 200


def test_the_sdk_gets_the_beta_400_for_a_made_up_beta():
    client = agentlab.connect("sim", quiet=True, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="Unexpected value"):
        client.beta.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=50,
            betas=["no-such-beta-2026-01-01"],
            messages=[{"role": "user", "content": "Hi"}],
        )


def test_mythos_preview_needs_2048_tokens_before_it_caches():
    assert min_cacheable_tokens("claude-mythos-preview") == (2048, "documented")
    system = [
        {
            "type": "text",
            "text": "The river runs past the old mill and the bakery. " * 120,
            "cache_control": {"type": "ephemeral"},
        }
    ]  # about 1,300 tokens: above 512, below 2,048
    preview = post(body("claude-mythos-preview", system=system)).json()["usage"]
    mythos = post(body("claude-mythos-5", system=system)).json()["usage"]
    assert 512 < mythos["cache_creation_input_tokens"] < 2048 and preview["cache_creation_input_tokens"] == 0


def _thread_turn(sim: Simulator, previous: str | None) -> object:
    thread = {"type": "create"} if previous is None else {"type": "continue", "previous_message_id": previous}
    return post(
        body(thread=thread, messages=[{"role": "user", "content": "Go on"}]),
        sim=sim,
        headers={"anthropic-beta": "message-threads-2026-08-12"},
    )


def test_a_thread_expires_after_five_minutes_without_a_request_on_the_simulators_clock():
    clock = SimClock()
    sim = Simulator(clock=clock)
    first = _thread_turn(sim, None).json()["id"]
    clock.advance(290)
    second = _thread_turn(sim, first)
    assert second.status_code == 200  # 290 s of quiet: still there, and this request renews it
    clock.advance(301)
    late = _thread_turn(sim, second.json()["id"])
    assert late.status_code == 404 and late.json()["error"]["details"] == {"error_code": "thread_not_found"}


@pytest.mark.parametrize(
    "model, forced",
    [("claude-fable-5", True), ("claude-mythos-5-1", False), ("claude-fable-5-1", False), ("claude-opus-5-5", False)],
)
def test_forced_tool_choice_follows_the_fable_5_1_migration_guide(model, forced):
    client = agentlab.connect("sim", model=model, quiet=True)
    tools = [{"name": "save_note", "description": "Save a note", "input_schema": {"type": "object", "properties": {}}}]
    ask = dict(
        model=model,
        max_tokens=100,
        messages=[{"role": "user", "content": "Save a note."}],
        tools=tools,
        tool_choice={"type": "any"},
    )
    if forced:
        assert client.messages.create(**ask).content[0].type == "tool_use"
    else:
        with pytest.raises(anthropic.BadRequestError, match="tool_choice"):
            client.messages.create(**ask)
