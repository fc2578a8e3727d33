"""Notebook 05's stop-reason section, checked by running the same code its cells run."""

from __future__ import annotations

import json

import pytest
from claims import NOTEBOOKS, said

import agentlab
from agentlab.experiments.stop_reasons import TASK, stop_reason_runs
from agentlab.sim.models.stops import Pauser
from agentlab.trace import read_trace


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    return {r["case"]: r for r in stop_reason_runs(tmp_path_factory.mktemp("stops"))}


@pytest.mark.parametrize(
    "edition, lang, calls, whole, cut",
    [
        (
            "05_who_decides_done",
            "en",
            "Its two calls take {}\ntokens",
            "the reply needs {}",
            "after 1 call with no tool run",
        ),
        (
            "zh-CN/05_who_decides_done",
            "zh-CN",  # a zh-CN kernel asks in Chinese: its own counts
            "它的两个调用占 {} 个 token",
            "这次回复需要 {} 个 token",
            "在 1 次调用后以 `max_tokens` 结束",
        ),
    ],
)
def test_max_tokens_40_cuts_the_first_reply_once_its_omitted_thinking_is_counted(
    rows, tmp_path, monkeypatch, edition, lang, calls, whole, cut
):
    """The first reply's calls fit in 40 tokens; with the thinking the default model does not show, it does not."""
    from agentlab.experiments.stop_reasons import CUT_AT

    r = rows["max_tokens cuts a tool_use"]
    assert CUT_AT == 40 and r["replies"] == ["max_tokens"]
    assert (r["stop"], r["model calls"], r["tools run"], r["note saved"], r["final text"]) == (
        "max_tokens",
        1,
        [],
        False,
        "",
    )
    monkeypatch.setenv("AGENTLAB_LANG", lang)
    task = agentlab.city_task(["Paris", "London"])
    cut_run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True), task, agentlab.task_tools(tmp_path / "cut"), max_tokens=CUT_AT
    )
    assert (cut_run.stop_reason.value, cut_run.model_calls, cut_run.tool_results) == ("max_tokens", 1, [])
    agentlab.run_agent(
        agentlab.connect("sim", quiet=True), task, agentlab.task_tools(tmp_path), trace=tmp_path / "t.jsonl"
    )
    first = next(e for e in read_trace(tmp_path / "t.jsonl") if e.get("event") == "response")
    thinking = first["usage"]["output_tokens_details"]["thinking_tokens"]
    assert [b["type"] for b in first["content"]] == ["thinking", "tool_use", "tool_use"]
    assert first["content"][0]["thinking"] == ""  # omitted on the wire, billed all the same
    shown, total = first["usage"]["output_tokens"] - thinking, first["usage"]["output_tokens"]
    assert shown <= CUT_AT < total
    assert said(edition, 31, calls.format(shown)) and said(edition, 31, whole.format(total))
    assert said(edition, 31, cut) and said(edition, 29, "max_tokens=40")


def test_a_stop_sequence_cuts_the_afterthought_and_keeps_the_answer(rows):
    r, plain = rows["stop_sequence"], rows["end_turn (ordinary)"]
    assert r["stop"] == "stop_sequence" and r["final text"] == plain["final text"] and "P.S." not in r["final text"]


def test_a_refusal_ends_typed_with_no_earlier_text(rows, tmp_path):
    r = rows["refusal"]
    assert (r["stop"], r["model calls"], r["note saved"], r["final text"]) == ("refusal", 2, False, "")
    from agentlab.sim.models.stops import Refuser

    run = agentlab.run_agent(
        agentlab.connect("sim", policy=Refuser(after=1), quiet=True),
        TASK,
        agentlab.task_tools(tmp_path),
        trace=tmp_path / "r.jsonl",
    )
    assert [e["stop_reason"] for e in read_trace(tmp_path / "r.jsonl") if e.get("event") == "response"] == [
        "tool_use",
        "refusal",
    ]
    assert run.final_text == ""


def test_two_pauses_are_sent_back_and_the_run_finishes_in_5_calls(rows):
    r = rows["pause_turn (server tool)"]
    assert (
        r["replies"][:2] == ["pause_turn", "pause_turn"] and r["replies"][2:] == rows["end_turn (ordinary)"]["replies"]
    )
    assert (r["stop"], r["model calls"], r["note saved"]) == ("end_turn", 5, True)
    assert [c for c, x in rows.items() if not x["note saved"]] == [
        "max tokens cuts a tool_use".replace("max tokens", "max_tokens"),
        "refusal",
    ]


def test_paused_calls_count_as_turns_under_max_turns(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", policy=Pauser(pauses=2), quiet=True), TASK, agentlab.task_tools(tmp_path), max_turns=2
    )
    assert (run.stop_reason.value, run.model_calls) == ("max_turns", 2)


