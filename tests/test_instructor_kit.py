"""The instructor kit in docs/: both languages, every notebook covered, and the answer key's figures true.

The answer key answers every ungraded question the notebooks ask (as many numbered answers per
notebook as it has questions, in each language); a sample of its measured answers is rerun here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

import agentlab

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGS = ("en", "zh-CN")
PAGES = {"README.md", "syllabus.md", "time.md", "answer_key.md", "glossary.md", "simulator_results.md"}
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("build_kit", ROOT / "scripts" / "build_kit.py")
build_kit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_kit)


STUDENT_EDITION = (ROOT / "README.md").read_text("utf-8") == (
    ROOT / "agentlab" / "grading" / "STUDENT_README.md"
).read_text("utf-8")
"""A student edition (its README is the student README) ships the kit without its answer key."""
needs_answer_key = pytest.mark.skipif(
    STUDENT_EDITION, reason="student edition: the answer key stays with the instructor"
)


def _answer(lang: str, number: str) -> str:
    """The answer key's section for notebook ``number`` in ``lang``, its wrapped lines joined."""
    key = (DOCS / lang / "answer_key.md").read_text("utf-8")
    return key.split(f"## {number} ", 1)[1].split("\n## ", 1)[0].replace("\n   ", " ")


def test_both_languages_have_the_same_pages_and_every_required_one():
    en, zh = ({p.name for p in (DOCS / lang).glob("*.md")} for lang in LANGS)
    required = PAGES - {"answer_key.md"} if STUDENT_EDITION else PAGES
    assert en == zh and required <= en, (en, zh)


def test_the_student_edition_leaves_the_answer_key_out(tmp_path):
    from agentlab.grading.release import release_student

    src = tmp_path / "course"
    for rel in ("docs/en/answer_key.md", "docs/zh-CN/answer_key.md", "docs/en/syllabus.md", "README.md"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("x\n", "utf-8")
    release_student(src, tmp_path / "student")
    released = {
        p.relative_to(tmp_path / "student").as_posix() for p in (tmp_path / "student").rglob("*") if p.is_file()
    }
    assert released == {"docs/en/syllabus.md", "README.md", "README.zh-CN.md"}  # the student READMEs, both editions


@needs_answer_key
@pytest.mark.parametrize("lang", LANGS)
def test_the_answer_key_answers_every_ungraded_question_of_every_notebook(lang):
    key = (DOCS / lang / "answer_key.md").read_text("utf-8")
    sections = dict(re.findall(r"^## (\d\d[a-z]?) [^\n]*\n(.*?)(?=^## |\Z)", key, re.S | re.M))
    for path in NOTEBOOKS:
        asked = build_kit.ungraded_questions(json.loads(path.read_text("utf-8"))["cells"])
        number = path.name.split("_")[0]  # "08", or "08b" for a notebook's second part
        answered = len(re.findall(r"^\d+\. ", sections.get(number, ""), re.M))
        assert answered == asked, f"{lang} answer key, notebook {number}: {answered} answers, {asked} questions"


@pytest.mark.parametrize("lang", LANGS)
def test_the_syllabus_spans_six_weeks_and_gives_objectives_for_every_notebook(lang):
    text = (DOCS / lang / "syllabus.md").read_text("utf-8")
    assert len(re.findall(r"^\| [1-6] \|", text, re.M)) == 6
    for path in NOTEBOOKS:
        number = path.name.split("_")[0]
        assert re.search(rf"^- \*\*{number} ", text, re.M), f"{lang} syllabus: no objectives for {number}"
    seconds = sorted(p.name.split("_")[0] for p in NOTEBOOKS if p.name.split("_")[0][-1].isalpha())
    listed = re.findall(r"\b(\d\d[a-z])\b", text.split("\n\n", 2)[1])  # the format paragraph names the second parts
    assert sorted(set(listed)) == seconds, f"{lang} syllabus lists second parts {sorted(set(listed))}, not {seconds}"


def test_answer_02_a_run_capped_at_three_turns_saved_the_note_it_never_reported(tmp_path):
    one_per_turn = {"type": "auto", "disable_parallel_tool_use": True}  # as notebook 02's runs (ONE_PER_TURN)
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        agentlab.city_task(["Paris", "London"]),
        agentlab.task_tools(tmp_path),
        max_turns=3,
        tool_choice=one_per_turn,
    )
    assert run.stop_reason.value == "max_turns" and run.model_calls == 3 and (tmp_path / "notes.md").exists()


