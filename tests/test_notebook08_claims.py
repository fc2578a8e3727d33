"""Every claim of notebook 08's sections on ReAct's origin and on tool descriptions, checked on the notebook's code.

The prose states who wins and by about how much, not exact token counts (those move with the
estimator); each test names the sentence it checks. The scripted model's part carries the marker,
tested in tests/test_notebook_claims_corrected.py.
"""

from __future__ import annotations

import pytest
from test_notebook_claims_corrected import EN, MARKER, ZH, _cells, _src, markdown, run_until

import agentlab
from agentlab.experiments.tool_descriptions import DESCRIPTIONS, compare_descriptions, summary
from agentlab.sim.models.described import EXAMPLE, NEEDS

NB = "08_react_vs_native.ipynb"
NB_POSITION = "08b_position_and_length.ipynb"  # the second part of 08: position and length


@pytest.fixture(scope="module")
def ns():
    return run_until(NB, "fig = plot_descriptions(desc_rows)")


@pytest.fixture(scope="module")
def means(ns):
    return summary(ns["desc_rows"])


def test_the_origin_cites_the_paper_in_both_editions_and_leaves_stop_rules_to_the_harness():
    for lang in ("en", "zh"):
        text = markdown(NB, lang)
        assert "arXiv:2210.03629" in text and "ICLR 2023" in text and "Yao" in text
    # "the turn limit ... and when to stop are rules of the harness": run_react stops on its own Limits
    client = agentlab.connect("sim", quiet=True)
    from agentlab.guards import Limits
    from agentlab.react import run_react

    run = run_react(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(_tmp()), limits=Limits(max_turns=1)
    )
    assert run.run.stop_reason.value == "max_turns" and run.run.model_calls == 1


def _tmp():
    import tempfile

    return tempfile.mkdtemp(prefix="agentlab-08-claims-")


def test_only_precise_states_the_unit_and_an_example_and_costs_about_three_times_vague(ns):
    unit = [v for v, texts in DESCRIPTIONS.items() if "°C" in " ".join(texts) or "Celsius" in " ".join(texts)]
    example = [v for v, texts in DESCRIPTIONS.items() if EXAMPLE.search(" ".join(texts))]
    assert unit == example == ["precise"]
    cost = {v: ns["definition_tokens"](ns["lookup_tool"](*t)) for v, t in DESCRIPTIONS.items()}
    assert 2.5 <= cost["precise"] / cost["vague"] <= 3.5, cost


def test_bare_is_never_used_and_ends_in_one_turn(ns, means):
    assert not NEEDS.search(" ".join(DESCRIPTIONS["bare"]) + " lookup")
    assert means["bare"]["used_pct"] == means["bare"]["answered_pct"] == 0 and means["bare"]["turns"] == 1


def test_vague_always_answers_and_loses_one_turn_in_every_run_with_a_refused_input(ns, means):
    v = means["vague"]
    assert v["answered_pct"] == 100 and 0.5 <= v["refused_inputs"] <= 1.5
    runs = [r for r in ns["desc_rows"] if r["variant"] == "vague"]
    assert all(r["turns"] == 3 + (r["refused_inputs"] > 0) for r in runs)
    assert any(r["refused_inputs"] == 2 for r in runs)  # "two refused in that reply cost the same one turn"


def test_precise_answers_in_three_turns_with_no_refusal_and_fewest_tokens_though_its_definition_costs_most(means):
    p = means["precise"]
    assert p["answered_pct"] == 100 and p["refused_inputs"] == 0 and p["turns"] == 3
    answered = [v for v in means if means[v]["answered_pct"] > 0]
    assert min(answered, key=lambda v: means[v]["input_tokens"]) == "precise"
    assert max(means, key=lambda v: means[v]["definition_tokens"]) == "precise"


def test_against_a_model_that_never_guesses_wrong_only_the_cost_remains():
    m = summary(compare_descriptions(seeds=range(3), guess_wrong=0.0, variants=("vague", "precise")))
    assert m["vague"]["refused_inputs"] == m["precise"]["refused_inputs"] == 0
    assert m["vague"]["turns"] == m["precise"]["turns"] == 3
    assert m["vague"]["input_tokens"] < m["precise"]["input_tokens"]  # the answer key's figure, in order


def test_each_description_result_is_marked_as_the_scripted_models_in_both_editions():
    for lang, folder in (("en", EN), ("zh", ZH)):
        results = [_src(c) for c in _cells(folder / NB) if c.get("id") in ("08-desc-runs-read", "08-desc-fig-read")]
        assert len(results) == 2 and all(MARKER[lang] in c for c in results), (lang, results)


