"""The careful simulated model reads a readable ``is_error`` by meaning, with bounded retries.

Transient errors are retried with the same call up to the bound in ``data/profiles.json`` (3, a
stand-in with its source), a named fix once with the corrected argument, not-found or forbidden
errors never; a raw traceback is not read by meaning (one blind retry, as before).
"""

import json
from importlib import resources

import pytest

import agentlab
from agentlab.executor import Executor
from agentlab.sim.models.reading import read_error, retry_limit, retry_source
from agentlab.weather import lookup

UNAVAILABLE = "get_weather is temporarily unavailable; try again"


def _flaky(fail: dict[str, int], message: str = UNAVAILABLE, exc: type = agentlab.ToolError):
    """A ``get_weather`` whose first ``fail[city]`` calls for a city raise ``message``; the calls it got."""
    calls: list[str] = []

    @agentlab.tool(name="get_weather")
    def get_weather(city: str) -> dict:
        """Get today's temperature (degrees Celsius) for a city.

        Args:
            city: The city's name, e.g. "Paris".
        """
        calls.append(city)
        if calls.count(city) <= fail.get(city, 0):
            raise exc(message)
        return lookup(city)

    return get_weather, calls


def _run(task, tools, **kw):
    return agentlab.run_agent(agentlab.connect("sim", quiet=True), task, tools, **kw)


def test_a_transient_error_is_retried_at_most_three_times_then_reported():
    tool, calls = _flaky({"Paris": 99})
    run = _run("Which is warmer today, Paris or London?", [tool])
    assert calls.count("Paris") == 1 + retry_limit("retry") == 4  # the call and its 3 retries, then no more
    assert run.stop_reason.value == "end_turn"
    assert "I retried Paris 3 times and it still failed, so I gave up" in run.final_text
    assert "temporarily unavailable" in run.final_text and "°C" not in run.final_text  # no invented number


def test_a_transient_error_that_clears_within_the_bound_is_answered():
    tool, calls = _flaky({"Paris": 3})
    run = _run("Which is warmer today, Paris or London?", [tool])
    assert calls.count("Paris") == 4 and calls.count("London") == 1
    assert run.final_text.startswith("Paris is warmer at 18.5°C")


def test_a_chinese_task_is_told_in_chinese_how_often_the_model_retried():
    tool, _ = _flaky({"Paris": 99})
    run = _run("比较Paris和London今天的气温，哪个更暖和？", [tool])
    assert "我把Paris重试了 3 次，仍然失败，所以放弃了。" in run.final_text


def test_a_named_fix_is_retried_once_with_the_corrected_argument():
    tool, calls = _flaky({})
    run = _run("Which is warmer today, Pariss or London?", [tool])
    assert calls == ["Pariss", "London", "Paris"]  # the fix applied once, not the same call again
    assert run.final_text.startswith("Paris is warmer")


@pytest.mark.parametrize(
    "message",
    [
        "Access to weather data for Paris is forbidden",
        "Paris: no such station; the city does not exist in this service",
    ],
)
def test_a_not_found_or_forbidden_error_is_not_retried_and_is_reported(message):
    tool, calls = _flaky({"Paris": 99}, message)
    run = _run("Which is warmer today, Paris or London?", [tool])
    assert calls.count("Paris") == 1
    assert run.final_text.startswith("I couldn't get the weather for Paris") and message in run.final_text
    assert "retried" not in run.final_text


def test_a_raw_traceback_is_not_retried_by_meaning():
    # the traceback's last line says "try again", but a traceback is not read by meaning: one blind retry only
    tool, calls = _flaky({"Paris": 99}, "upstream timed out; try again", TimeoutError)
    run = _run("Which is warmer today, Paris or London?", [tool], executor=Executor(errors="raw"))
    assert calls.count("Paris") == 1 + retry_limit("traceback") == 2
    assert "TimeoutError: upstream timed out; try again" in run.final_text


@pytest.mark.parametrize(
    "body,kind",
    [
        ("get_weather is temporarily unavailable; try again", "retry"),
        ("get_weather did not answer within 5 s and was abandoned; try again.", "retry"),
        ("Rate limit exceeded for the weather service", "retry"),
        ("The weather service is overloaded", "retry"),
        ("get_weather 暂时不可用；请再试一次。", "retry"),
        ("Unknown city 'Pariss'. Did you mean: Paris? Call get_weather again with one of these names.", "fix"),
        (
            "Unknown city 'Atlantis'. Known cities include: Paris, London, ... Call get_weather again with one of these names.",
            "final",
        ),
        ("403 Forbidden: this key may not read Paris", "final"),
        ("Station not found", "final"),
        ("未知城市 'Atlantis'。已知的城市包括：Paris 等。请用其中一个名字再调用 get_weather。", "final"),
        ('Traceback (most recent call last):\n  File "<tool get_weather>"\nTimeoutError: try again', "traceback"),
        ("something odd happened", "opaque"),
    ],
)
def test_an_error_is_read_by_what_it_says(body, kind):
    assert read_error(body) == kind


def test_the_retry_bounds_are_data_with_their_sources():
    data = json.loads(resources.files("agentlab.api").joinpath("data/profiles.json").read_text("utf-8"))
    bounds = data["error_retries"]
    assert (
        (retry_limit("retry"), retry_limit("fix"), retry_limit("traceback"))
        == (bounds["transient"], bounds["fix"], bounds["traceback"])
        == (3, 1, 1)
    )
    assert retry_limit("final") == retry_limit("opaque") == 0
    assert retry_source().startswith("a stand-in, not measured") and "2-3 times" in retry_source()
    recorded = data["sources"][bounds["fix_source"]]
    assert "4fda38988f2939fa6ea9cdefcf120693e10ef491" in recorded and "retried once" in recorded


def test_the_readme_states_the_bounds_the_model_uses():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text("utf-8")
    para = next(p for p in readme.split("\n\n") if p.startswith("**Tool errors are read by meaning.**"))
    assert f"up to {retry_limit('retry')} times" in para and retry_limit("fix") == retry_limit("traceback") == 1
    assert (
        "error_retries" in para
        and "3 is our stand-in" in para
        and "retry 2-3 times" in para
        and "not\na measurement" in para
    )
