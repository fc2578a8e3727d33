"""Readable errors at the public API's edges: the field, the value and the fix (issue 22)."""

import pytest

import agentlab
from agentlab.cli import main


@pytest.fixture(scope="module")
def client():
    return agentlab.connect("sim", quiet=True)


def test_run_agent_with_a_model_typo_suggests_the_close_match(client):
    with pytest.raises(ValueError, match=r"model='claude-sonet-5-5'.*did you mean 'claude-sonnet-5-5'"):
        agentlab.run_agent(client, "x", [agentlab.get_weather], model="claude-sonet-5-5")


@pytest.mark.parametrize(
    "tools, words",
    [
        (agentlab.get_weather, r"is one Tool; give a list of tools: tools=\[get_weather\]"),
        ("get_weather", r"is a string; .*tools=\[get_weather\]"),
        (["get_weather"], "pass the tool itself, not its name"),
    ],
)
def test_run_agent_with_tools_not_a_list_of_tools_says_how(client, tools, words):
    with pytest.raises(TypeError, match=words):
        agentlab.run_agent(client, "x", tools)


def test_a_tool_passed_to_messages_create_says_to_call_spec(client):
    with pytest.raises(TypeError, match=r"tools=\[get_weather.spec\(\)\]"):
        client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=10,
            messages=[{"role": "user", "content": "x"}],
            tools=[agentlab.get_weather],
        )


def test_compare_with_a_model_typo_prints_one_line_not_a_traceback(tmp_path, capsys):
    assert (
        main(["compare", "--model", "claude-sonet-5-5", "--out", str(tmp_path), "--png", str(tmp_path / "c.png")]) == 2
    )
    err = capsys.readouterr().err
    assert "claude-sonnet-5-5" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
