"""The bundled real runs: recorded Claude traffic replayed through run_agent, and what the notebooks say of them."""

from __future__ import annotations

import json
import re

import anthropic
import pytest
from claims import said

from agentlab.client import connect
from agentlab.experiments import real_runs
from agentlab.live.cassette import CassetteMismatch, canonical, forget
from agentlab.loop import run_agent


@pytest.fixture(scope="module")
def runs():
    return {name: real_runs.replay(name) for name in real_runs.RUNS}


def _recorded(name: str) -> list[tuple[dict, dict]]:
    import yaml

    calls = yaml.safe_load(real_runs.cassette(name).read_text("utf-8"))["interactions"]
    return [(json.loads(c["request"]["body"]), json.loads(c["response"]["body"]["string"])) for c in calls]


@pytest.mark.parametrize("name", real_runs.RUNS)
def test_each_real_run_replays_through_run_agent_with_the_recorded_usage(runs, name):
    run, recorded = runs[name], _recorded(name)
    assert run.stop_reason.value == "end_turn" and run.model_calls == len(recorded) == 2
    assert [t.prompt_tokens for t in run.turns] == [r["usage"]["input_tokens"] for _, r in recorded]
    assert [t.output_tokens for t in run.turns] == [r["usage"]["output_tokens"] for _, r in recorded]
    assert not run.estimated and all(t.cost_usd and t.cost_usd > 0 for t in run.turns)  # real usage, priced
    assert run.messages[-1]["content"][0]["text"] == recorded[-1][1]["content"][0]["text"]


def test_every_real_run_names_its_source_commit_and_licence_and_keeps_no_original_id():
    s = real_runs.sources()
    assert s["repository"] == "https://github.com/pydantic/pydantic-ai" and re.fullmatch(r"[0-9a-f]{40}", s["commit"])
    assert s["licence"] == "MIT" and "Permission is hereby granted" in s["licence_text"]
    assert set(s["runs"]) == set(real_runs.RUNS) and all(r["path"].endswith(".yaml") for r in s["runs"].values())
    for name in real_runs.RUNS:
        text = real_runs.cassette(name).read_text("utf-8")
        assert not re.search(r"\b(toolu|msg)_0[0-9A-Za-z]{8,}", text), f"{name}: an original id is left"
        assert not re.search(r"sk-ant-|x-api-key|authorization|cookie", text, re.I), name


def test_a_run_that_answers_a_tool_otherwise_than_recorded_is_refused_at_that_call():
    rec = real_runs.recording("paris")
    (weather,) = rec.tools
    other = weather.__class__(weather.name, weather.description, weather.input_schema, lambda city: "Rain, 9C")
    forget(real_runs.cassette("paris"))
    client = connect("replay", cassette=real_runs.cassette("paris"), quiet=True, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError) as e:
        run_agent(client, rec.task, [other], **rec.options)
    assert isinstance(e.value.__cause__, CassetteMismatch) and "interaction 2" in str(e.value.__cause__)
    assert "Rain, 9C" in str(e.value.__cause__)


def test_canonical_makes_only_the_apis_own_equivalent_spellings_one():
    short = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    blocks = {
        "model": "m",
        "stream": False,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert canonical(short) == canonical(blocks)
    result = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
    spelled = {**result, "is_error": False, "content": [{"type": "text", "text": "ok"}]}
    assert canonical({"messages": [{"role": "user", "content": [result]}]}) == canonical(
        {"messages": [{"role": "user", "content": [spelled]}]}
    )
    for changed in ({**result, "is_error": True}, {**result, "content": "ko"}):
        assert canonical({"messages": [{"role": "user", "content": [result]}]}) != canonical(
            {"messages": [{"role": "user", "content": [changed]}]}
        )
    assert canonical({**short, "stream": True}) != canonical(short)


# What the notebooks say of the real runs, read from the same replays.

EDITIONS = ("01_one_round_trip", "zh-CN/01_one_round_trip")


@pytest.mark.parametrize("edition", EDITIONS)
def test_01_the_real_second_call_resent_the_first_calls_input_and_output(runs, edition):
    first, second = runs["denver"].turns
    zh = edition.startswith("zh")
    where = said(
        edition,
        24,
        "713 个 token，正是第一次调用的 612 个输入加 101 个输出"
        if zh
        else "re-sent 713 tokens, the first call's 612 input plus 101 output",
    )
    assert (second.reprefill_tokens, first.prompt_tokens, first.output_tokens) == (713, 612, 101), where
    assert second.reprefill_tokens == first.prompt_tokens + first.output_tokens, where


@pytest.mark.parametrize("edition", EDITIONS)
def test_01_the_real_reply_asks_for_both_tools_at_once_after_a_sentence(runs, edition):
    zh = edition.startswith("zh")
    where = said(edition, 24, "真实的回复以一句话开头" if zh else "the real reply opens with a sentence")
    reply = runs["denver"].messages[1]["content"]
    assert [b["type"] for b in reply] == ["text", "tool_use", "tool_use"], where
    assert {b["name"] for b in reply[1:]} == {"get_weather", "get_elevation"}, where
    assert [t.stop_reason for t in runs["denver"].turns] == ["tool_use", "end_turn"], where


@pytest.mark.parametrize("edition", ("06_error_recovery", "zh-CN/06_error_recovery"))
def test_06_the_real_runs_hold_no_tool_error(edition):
    where = said(edition, 29, "没有任何工具错误" if edition.startswith("zh") else "hold no tool error")
    for name in real_runs.RUNS:
        for request, _ in _recorded(name):
            results = [b for m in request["messages"] for b in m["content"] if b.get("type") == "tool_result"]
            assert not any(b.get("is_error") for b in results), (where, name)


@pytest.mark.parametrize("edition", ("07_parallel_vs_serial", "zh-CN/07_parallel_vs_serial"))
def test_07_one_real_run_asks_for_two_independent_tools_in_one_reply(runs, edition):
    zh = edition.startswith("zh")
    where = said(
        edition, 40, "在一次回复里请求了两个相互独立的工具" if zh else "asks for two independent tools in one reply"
    )
    per_reply = {
        n: [len([b for b in m["content"] if b["type"] == "tool_use"]) for m in r.messages[1::2]]
        for n, r in runs.items()
    }
    assert per_reply["denver"][0] == 2 and all(max(v) <= 1 for n, v in per_reply.items() if n != "denver"), where
    assert all(not (t.reads or t.writes) for n in real_runs.RUNS for t in real_runs.recording(n).tools), where


@pytest.mark.parametrize("edition", ("08_react_vs_native", "zh-CN/08_react_vs_native"))
def test_08_every_real_tool_input_is_a_json_object_that_fits_its_schema(runs, edition):
    zh = edition.startswith("zh")
    where = said(
        edition, 35, "都是符合其模式的 JSON 对象" if zh else "every input in them is a JSON object that fits its schema"
    )
    for name, run in runs.items():
        tools = {t.name: t for t in real_runs.recording(name).tools}
        uses = [b for m in run.messages[1::2] for b in m["content"] if b["type"] == "tool_use"]
        assert uses and all(
            isinstance(b["input"], dict) and tools[b["name"]].first_error(b["input"]) is None for b in uses
        ), (where, name)
