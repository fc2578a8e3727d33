"""Every error wording the model reads has its Chinese, so a Chinese task gets its hints in Chinese.

The wordings are found by scanning the package for the places that write them (tool errors, the
harness's tool outcomes, schema explanations, ReAct parse errors, executor notes); each place needs a
case here that produces its real text, and ``agentlab/hints.py`` needs its Chinese. English
output stays as it was.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import agentlab
from agentlab.executor import Executor
from agentlab.hints import hint, task_lang
from agentlab.react import parse_action
from agentlab.tools import Tool, run_tool, tool
from agentlab.weather import make_save_note

PACKAGE = Path(agentlab.__file__).parent
CJK = re.compile(r"[\u4e00-\u9fff]")
SITE = re.compile(
    r"""(?:ToolError|ToolOutcome|ValueError)\(\s*f?["']((?:Format error|[A-Z{\[])[^"']{0,40})"""
    r"""|return f"(\{where\}[^"]{0,30}|missing required[^"]{0,20}|unexpected field[^"]{0,20})"""
    r"""|hint\(f"([^"]{0,30})"""
)
"""A place that writes text the model reads: a tool error, a tool outcome, a ReAct parse error,
a schema explanation, a harness note passed through ``hint``."""
SCANNED = [
    "tools.py",
    "weather.py",
    "experiments/variants.py",
    "experiments/tool_descriptions.py",
    "executor.py",
    "react.py",
]
"""Modules whose texts reach the model as tool results or harness messages (ValueError only in react.py)."""


def _scan() -> set[str]:
    found = set()
    for name in SCANNED:
        text = (PACKAGE / name).read_text(encoding="utf-8")
        for m in SITE.finditer(text):
            literal = next(g for g in m.groups() if g is not None)
            if "ValueError" in m.group(0) and not literal.startswith("Format error"):
                continue  # a developer's error (bad arguments to agentlab), not text the model reads
            if "ToolOutcome(" in m.group(0) and literal.startswith("Traceback"):
                continue  # the raw style's traceback: untranslated on purpose
            found.add(f"{name}: {literal[:24]}")
    return found


def _schema_tool() -> Tool:
    schema = {
        "type": "object",
        "properties": {"unit": {"type": "string", "enum": ["C", "F"]}, "city": {"type": "string", "minLength": 2}},
        "required": ["city"],
        "additionalProperties": False,
    }
    return Tool("convert", "Convert a temperature.", schema, lambda **kw: kw)


@tool
def _broken(city: str) -> str:
    """A tool that fails with a Python error."""
    raise KeyError(city)


@tool
def _unencodable(city: str) -> object:
    """A tool that returns a set."""
    return {city}


def _run(t: Tool, tool_input) -> str:
    out = run_tool({t.name: t}, t.name, tool_input)
    assert out.is_error, out
    return out.content


def _parse_error(text: str) -> str:
    with pytest.raises(ValueError) as e:
        parse_action(text)
    return str(e.value)


def _notes_link_refused() -> str:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="agentlab-hints-"))
    (folder / "notes").mkdir()
    (folder / "notes" / "notes.md").symlink_to(folder / "outside.md")
    return _run(make_save_note(folder / "notes"), {"text": "hi"})


def _no_forecast() -> str:
    from agentlab.experiments.variants import get_forecast

    return _run(get_forecast, {"city": "Cairo"})


def _lookup_refuses(query: str) -> str:
    from agentlab.experiments.tool_descriptions import DESCRIPTIONS, lookup_tool

    return _run(lookup_tool(*DESCRIPTIONS["vague"]), {"query": query})


def _not_run(lang: str = "en") -> str:
    from agentlab.executor import not_run
    from agentlab.guards import Stopped
    from agentlab.run import StopReason

    stopped = Stopped(StopReason.TOKEN_BUDGET, "max_tokens", 2140, 2000)
    return not_run([{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}], stopped, lang)[0]["content"]


def _exits() -> str:
    """What a kept worker answers for a tool that calls sys.exit()."""

    @agentlab.tool(timeout=5)
    def quits() -> str:
        """Calls sys.exit."""
        raise SystemExit(3)

    return Executor()([{"type": "tool_use", "id": "t1", "name": "quits", "input": {}}], [quits])[0]["content"]


