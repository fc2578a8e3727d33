"""DescriptionReader finds the weather tool by its text, guesses the input format without an example, and repeats."""

from __future__ import annotations

import pytest

from agentlab.sim.models.described import DescriptionReader


def _request(description: str, query_description: str = "The query.", messages=None) -> dict:
    spec = {
        "name": "lookup",
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": query_description}},
            "required": ["query"],
        },
    }
    task = "Which is warmer today, Paris or London? Compare their temperatures, then save a note with the answer."
    return {"tools": [spec, {"name": "save_note"}], "messages": messages or [{"role": "user", "content": task}]}


def _first_input(reply) -> dict | None:
    use = next((b for b in reply.content if b.get("type") == "tool_use"), None)
    return None if use is None else {"name": use["name"], **use["input"]}


def test_a_tool_whose_text_never_says_weather_or_temperature_is_not_used():
    reply = DescriptionReader()(_request("Look something up."))
    assert _first_input(reply) is None and "can't" in reply.content[0]["text"]


def test_an_example_in_quotes_gives_the_format_and_without_one_every_guess_can_be_wrong():
    assert _first_input(DescriptionReader(guess_wrong=1.0)(_request("Weather lookup.", 'A city, e.g. "Paris".'))) == {
        "name": "lookup",
        "query": "Paris",
    }
    guessed = _first_input(DescriptionReader(guess_wrong=1.0)(_request("Weather lookup.")))
    assert guessed["query"] != "Paris" and "Paris" in guessed["query"]
    assert _first_input(DescriptionReader(guess_wrong=0.0)(_request("Weather lookup.")))["query"] == "Paris"


def test_after_an_error_it_writes_the_bare_name():
    first = _request("Weather lookup.")["messages"]
    history = first + [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"query": "weather in Paris"}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": "Unknown city 'weather in Paris'. Did you mean: Paris?",
                }
            ],
        },
    ]
    assert (
        _first_input(DescriptionReader(guess_wrong=1.0)(_request("Weather lookup.", messages=history)))["query"]
        == "Paris"
    )


def test_same_seed_same_guesses_and_a_bad_fraction_is_refused_with_the_fix():
    a = [_first_input(DescriptionReader(seed=s)(_request("Weather lookup."))) for s in range(6)]
    assert a == [_first_input(DescriptionReader(seed=s)(_request("Weather lookup."))) for s in range(6)]
    with pytest.raises(ValueError, match="guess_wrong=1.5.*between 0 and 1"):
        DescriptionReader(guess_wrong=1.5)