def test_answer_04_a_plan_longer_than_max_subtasks_is_refused_before_any_worker():
    from agentlab.experiments.patterns import data_line
    from agentlab.workflows import run_orchestrator

    run = run_orchestrator(
        agentlab.connect("sim", quiet=True),
        "Which is warmer today, Paris, Madrid or Oslo?",
        worker_system="Write one sentence on the city's weather.",
        synth_system="Combine the parts into one short note.",
        context=lambda s: data_line([s["title"]]),
        max_subtasks=2,
    )
    assert run.stop_reason.value == "unparseable_output" and "max_subtasks=2" in run.detail


def test_answer_05_a_4_second_model_under_a_10_second_limit_makes_3_calls_and_is_seen_at_12(tmp_path):
    from agentlab.experiments.who_decides import TASK
    from agentlab.guards import Limits
    from agentlab.sim.models.misbehaving import FakeClock, Looper, SlowModel

    clock = FakeClock()
    client = agentlab.connect("sim", policy=SlowModel(clock, latency_s=4.0, policy=Looper()), quiet=True)
    run = agentlab.run_agent(
        client,
        TASK,
        agentlab.task_tools(tmp_path),
        trace=tmp_path / "slow.jsonl",
        limits=Limits(max_turns=50, max_wall_s=10.0, clock=clock),
    )
    stop = agentlab.read_trace(tmp_path / "slow.jsonl")[-1]
    assert (run.stop_reason.value, run.model_calls, stop["observed"]) == ("max_wall_time", 3, 12.0)


def test_answer_07_two_readers_share_a_wave_and_the_writer_waits():
    from agentlab.executor import waves
    from agentlab.experiments import coupling

    writer, reader = coupling.note_tools([], declared=True)
    assert waves([reader, reader, writer]) == [[0, 1], [2]]


def test_answer_08_without_malformed_actions_react_sends_fewer_input_tokens_in_one_turn_more():
    from agentlab.experiments.react_vs_native import compare_styles, means

    m = means(compare_styles(seeds=range(2), malformed=0.0))
    assert m["react"]["input_tokens"] < m["native"]["input_tokens"]
    assert (m["react"]["turns"], m["native"]["turns"]) == (4, 3)