WORDINGS = {
    "tools.py: Unknown tool ": lambda: run_tool({}, "get_wether", {}).content,
    "tools.py: Invalid input for {name}": lambda: _run(_schema_tool(), {"city": "Oslo", "unit": 3}),
    "tools.py: {name} failed: {type(e).": lambda: _run(_broken, {"city": "Oslo"}),
    "tools.py: {name} returned a value ": lambda: _run(_unencodable, {"city": "Oslo"}),
    "tools.py: missing required field '": lambda: _run(_schema_tool(), {}),
    "tools.py: unexpected field(s) in t": lambda: _run(_schema_tool(), {"city": "Oslo", "x": 1}),
    "tools.py: {where} must be one of {": lambda: _run(_schema_tool(), {"city": "Oslo", "unit": "K"}),
    "tools.py: {where} must be of type ": lambda: _run(_schema_tool(), None),
    "tools.py: {where}: {err.message}": lambda: _run(_schema_tool(), {"city": "O"}),
    "weather.py: Unknown city ": lambda: _run(agentlab.get_weather, {"city": "Atlantis"}),
    "weather.py: The notes file may point": lambda: _notes_link_refused(),
    "executor.py: {block['name']} returned": lambda: (
        Executor(result_cap=5)
        ._one({"get_weather": agentlab.get_weather}, {"name": "get_weather", "input": {"city": "Paris"}})
        .content
    ),
    "experiments/variants.py: No forecast for ": _no_forecast,
    "experiments/tool_descriptions.py: Unknown city ": lambda: _lookup_refuses("weather in Paris"),
    "executor.py: [truncated: {cap} of {le": lambda: "[truncated: 5 of 56 characters shown]",
    "executor.py: {block['name']} stopped ": lambda: _exits(),
    "executor.py: {name} did not answer wi": lambda: (
        "get_weather did not answer within 0.5 s and was abandoned; try again"
    ),
    "executor.py: Not run: the harness sto": lambda: _not_run(),
    "react.py: Format error: end your t": lambda: _parse_error("Thought: hm\nAction: get_weather"),
    "react.py: Format error: Action Inp": lambda: _parse_error("Action: get_weather\nAction Input: {'city': 1}"),
}
"""Each place that writes model-facing text -> a producer of its real text."""
EXTRA = {
    "did you mean": lambda: _run(agentlab.get_weather, {"city": "Pariss"}),
    "input not an object": lambda: _run(_schema_tool(), None),
    "lookup, nothing to suggest": lambda: _lookup_refuses("Atlantis"),
    "json object": lambda: 'Format error: Action Input must be a JSON object, e.g. {"city": "Paris"}.',
}
"""Wordings that share a place with another one (one literal, several texts)."""


def test_every_place_that_writes_model_facing_text_has_a_case():
    found = _scan()
    assert len(found) >= 10, f"the scan found only {sorted(found)}: has the SITE pattern stopped matching?"
    missing = sorted(found - set(WORDINGS))
    assert not missing, (
        f"model-facing wordings with no Chinese check: {missing}; add their Chinese to _RULES in "
        "agentlab/hints.py (English replacement = the text as it is) and a producer to WORDINGS "
        "in tests/test_hints_zh.py"
    )


@pytest.mark.parametrize("key", sorted(WORDINGS) + sorted(EXTRA))
def test_each_wording_has_chinese_and_english_is_unchanged(key):
    text = {**WORDINGS, **EXTRA}[key]()
    chinese = hint(text, "zh")
    assert CJK.search(chinese), f"{key}: no Chinese for {text!r}; add a rule to agentlab/hints.py"
    english = hint(text, "en")
    assert english == text or english.startswith(text.rstrip(".]")), f"{key}: English changed: {text!r} -> {english!r}"


def test_a_chinese_task_gets_chinese_tool_errors_from_run_agent(tmp_path):
    from agentlab.sim.models.misbehaving import CarelessModel

    def errors(task: str, case: str) -> list[str]:
        client = agentlab.connect("sim", policy=CarelessModel(case), quiet=True)
        run = agentlab.run_agent(client, task, agentlab.task_tools(tmp_path / case), max_turns=6)  # default executor
        return [r["content"] for r in run.tool_results if r["is_error"]]

    for case in ("unknown_tool", "missing_field", "wrong_type", "exception"):
        zh = errors(agentlab.city_task(["上海", "北京"], "zh"), case)
        en = errors(agentlab.city_task(["Paris", "London"]), case)
        assert zh and all(CJK.search(e) for e in zh), f"{case}: {zh}"
        assert en and not any(CJK.search(e) for e in en), f"{case}: {en}"


def test_the_executor_writes_its_own_notes_in_the_tasks_language():
    tools = {"get_weather": agentlab.get_weather}
    block = {"name": "get_weather", "input": {"city": "Paris"}}
    assert "已截断" in Executor(max_result_chars=5, lang="zh")._one(tools, block).content
    assert "秒内没有响应" in Executor(lang="zh")._timed_out("get_weather", 0.5).content
    assert Executor()._timed_out("get_weather", 0.5).content == (
        "get_weather did not answer within 0.5 s and was abandoned; try again."
    )