@pytest.mark.parametrize("edition", ["05_who_decides_done", "zh-CN/05_who_decides_done"])
def test_max_tokens_60_lets_the_run_finish_with_the_note(tmp_path, monkeypatch, edition):
    assert said(edition, 39, "max_tokens=60")
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN" if edition.startswith("zh-CN") else "en")  # the kernel's language
    task = agentlab.city_task(["Paris", "London"])
    run = agentlab.run_agent(agentlab.connect("sim", quiet=True), task, agentlab.task_tools(tmp_path), max_tokens=60)
    assert run.stop_reason.value == "end_turn" and run.model_calls == 3 and any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "edition, sentence",
    [
        ("05_who_decides_done", "At `max_turns=3` it stops with `max_turns` after saving the note, with no answer"),
        ("zh-CN/05_who_decides_done", "`max_turns=3` 时，它在保存笔记之后以 `max_turns` 停下，没有答案"),
    ],
)
def test_the_turn_limit_control_stops_the_one_tool_per_reply_agent_below_four_turns(edition, sentence, tmp_path):
    """The control's starting values are read from the notebook's own cell, then run as the widget runs them."""
    import ast

    from agentlab.experiments.city import city_runs, model_choices

    where = said(edition, 27, sentence)
    cell = "".join(json.loads((NOTEBOOKS / f"{edition}.ipynb").read_text("utf-8"))["cells"][26]["source"])
    call = next(
        n
        for n in ast.walk(ast.parse(cell))
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "city_experiment"
    )
    start = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert start == {"max_turns": (1, 10, 3), "one_per_turn": True}, where

    def agent(max_turns, one_per_turn, folder):
        (run, outcome), _workflow = city_runs(
            model_choices()[0], 2, notes_dir=tmp_path / folder, max_turns=max_turns, one_per_turn=one_per_turn
        )
        return run.stop_reason.value, run.model_calls, outcome.split("\n")[1]

    assert agent(start["max_turns"][2], True, "a") == ("max_turns", 3, "note saved, no answer"), where
    assert agent(2, True, "b")[2] == "note not saved, no answer", where  # "below that it has not saved the note either"
    assert agent(4, True, "c") == ("end_turn", 4, "note saved, answered"), where  # "from four on it finishes"
    assert agent(3, False, "d") == ("end_turn", 3, "note saved, answered"), where  # "three turns are enough"


@pytest.mark.parametrize("edition", ["05_who_decides_done", "zh-CN/05_who_decides_done"])
def test_the_stop_reason_list_names_every_reason_the_loop_ends_on(edition):
    """Every stop_reason the installed SDK can return, except tool_use, is in the list with what to do after it."""
    import typing

    from anthropic.types import StopReason

    from agentlab.loop import MODEL_STOPS

    where = said(edition, 28, "`model_context_window_exceeded`")
    sdk = set(typing.get_args(StopReason)) - {"tool_use"}
    assert set(MODEL_STOPS) == sdk, f"the loop handles {sorted(MODEL_STOPS)}, the SDK returns {sorted(sdk)}"
    text = "".join(json.loads((NOTEBOOKS / f"{edition}.ipynb").read_text("utf-8"))["cells"][28]["source"])
    missing = [r for r in sdk if f"`{r}`" not in text]
    assert not missing, f"{where}: the list leaves out {missing}"


@pytest.mark.parametrize(
    "edition, sentence",
    [
        (
            "05_who_decides_done",
            "SDK's runner let the `Looper` make all 8 calls and stopped at `max_iterations`; `run_agent` stopped it after 3\nidentical requests with `repeated_call`",
        ),
        (
            "zh-CN/05_who_decides_done",
            "SDK 的运行器让 `Looper` 用完了全部 8 次调用，\n在 `max_iterations` 处停下；`run_agent` 在 3 次相同的请求之后以 `repeated_call` 停下了它",
        ),
    ],
)
def test_the_sdks_runner_is_the_same_loop_with_the_turn_limit_as_its_only_guard(edition, sentence):
    from agentlab.experiments.sdk_runner import guards_table, runner_parameters, runner_vs_loop
    from agentlab.sim.models.misbehaving import Looper

    cells = json.loads((NOTEBOOKS / f"{edition}.ipynb").read_text("utf-8"))["cells"]
    at = next(
        i for i, c in enumerate(cells) if "runner_vs_loop(Looper(), max_turns=8, max_repeats=3)" in "".join(c["source"])
    )
    where = said(edition, at + 1, sentence)
    table = runner_vs_loop(Looper(), max_turns=8, max_repeats=3)
    assert (
        table.loc["SDK tool_runner", "model calls"] == 8
        and table.loc["SDK tool_runner", "why it ended"] == "max_iterations=8"
    ), where
    assert (table.loc["agentlab run_agent", "model calls"], table.loc["agentlab run_agent", "why it ended"]) == (
        3,
        "repeated_call",
    ), where
    guards = guards_table()
    assert list(guards.index[guards["SDK tool_runner"] != "none"]) == ["turn limit"], where
    assert (
        "max_iterations" in runner_parameters() and not {"max_wall_s", "max_repeats", "max_usd"} & runner_parameters()
    )


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_every_guard_demo_runs_under_a_turn_limit_of_50_but_the_turn_limit_row_at_6(edition):
    from agentlab.experiments.who_decides import GENEROUS, demos

    assert GENEROUS == 50
    turn_limits = {name: limits.get("max_turns", GENEROUS) for name, _, limits in demos()}
    assert {n: t for n, t in turn_limits.items() if t != 50} == {"looper, turn limit only": 6}
    folder = NOTEBOOKS / ("zh-CN" if edition == "zh" else "")
    cells = json.loads((folder / "05_who_decides_done.ipynb").read_text("utf-8"))["cells"]
    prose = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "turn limit of 50" in prose if edition == "en" else "以 50 轮的轮数上限" in prose
    assert '"looper, turn limit only"' in prose or "“looper, turn limit only”" in prose
    assert "set to 6" in prose if edition == "en" else "设为 6" in prose


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_only_the_refusal_carries_stop_details_and_it_names_no_category(rows, edition):
    """Cell after the stop-reason table: "Its `stop details` name no policy `category`" [scripted model]."""
    details = {case: r["stop details"] for case, r in rows.items()}
    assert details.pop("refusal") == {"type": "refusal", "category": None, "explanation": None}
    assert set(details.values()) == {None}
    folder = NOTEBOOKS / ("zh-CN" if edition == "zh" else "")
    cells = json.loads((folder / "05_who_decides_done.ipynb").read_text("utf-8"))["cells"]
    prose = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "`stop details`" in prose and "`cyber`" in prose
