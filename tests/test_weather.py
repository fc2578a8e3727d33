import json

import pytest

from agentlab.tools import run_tool, toolset
from agentlab.weather import city_names, city_task, get_weather, lookup, make_save_note


def test_bundle_has_thirty_cities_with_chinese_names():
    assert len(city_names()) >= 30
    assert {"上海", "北京"} <= set(city_names("zh"))


def test_chinese_and_english_names_give_the_same_reading():
    assert lookup("上海") == lookup("shanghai") == lookup(" Shanghai ")
    assert lookup("上海")["city"] == "Shanghai"


def test_unknown_city_error_lists_close_matches():
    out = run_tool({"get_weather": get_weather}, "get_weather", {"city": "Pariss"})
    assert out.is_error
    assert "Unknown city 'Pariss'" in out.content and "Did you mean: Paris" in out.content


def test_get_weather_returns_celsius_json():
    data = json.loads(run_tool({"get_weather": get_weather}, "get_weather", {"city": "Paris"}).content)
    assert set(data) == {"city", "temp_c", "condition"}


def test_save_note_appends_inside_its_folder(tmp_path):
    note = make_save_note(tmp_path / "n")
    tools = toolset([note])
    run_tool(tools, "save_note", {"text": "first"})
    run_tool(tools, "save_note", {"text": "second"})
    assert (tmp_path / "n" / "notes.md").read_text() == "first\nsecond\n"


def test_save_note_refuses_a_symlink_leading_out_of_the_sandbox(tmp_path):
    (tmp_path / "n").mkdir()
    outside = tmp_path / "outside.md"
    (tmp_path / "n" / "notes.md").symlink_to(outside)
    out = run_tool(toolset([make_save_note(tmp_path / "n")]), "save_note", {"text": "x"})
    assert out.is_error and "outside the notes folder" in out.content
    assert not outside.exists()


def test_city_task_needs_two_cities():
    with pytest.raises(ValueError, match="two or more cities"):
        city_task(["Paris"])
    assert "上海" in city_task(["上海", "北京"], "zh")


def test_forecast_option_returns_a_few_hundred_tokens_of_stable_forecast():
    from agentlab.api.tokens import text_tokens
    from agentlab.weather import make_get_weather

    tool = make_get_weather(forecast_days=7)
    first = run_tool({"get_weather": tool}, "get_weather", {"city": "Paris"})
    again = run_tool({"get_weather": tool}, "get_weather", {"city": "paris"})
    data = json.loads(first.content)
    assert data["temp_c"] == lookup("Paris")["temp_c"] and len(data["forecast"]) == 7
    assert first.content == again.content  # the same city gives the same forecast
    assert 200 <= text_tokens(first.content) <= 600
    assert all(d["low_c"] < d["high_c"] for d in data["forecast"])


def test_forecast_days_out_of_range_names_the_value():
    from agentlab.weather import make_get_weather

    with pytest.raises(ValueError, match="forecast_days must be a whole number from 0 to 14, got 30"):
        make_get_weather(30)
    assert make_get_weather(0) is get_weather


def test_city_task_refuses_a_string_for_the_list_and_an_unknown_language():
    with pytest.raises(ValueError, match=r"pass a list of city names"):
        city_task("Paris", "London")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lang='fr'"):
        city_task(["Paris", "London"], lang="fr")


def test_city_task_follows_the_notebook_language_when_none_is_given(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert city_task(["Paris", "London"]).startswith("Which is warmer today, Paris or London?")
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    assert city_task(["Paris", "London"]) == city_task(["Paris", "London"], "zh")
    assert city_task(["Paris", "London"], "en").startswith("Which is warmer")


def test_chinese_city_task_names_known_cities_in_chinese_and_keeps_unknown_ones():
    assert city_task(["Paris", "London"], "zh") == "比较巴黎和伦敦的温度，哪个更暖和？然后保存一条笔记。"
    assert "Atlantis和上海" in city_task(["Atlantis", "上海"], "zh")


def test_chinese_task_reads_back_every_city_it_names():
    from agentlab.sim.models.reading import cities_in

    assert cities_in(city_task(["Paris", "London"], "zh")) == ["巴黎", "伦敦"]
    assert cities_in("比较Paris和London的温度") == ["Paris", "London"]  # Latin names inside Chinese text
    assert cities_in("比较Pariss和Atlantis的温度") == ["Pariss", "Atlantis"]  # a near miss and an unknown one
    assert cities_in("theparis, London") == ["London"]  # a Latin letter touching a name still hides it