def test_task_language_is_read_from_the_task_text():
    assert task_lang("比较上海和北京的温度") == "zh"
    assert task_lang("Which is warmer, Paris or London?") == "en"
    assert task_lang([{"type": "text", "text": "你好"}]) == "zh"


def test_react_on_a_chinese_task_thinks_and_is_corrected_in_chinese(tmp_path):
    from agentlab.react import run_react
    from agentlab.sim.models.react import ReactWriter

    client = agentlab.connect("sim", policy=ReactWriter(malformed=1.0, seed=0), quiet=True)
    result = run_react(client, agentlab.city_task(["上海", "北京"], "zh"), agentlab.task_tools(tmp_path))
    said = [m["content"] for m in result.run.messages[1:]]
    assert result.parse_failures >= 1 and CJK.search(result.run.final_text)
    assert all(CJK.search(s) for s in said if s.startswith(("Thought", "格式错误", "Format error"))), said
    english = run_react(
        agentlab.connect("sim", policy=ReactWriter(malformed=1.0, seed=0), quiet=True),
        agentlab.city_task(["Paris", "London"]),
        agentlab.task_tools(tmp_path / "en"),
    )
    assert not any(CJK.search(m["content"]) for m in english.run.messages), "English ReAct run got Chinese text"


def test_the_course_tools_confirmations_read_in_chinese_for_a_chinese_task_and_english_is_unchanged(tmp_path):
    from agentlab.hints import result_text

    assert result_text("Saved note (21 characters).", "zh") == "已保存笔记（21 个字符）。"
    assert result_text("Sent to a@b.c (5 characters).", "zh") == "已发送给 a@b.c（5 个字符）。"
    assert result_text("Deleted the notes.", "zh") == "已删除笔记。"
    for text in ("Saved note (21 characters).", "Deleted the notes."):
        assert result_text(text, "en") == text
    assert result_text('{"city": "Paris", "temp_c": 18.5}', "zh") == '{"city": "Paris", "temp_c": 18.5}'
    block = [{"type": "tool_use", "id": "t1", "name": "save_note", "input": {"text": "巴黎更暖和"}}]
    for style in ("readable", "raw"):
        zh = Executor(lang="zh", errors=style)(block, [make_save_note(tmp_path / style)])
        assert zh == [{"type": "tool_result", "tool_use_id": "t1", "content": "已保存笔记（5 个字符）。"}]
    en = Executor()(block, [make_save_note(tmp_path / "en")])
    assert en[0]["content"] == "Saved note (5 characters)."


def test_a_chinese_run_reads_saved_note_in_chinese_in_the_loop_in_react_and_in_notebook_11(tmp_path, monkeypatch):
    from agentlab.injection import run_case
    from agentlab.react import run_react

    client = agentlab.connect("sim", quiet=True)
    native = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"], "zh"), agentlab.task_tools(tmp_path / "a")
    )
    assert native.tool_results[-1]["content"] == "已保存笔记（21 个字符）。"
    react = run_react(client, agentlab.city_task(["Paris", "London"], "zh"), agentlab.task_tools(tmp_path / "b"))
    assert "Observation: 已保存笔记（21 个字符）。" in [m["content"] for m in react.run.messages]
    english = agentlab.run_agent(
        client, agentlab.city_task(["Paris", "London"], "en"), agentlab.task_tools(tmp_path / "c")
    )
    assert english.tool_results[-1]["content"] == "Saved note (56 characters)."
    monkeypatch.setenv("AGENTLAB_LANG", "zh-CN")
    case = run_case("compare_and_note", "key_by_email")
    assert [
        r["content"] for r in case.run.tool_results if "attacker" in r["content"] and not r["content"].startswith("{")
    ] == ["已发送给 attacker@evil.example（22 个字符）。"]


def test_calls_a_guard_kept_from_running_are_answered_in_the_tasks_language(tmp_path):
    from agentlab.guards import Limits
    from agentlab.sim.models.misbehaving import Looper

    assert _not_run() == "Not run: the harness stopped the run (max_tokens 2140 over the limit 2000)."
    assert _not_run("zh") == "未运行：harness 已停止这次运行（max_tokens 为 2140，超过了上限 2000）。"
    for task, lang in (
        (agentlab.city_task(["Paris", "London"], "zh"), "zh"),
        (agentlab.city_task(["Paris", "London"]), "en"),
    ):
        client = agentlab.connect("sim", policy=Looper(), quiet=True)
        run = agentlab.run_agent(
            client, task, agentlab.task_tools(tmp_path / lang), limits=Limits(max_turns=50, max_tokens=2000)
        )
        last = run.messages[-1]["content"][0]
        assert last["is_error"] and last["content"].startswith(
            "未运行：harness" if lang == "zh" else "Not run: the harness"
        ), last