@pytest.mark.parametrize("lang", LANGS)
def test_the_syllabus_states_the_points_the_graders_give(lang):
    text = (DOCS / lang / "syllabus.md").read_text("utf-8")
    total = sum(build_kit.graded_points().values())
    assert re.search(rf"`make grade`[，,] ?(共 )?{total} (points|分)", text), (
        f"{lang} syllabus: the graders give {total} points"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_the_syllabus_states_the_hours_that_time_md_adds_up_to(lang):
    minutes = int(re.search(r"Total: (\d+) minutes", (DOCS / "en" / "time.md").read_text("utf-8")).group(1))
    text = (DOCS / lang / "syllabus.md").read_text("utf-8")
    stated = re.search(r"about (\d+) hours in all|合计约 (\d+) 小时", text)
    assert stated, f"{lang} syllabus: say how many hours time.md adds up to"
    hours = int(stated.group(1) or stated.group(2))
    assert abs(hours - minutes / 60) <= 1, (
        f"{lang} syllabus says about {hours} hours; time.md adds up to {minutes / 60:.1f}"
    )


def test_answer_06_the_raw_executor_changes_nothing_for_the_careful_model_but_one_untranslated_result(
    tmp_path, monkeypatch
):
    from agentlab.executor import Executor

    for lang, said in (
        ("en", "3 calls, `end_turn`, {raw:,} input tokens, as with the"),
        ("zh-CN", "3 次调用，`end_turn`，{raw:,} 个输入 token（默认执行器是 {plain:,} 个）"),
    ):
        monkeypatch.setenv("AGENTLAB_LANG", lang)  # the zh-CN kernel asks in Chinese
        client, task = agentlab.connect("sim", quiet=True), agentlab.city_task(["Paris", "London"])
        raw = agentlab.run_agent(
            client, task, agentlab.task_tools(tmp_path / lang), executor=Executor(errors="raw", max_result_chars=600)
        )
        plain = agentlab.run_agent(client, task, agentlab.task_tools(tmp_path / f"{lang}-plain"))
        assert (raw.model_calls, raw.stop_reason.value, raw.final_text) == (3, "end_turn", plain.final_text)
        assert (raw.input_tokens == plain.input_tokens) == (lang == "en"), (raw.input_tokens, plain.input_tokens)
        section = _answer(lang, "06")
        assert said.format(raw=raw.input_tokens, plain=plain.input_tokens) in section, lang
        assert (
            lang == "en" or f"少 {plain.input_tokens - raw.input_tokens} 个 token" in section
        )  # Saved note, untranslated


def test_answer_09_forecasts_cost_just_under_twice_and_one_reply_keeps_the_sweep_at_3_calls(tmp_path, monkeypatch):
    from agentlab.experiments.sweeps import sweep

    for lang in LANGS:  # each edition's kernel asks in its own language, so each answer gives its own run's figures
        monkeypatch.setenv("AGENTLAB_LANG", lang)
        client = agentlab.connect("sim", quiet=True)
        task = agentlab.city_task(["Paris", "London"])
        run = agentlab.run_agent(client, task, agentlab.task_tools(tmp_path / lang / "plain"))
        forecast = agentlab.run_agent(client, task, agentlab.task_tools(tmp_path / lang / "forecast", forecast_days=7))
        assert (run.model_calls, forecast.model_calls, run.output_tokens) == (3, 3, forecast.output_tokens)
        section = _answer(lang, "09")
        for figure in (
            f"{forecast.cost_usd:.5f}",
            f"{run.cost_usd:.5f}",
            f"{forecast.cost_usd / run.cost_usd:.2f}",
            f"{run.output_tokens}",
            f"{forecast.input_tokens:,}",
            f"{run.input_tokens:,}",
        ):
            assert figure in section, (lang, figure)
        assert 1.8 < forecast.cost_usd / run.cost_usd < 2, "just under twice"
    monkeypatch.delenv("AGENTLAB_LANG")
    for one_per_turn, calls, tokens in ((False, {3}, (1609, 3858)), (True, None, (1609, 16497))):
        df = sweep(one_per_turn=one_per_turn, progress=False)
        agent = df[(df.kind == "agent") & (df.model == "claude-opus-5") & ~df.cache & ~df["long output"]]
        assert (agent["input tokens (all)"].iloc[0], agent["input tokens (all)"].iloc[-1]) == tokens
        if calls:
            assert set(agent["turns"]) == calls and list(agent["cities"]) == list(range(1, 13))
            steps = agent["input tokens (all)"].diff().dropna()
            assert steps.between(195, 210).all(), list(steps)  # "about 200 tokens a city, in a straight line"
        else:
            assert agent["turns"].iloc[-1] == 14


def test_answer_13_a_1_hour_cache_costs_more_than_the_5_minute_one_on_a_short_run(tmp_path, monkeypatch):
    from agentlab.experiments.turn_costs import caching_pair

    for lang in LANGS:  # the zh-CN kernel asks in Chinese: its own costs
        monkeypatch.setenv("AGENTLAB_LANG", lang)
        hour = caching_pair(12, "claude-opus-5", tmp_path / lang, cache="1h")
        five = caching_pair(12, "claude-opus-5", tmp_path / lang)
        costs = [round(r.cost_usd, 4) for r in (hour["cached"], five["cached"], five["uncached"])]
        assert costs[1] < costs[0] < costs[2] and all(f"{c:.4f}" in _answer(lang, "13") for c in costs), (lang, costs)


def test_answer_08b_gives_the_token_counts_a_run_of_20_and_of_40_documents_shows():
    from agentlab.experiments.position import position_tokens

    client = agentlab.connect("sim", quiet=True)
    twenty, forty = (position_tokens(client, k=k)["input tokens"] for k in (20, 40))
    assert twenty.nunique() == forty.nunique() == 1, "every position costs the same"
    for lang in LANGS:
        section = _answer(lang, "08b")
        for n in (twenty.iloc[0], forty.iloc[0]):
            assert f"{n:,}" in section, f"{lang} answer key 08b should state {n:,} input tokens"


def test_answer_12b_gives_the_multiples_of_chat_each_edition_runs():
    from agentlab.experiments.multiplying import multiplying_table, ratios

    for lang, task_lang in (("en", "en"), ("zh-CN", "zh")):
        table = multiplying_table((1, 2, 4, 8), lang=task_lang)
        section = _answer(lang, "12b")
        for n in (2, 8):
            for kind in ("agent", "multi-agent"):
                assert f"{ratios(table, n)[kind]}" in section, f"{lang} answer key 12b: {kind} at {n} cities"
        assert ratios(table, 2)["agent"] > ratios(table, 8)["agent"], "the answer says larger at 2 cities"


def test_answer_10_gives_the_compaction_and_window_figures_each_edition_runs(tmp_path):
    from agentlab.context.compare import run_tactic

    for lang, task_lang in (("en", "en"), ("zh-CN", "zh")):
        section = _answer(lang, "10")
        peak = max(run_tactic("compaction", threshold=4_000, lang=task_lang, workdir=tmp_path / lang).per_call)
        over = run_tactic("plain", n_cities=19, lang=task_lang, workdir=tmp_path / f"{lang}-19").per_call
        under = run_tactic("plain", n_cities=18, lang=task_lang, workdir=tmp_path / f"{lang}-18").per_call
        assert f"{peak:,}" in section, f"{lang} answer key 10: peak {peak:,}"
        assert max(over) > 12_000 >= max(under) and f"{round(max(over), -2):,}" in section, (lang, max(over))


@pytest.mark.parametrize("lang", LANGS)
def test_the_change_predict_run_answers_give_the_figures_each_editions_runs_show(lang, tmp_path, monkeypatch):
    """02b, 03, 08 and 12: every figure an answer states, from the run the exercise asks for, in that edition's
    language (a zh-CN kernel asks in Chinese)."""
    import pandas as pd

    from agentlab.experiments import capstone
    from agentlab.experiments.react_vs_native import compare_styles
    from agentlab.experiments.replacement import side_by_side
    from agentlab.experiments.scaling import scaling_table
    from agentlab.experiments.tool_descriptions import compare_descriptions, summary

    monkeypatch.setenv("AGENTLAB_LANG", lang)
    client = agentlab.connect("sim", quiet=True)
    task = agentlab.city_task(["Paris", "London"])
    run = agentlab.run_agent(  # 05.3
        client, task, agentlab.task_tools(tmp_path / "05"), max_tokens=60, trace=tmp_path / "05.jsonl"
    )
    first = next(e for e in agentlab.read_trace(tmp_path / "05.jsonl") if e.get("event") == "response")["usage"]
    assert (run.stop_reason.value, run.model_calls) == ("end_turn", 3) and any((tmp_path / "05").iterdir())
    assert first["output_tokens"] == max(t.output_tokens for t in run.turns), "the first reply is the largest"
    for figure in (first["output_tokens"], first["output_tokens_details"]["thinking_tokens"]):
        assert f"{figure} " in _answer(lang, "05"), figure
    scaling = scaling_table(client, agentlab.city_names()[:12], tmp_path / "ps")
    steps = scaling["extra input tokens vs previous row"].dropna()
    assert set(scaling["model calls"]) == {3} and f"{scaling.loc[6, 'input tokens']:,}" in _answer(lang, "02b")
    about = round(steps.mean(), -1) if lang != "en" else 5 * round(steps.mean() / 5)
    assert steps.max() - steps.min() < 20 and str(int(about)) in _answer(lang, "02b"), list(steps)
    two, three = (
        side_by_side(client, c, tmp_path / str(len(c))) for c in (["Paris", "London"], ["Madrid", "Oslo", "Cairo"])
    )
    grew = {row: three.loc[row, "agent"] - two.loc[row, "agent"] for row in two.index if row.startswith("input:")}
    assert max(grew, key=grew.get) == "input: earlier turns" and three.loc["input: tool definitions", "agent"] == 1410
    for figure in (two.loc["input: earlier turns", "agent"], three.loc["input: earlier turns", "agent"]):
        assert str(figure) in _answer(lang, "03"), figure
    assert f"{two.loc['input tokens', 'workflow']} 到 {three.loc['input tokens', 'workflow']}" in _answer(
        lang, "03"
    ) or (
        lang == "en"
        and f"{two.loc['input tokens', 'workflow']} to {three.loc['input tokens', 'workflow']}" in _answer(lang, "03")
    )
    styles = pd.DataFrame(compare_styles(seeds=range(5), malformed=0.0)).groupby("style")["input_tokens"].mean()
    pair = f"{styles['react']:,.0f} {'against' if lang == 'en' else '对'} {styles['native']:,.0f}"
    assert pair in _answer(lang, "08"), pair
    assert (styles["react"] < styles["native"]) == (lang == "en")  # "slightly fewer" in en; "更多" in zh-CN
    broken = pd.DataFrame(compare_styles(seeds=range(5), malformed=0.6)).groupby("style").mean(numeric_only=True)
    assert f"{broken.loc['react', 'input_tokens']:,.0f}" in _answer(lang, "08") and broken.loc["react", "turns"] == 6.2
    described = summary(compare_descriptions(guess_wrong=0.0))
    vague, precise = described["vague"]["input_tokens"], described["precise"]["input_tokens"]
    assert f"{vague:,.0f} {'against' if lang == 'en' else '对'} {precise:,.0f}" in _answer(lang, "08")
    from agentlab.injection import GUARD, Defence, matrix

    guarded = matrix([Defence("strict guard", guard=True, min_chars=6), GUARD])  # 11.1
    strict, usual = guarded.loc["strict guard"], guarded.loc["data-flow guard"]
    assert strict["attack success %"] == usual["attack success %"] == 40.0, "it cannot stop control-flow goals"
    blocked, utility = (int(strict["benign calls blocked"]), int(usual["benign calls blocked"])), (usual, strict)
    if lang == "en":
        assert f"({blocked[0]} instead of {blocked[1]})" in _answer(lang, "11")
        assert f"from {usual['benign utility %']:.0f}% to {strict['benign utility %']:.0f}%" in _answer(lang, "11")
    else:
        assert blocked[0] == blocked[1] and strict["benign utility %"] == usual["benign utility %"], (blocked, utility)
        assert f"仍然只拒绝 {blocked[0]} 次正常调用，正常效用仍是 {strict['benign utility %']:.0f}%" in _answer(
            lang, "11"
        )
    capstone.record_looper(tmp_path / "looper5.jsonl", max_repeats=5)
    calls = [e for e in agentlab.read_trace(tmp_path / "looper5.jsonl") if e.get("event") == "response"]
    assert len(calls) == 5 and str(calls[-1]["usage"]["input_tokens"]) in _answer(lang, "12")
