"""The default simulated policy behaves like a careful agent on the course task."""

import agentlab

MODEL = "claude-haiku-4-5"
TOOLS = [t.spec() for t in agentlab.task_tools("/tmp/agentlab-unused")]


def _ask(client, text, **kw):
    return client.messages.create(model=MODEL, max_tokens=300, messages=[{"role": "user", "content": text}], **kw)


def test_parallel_policy_asks_for_every_city_in_one_turn():
    client = agentlab.connect("sim", parallel=True, quiet=True)
    msg = _ask(client, agentlab.city_task(["Paris", "London", "Oslo"]), tools=TOOLS)
    assert [b.input["city"] for b in msg.content if b.type == "tool_use"] == ["Paris", "London", "Oslo"]


def test_disable_parallel_tool_use_is_respected():
    client = agentlab.connect("sim", parallel=True, quiet=True)
    msg = _ask(
        client,
        agentlab.city_task(["Paris", "London"]),
        tools=TOOLS,
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert len([b for b in msg.content if b.type == "tool_use"]) == 1


def test_chinese_task_gets_a_chinese_answer_with_numbers_from_the_tools(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True), "比较上海和北京的温度，然后保存一条笔记。", agentlab.task_tools(tmp_path)
    )
    assert run.final_text.startswith("上海更暖和：20°C") and "北京 14°C" in run.final_text


def test_numbers_come_from_the_tool_results_not_from_the_policys_own_data(tmp_path):
    @agentlab.tool(name="get_weather")
    def fake_weather(city: str) -> dict:
        """Fake readings."""
        return {"city": city, "temp_c": {"Paris": -3.0, "London": 40.0}[city], "condition": "odd"}

    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True), agentlab.city_task(["Paris", "London"]), [fake_weather]
    )
    assert run.final_text.startswith("London is warmer at 40°C") and "-3" in run.final_text


def test_a_task_it_cannot_do_ends_with_a_short_refusal(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True), "Book me a flight to Paris.", agentlab.task_tools(tmp_path)
    )
    assert run.model_calls == 1 and run.stop_reason.value == "end_turn" and "can't" in run.final_text


def test_without_tools_it_answers_from_the_prompt_only():
    client = agentlab.connect("sim", quiet=True)
    assert _ask(client, "Today's temperatures: Oslo: 9.5°C; Cairo: 29°C.").content[0].text.startswith("Cairo is warmer")
    assert _ask(client, "Hello, Claude").content[0].text.startswith("Hello!")


def test_a_city_without_a_fix_is_reported_not_invented(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        "Which is warmer, Paris or Atlantis? Save a note.",
        agentlab.task_tools(tmp_path),
    )
    asked = [r["input"].get("city") for r in run.tool_results]
    assert "Atlantis" in asked and "save_note" not in [r["name"] for r in run.tool_results]
    assert run.final_text.startswith(
        "I couldn't get the weather for Atlantis, so I can't compare the temperatures. "
        "The error was: Atlantis: Unknown city 'Atlantis'."
    )


def test_max_tokens_zero_gives_no_content():
    client = agentlab.connect("sim", quiet=True)
    msg = client.messages.create(model=MODEL, max_tokens=0, messages=[{"role": "user", "content": "Hello"}])
    assert msg.stop_reason == "max_tokens" and msg.content == []


def _result_without_error_flag(content):
    return {"type": "tool_result", "tool_use_id": "toolu_1", "content": content}


def test_an_unreadable_result_is_a_failed_lookup_never_a_number():
    """Notebook 01's change-predict-run task: the error flag removed from the "Pariss" failure."""
    from agentlab.sim.models.careful import CarefulAgent

    ask = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Pariss"}}],
    }
    msgs = [
        {"role": "user", "content": "Which is warmer today, Pariss or London?"},
        ask,
        {
            "role": "user",
            "content": [
                _result_without_error_flag(
                    "Unknown city 'Pariss'. Did you mean: Paris? Call get_weather again with one of these names."
                )
            ],
        },
    ]
    reply = CarefulAgent()({"messages": msgs, "tools": [{"name": "get_weather"}]})
    text = " ".join(b.get("text", "") for b in reply.content)
    assert "nan" not in text and "Pariss" in text and "couldn't get the weather" in text


def test_a_number_without_degrees_is_not_read_as_a_temperature():
    from agentlab.sim.models.reading import temperature

    assert temperature("Error 404: city service down") is None
    assert temperature('{"temp_c": NaN}') is None
    assert temperature("Paris: 18.5 °C, sunny") == 18.5


def test_one_city_weather_question_is_looked_up_and_reported(tmp_path):
    run = agentlab.run_agent(
        agentlab.connect("sim", quiet=True),
        "What is the temperature in Paris today? Look it up, then save a note with it.",
        agentlab.task_tools(tmp_path),
    )
    assert [r["name"] for r in run.tool_results] == ["get_weather", "save_note"]
    assert run.final_text.startswith("Paris is at ") and "°C today" in run.final_text