def test_the_zh_cn_edition_prompts_in_chinese_with_english_labels_and_its_run_still_fails_three_times(monkeypatch):
    monkeypatch.setenv(
        "AGENTLAB_LANG", "zh-CN"
    )  # what the zh-CN kernel's folder picks; the code cells are the English ones
    ns = run_until(NB, "rows = compare_styles(")
    from agentlab.react import react_prompt

    prompt = react_prompt(agentlab.task_tools(ns["workdir"]))  # cell "print(react_prompt(...))"
    assert prompt.startswith("你要一步一步地完成任务。") and "Action Input:" in prompt
    assert "`Action Input:`" in markdown(NB, "zh") and "harness" in markdown(NB, "zh")
    result = ns["result"]  # "三个动作，三次格式错误的尝试"
    assert result.parse_failures == 3 and result.run.model_calls == 7
    assert result.run.messages[0]["content"] == "比较巴黎和伦敦的温度，哪个更暖和？然后保存一条笔记。"
    assert all(r["answer"].startswith("巴黎更暖和") for r in ns["rows"])


# The position-and-length section (moved here from notebook 10; its numbers are checked in
# tests/experiments/test_position.py).


def _position(lang: str) -> str:
    return "\n".join(
        _src(c)
        for c in _cells((EN if lang == "en" else ZH) / NB_POSITION)
        if c["cell_type"] == "markdown" and c["metadata"].get("agentlab_section") == "position"
    )


def test_the_lost_in_the_middle_values_are_said_to_be_transcriptions_not_checked_against_the_pdf():
    from agentlab.experiments.published import published

    assert "Not re-checked against the PDF" in published("lost_in_the_middle")["how_read"]
    assert "stored transcriptions of the paper, not checked against its PDF" in _position("en")
    assert "未对照其 PDF 核对" in _position("zh")


def test_the_takeaway_says_position_costs_nothing_and_length_costs_as_the_token_counts_show():
    from agentlab.experiments.position import position_tokens

    client = agentlab.connect("sim", quiet=True)
    short, long = position_tokens(client, k=10), position_tokens(client, k=20)
    assert short["input tokens"].nunique() == 1 and long["input tokens"].nunique() == 1, "every position costs the same"
    assert long["input tokens"].iloc[0] > short["input tokens"].iloc[0], "more documents, more tokens"
    assert "changes nothing the harness pays; length is what costs" in markdown(NB_POSITION, "en")
    assert "不改变 harness 付出的任何费用；花钱的是长度" in markdown(NB_POSITION, "zh")
    assert "the tool descriptions showed that the words a model reads change what it does" in _position("en")
    assert "工具描述的实验表明" in _position("zh")


@pytest.mark.parametrize("edition", ["08_react_vs_native", "zh-CN/08_react_vs_native"])
def test_run_react_cuts_a_reply_before_an_observation_the_model_invents(edition, tmp_path):
    from claims import said

    from agentlab.react import run_react

    zh = edition.startswith("zh")
    where = said(edition, 8, "API 会在那里截断每一次回复" if zh else "the API cuts every reply there")
    sent: list = []

    def inventing(messages, request):
        sent.append(request.get("stop_sequences"))
        if any("Observation:" in str(m["content"]) for m in messages if m["role"] == "user"):
            return "Thought: I have it.\nFinal Answer: done from the real result"
        return (
            'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
            "Observation: Paris is 35 C.\nFinal Answer: Paris is 35 C."
        )

    client = agentlab.connect("sim", policy=agentlab.FunctionModel(inventing), quiet=True)
    run = run_react(client, "How warm is Paris today?", agentlab.task_tools(tmp_path)).run
    assert sent and all(s == ["\nObservation:"] for s in sent), where
    assert run.final_text == "done from the real result" and "35" not in str(run.messages[1]), where


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_only_the_seed_without_a_parse_failure_comes_close_to_the_native_runs_input(lang, monkeypatch):
    """Cell "Same task, both ways" and the sentence after the means: "Only the seed without a parse failure comes
    close to the native run's input tokens" (in the zh-CN edition ReAct's turns cost more each, so the claim
    cannot be "fewer tokens per turn")."""
    from agentlab.experiments.react_vs_native import compare_styles

    monkeypatch.setenv("AGENTLAB_LANG", lang)  # the cell's call, in the edition's language
    rows = compare_styles(seeds=range(5), malformed=0.3)
    native = next(r for r in rows if r["style"] == "native")["input_tokens"]
    react = [r for r in rows if r["style"] == "react"]
    clean = [r["input_tokens"] for r in react if r["parse_failures"] == 0]
    assert clean and all(abs(t - native) < native / 6 for t in clean), (native, clean)
    assert all(r["input_tokens"] > 1.25 * native for r in react if r["parse_failures"]), (native, react)


@pytest.mark.parametrize("lang,city", [("en", "Paris"), ("zh-CN", "巴黎")])
def test_with_strict_the_harness_gets_the_city_as_the_edition_asked_for_it(lang, city, monkeypatch, tmp_path):
    from agentlab.experiments.strict import strict_rows

    monkeypatch.setenv("AGENTLAB_LANG", lang)
    rows = strict_rows(tmp_path)
    assert [r["first get_weather input"] for r in rows if r["strict"]] == [{"city": city}] * 2
    said = markdown(NB, "en" if lang == "en" else "zh")
    assert f'`{{"city": "{city}"}}`' in said
