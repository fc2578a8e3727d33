"""ReAct: actions parsed from text, format errors sent back, compared with native tool use."""

import pytest

import agentlab
from agentlab.experiments.react_vs_native import compare_styles, means
from agentlab.react import parse_action, react_prompt, run_react
from agentlab.sim.models.react import ReactWriter, is_react_request
from agentlab.trace import read_trace


def test_parse_action_reads_a_well_formed_action_and_a_final_answer():
    assert parse_action('Thought: x\nAction: get_weather\nAction Input: {"city": "Paris"}') == (
        "get_weather",
        {"city": "Paris"},
    )
    assert parse_action("Thought: done\nFinal Answer: Paris is warmer.") == "Paris is warmer."


@pytest.mark.parametrize(
    "text,says",
    [
        ("Thought: x\nAction: get_weather(city='Paris')", "end your turn with a line"),
        ("Thought: x\nAction: get_weather\nAction Input: {'city': 'Paris'}", "not valid JSON"),
        ("Thought: x\nAction: get_weather", "end your turn with a line"),
        ("Action: get_weather\nAction Input: [1]", "end your turn"),
    ],
)
def test_parse_action_rejects_malformed_text_saying_what_to_write(text, says):
    with pytest.raises(ValueError, match="Format error") as e:
        parse_action(text)
    assert says in str(e.value)


def test_react_loop_sends_no_tools_and_the_sim_writes_react_prose(tmp_path):
    client = agentlab.connect("sim", quiet=True)  # the default policy writes ReAct when prompted for it
    result = run_react(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), trace=tmp_path / "r.jsonl"
    )
    assert result.parse_failures == 0 and result.run.final_text.startswith("Paris is warmer at 18.5°C")
    assert result.run.messages[1]["content"].startswith("Thought:")
    assert read_trace(tmp_path / "r.jsonl")[-1]["event"] == "stop"
    assert is_react_request({"system": react_prompt(agentlab.task_tools(tmp_path))})


def test_malformed_actions_get_a_format_error_and_the_model_then_writes_it_right(tmp_path):
    client = agentlab.connect("sim", policy=ReactWriter(malformed=1.0, seed=0), quiet=True)
    result = run_react(
        client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), trace=tmp_path / "r.jsonl"
    )
    errors = [e for e in read_trace(tmp_path / "r.jsonl") if e.get("event") == "parse_error"]
    assert result.parse_failures == len(errors) == 3  # every action is malformed once: 2 weather calls and the note
    assert result.run.final_text.startswith("Paris is warmer") and result.run.model_calls == 4 + 3


def test_react_vs_native_rows_count_parse_failures_turns_and_tokens():
    rows = compare_styles(seeds=range(3), malformed=0.3)
    native, react = rows[0], rows[1:]
    assert native["style"] == "native" and native["parse_failures"] == 0
    # each failure costs one turn; ReAct writes one action per turn (4 clean), native asks for both cities at once (3)
    assert native["turns"] == 3 and all(r["turns"] == 4 + r["parse_failures"] for r in react)
    assert all(r["answer"] == native["answer"] for r in rows)
    m = means(rows)
    assert m["react"]["parse_failures"] == sum(r["parse_failures"] for r in react) / 3


def test_seeded_malformed_actions_repeat_exactly():
    assert compare_styles(seeds=[7]) == compare_styles(seeds=[7])


def test_react_writer_refuses_a_fraction_outside_0_to_1():
    with pytest.raises(ValueError, match=r"ReactWriter\(malformed=1.5\)"):
        ReactWriter(malformed=1.5)


def test_the_react_prompt_is_chinese_for_a_chinese_task_its_labels_english_and_the_english_one_unchanged(
    tmp_path, monkeypatch
):
    tools = agentlab.task_tools(tmp_path)
    en = react_prompt(tools, "en")
    assert en.startswith("You solve the task step by step. Tools:\n- get_weather: ")
    assert en.endswith("Thought: <your reasoning>\nFinal Answer: <the answer for the user>")
    zh = react_prompt(tools, "zh")
    assert zh.startswith("你要一步一步地完成任务。可用的工具：\n- get_weather: ") and is_react_request({"system": zh})
    for label in ("\nThought: ", "\nAction: ", "\nAction Input: ", "'Observation: ", "\nFinal Answer: "):
        assert label in zh and label in en
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert react_prompt(tools) == zh
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert react_prompt(tools) == en
    with pytest.raises(ValueError, match="lang='fr'"):
        react_prompt(tools, "fr")


def test_a_chinese_react_run_gets_the_chinese_prompt_parses_its_answers_and_answers_in_chinese(tmp_path):
    systems = []

    class Recording(ReactWriter):
        def __call__(self, request):
            systems.append(request.get("system"))
            return super().__call__(request)

    client = agentlab.connect("sim", policy=Recording(malformed=1.0, seed=0), quiet=True)
    result = run_react(client, agentlab.city_task(["Paris", "London"], "zh"), agentlab.task_tools(tmp_path))
    assert systems and all(s == react_prompt(agentlab.task_tools(tmp_path), "zh") for s in systems)
    assert result.parse_failures == 3 and result.run.model_calls == 7  # as in English: each action malformed once
    assert result.run.messages[2]["content"].startswith("格式错误：")
    assert parse_action(result.run.messages[3]["content"]) == ("get_weather", {"city": "巴黎"})
    assert result.run.final_text.startswith("巴黎更暖和：18.5°C")


def test_compare_styles_asks_in_the_notebooks_language_and_keeps_its_claims_in_chinese(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    rows = compare_styles(seeds=range(5), malformed=0.3)
    assert all(r["answer"].startswith("巴黎更暖和") for r in rows)
    native, react = rows[0], rows[1:]
    assert native["turns"] == 3 and all(r["turns"] == 4 + r["parse_failures"] for r in react)
    clean = [r for r in react if r["parse_failures"] == 0]
    # notebook 08's claim in zh: within a sixth of native's input despite the extra turn (here a little more)
    assert clean and all(1 < r["input_tokens"] / native["input_tokens"] < 7 / 6 for r in clean)
    assert means(rows)["react"]["turns"] > native["turns"]
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert compare_styles(seeds=[3]) == compare_styles(seeds=[3], lang="en")
