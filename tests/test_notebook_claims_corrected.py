"""Claims the notebooks used to get wrong (issue 21, item 1), checked on the notebooks' own code.

Each test runs a notebook's code cells in order up to the cell that makes the figure the sentence is
about (a new cell at the top of a notebook changes nothing here), then checks the corrected sentence.
Results that hold only because of how our simulated model is written carry the marker tested last.
"""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import pytest

import agentlab

ROOT = Path(__file__).resolve().parents[1]
EN, ZH = ROOT / "notebooks", ROOT / "notebooks" / "zh-CN"
MARKER = {"en": "**[scripted model]**", "zh": "**[脚本模型]**"}


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text("utf-8"))["cells"]


def _src(cell: dict) -> str:
    return "".join(cell["source"])


def run_until(name: str, snippet: str) -> dict:
    """The namespace after running ``name``'s code cells up to and including the first containing ``snippet``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns: dict = {"__name__": f"notebook_{name[:2]}"}
    for cell in _cells(EN / name):
        if cell["cell_type"] != "code":
            continue
        exec(compile(_src(cell), f"{name} cell", "exec"), ns)
        plt.close("all")
        if snippet in _src(cell):
            return ns
    raise AssertionError(f"{name}: no code cell contains {snippet!r}")


def markdown(name: str, lang: str = "en") -> str:
    return "\n".join(_src(c) for c in _cells((EN if lang == "en" else ZH) / name) if c["cell_type"] == "markdown")


# 01: the empty thinking block is the model's hidden reasoning, shown only when asked for


def test_01_the_first_reply_opens_with_an_empty_signed_thinking_block_that_summarized_display_fills():
    ns = run_until("01_one_round_trip.ipynb", "reply = client.messages.create")
    first = ns["reply"].content[0]
    assert first.type == "thinking" and first.thinking == "" and first.signature
    shown = ns["client"].messages.create(
        model=ns["model"],
        max_tokens=1024,
        tools=ns["specs"],
        messages=ns["messages"],
        thinking={"type": "adaptive", "display": "summarized"},
    )
    assert shown.content[0].type == "thinking" and shown.content[0].thinking
    assert 'display": "summarized"' in markdown("01_one_round_trip.ipynb")
    assert 'display": "summarized"' in markdown("01_one_round_trip.ipynb", "zh")


# 02 and 09: a headless widget shows its last frame; a capped run has an empty last text


def test_02_the_stepper_starts_on_the_last_call_so_its_still_picture_is_the_last_frame():
    ns = run_until("02_the_loop.ipynb", "trace_stepper(run)")
    stepper = ns["trace_stepper"](ns["run"])
    assert stepper.slider.value == len(stepper.frames) == ns["run"].model_calls
    assert stepper.frame is stepper.frames[-1]
    for name in ("02_the_loop.ipynb", "09_what_a_turn_costs.ipynb"):
        assert "first frame" not in markdown(name) and "last frame" in markdown(name)
        assert "第一帧" not in markdown(name, "zh") and "最后一帧" in markdown(name, "zh")


def test_02_a_run_capped_at_two_turns_has_no_answer_its_last_text_is_empty():
    ns = run_until("02_the_loop.ipynb", "capped = ")
    capped = ns["capped"]
    assert capped.stop_reason.value == "max_turns" and capped.final_text == ""
    assert "preamble" not in markdown("02_the_loop.ipynb") and "开场白" not in markdown("02_the_loop.ipynb", "zh")


def test_02_every_guard_the_limits_paragraph_names_is_implemented(tmp_path):
    from agentlab.guards import Limits
    from agentlab.sim.models.misbehaving import Looper

    assert {"max_turns", "max_wall_s", "max_repeats", "max_idle_turns"} <= set(Limits.__dataclass_fields__)
    client = agentlab.connect("sim", policy=Looper(), quiet=True)
    run = agentlab.run_agent(
        client,
        agentlab.city_task(["Paris", "London"]),
        agentlab.task_tools(tmp_path),
        limits=Limits(max_turns=50, max_repeats=3),
    )
    assert run.stop_reason.value == "repeated_call" and run.model_calls < 50
    assert "only the turn limit is implemented" not in markdown("02_the_loop.ipynb")


# END_TURN: the model's turn is over; whether the task is done is the harness's call


def test_end_turn_ends_the_loop_though_the_task_asked_for_a_note_that_was_never_saved(tmp_path):
    from agentlab.sim.policy import ScriptedModel

    client = agentlab.connect("sim", policy=ScriptedModel(["Paris is warmer."]), quiet=True)
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
    assert run.stop_reason is agentlab.StopReason.END_TURN
    assert not any(tmp_path.iterdir()), "no note was saved, yet the model ended its turn"
    import importlib

    assert "task, are over" not in Path(importlib.import_module("agentlab.run").__file__).read_text("utf-8")


# 04b: every pattern is warmed up before any timing, so a cold first call cannot inflate the table.
# Checked by order of events, not by wall time (a busy machine moves the measured ratios, not the order).


def test_04_every_pattern_runs_once_untimed_before_the_speed_table_starts_timing(monkeypatch):
    import time as real_time

    from agentlab.experiments import speedup

    events: list[tuple[str, object]] = []
    real_runs = speedup._runs

    def spied_runs(client, cities):
        return {
            name: ((lambda w, run=run, name=name: (events.append(("run", name)), run(w))[1]), ideal)
            for name, (run, ideal) in real_runs(client, cities).items()
        }

    def perf_counter():
        events.append(("timer", None))
        return real_time.perf_counter()

    monkeypatch.setattr(speedup, "_runs", spied_runs)
    monkeypatch.setattr(speedup, "time", type("T", (), {"perf_counter": staticmethod(perf_counter)}))
    table = speedup.speedup_table(latency=0.001, sizes=(2,), reps=1)
    first_timer = events.index(("timer", None))
    warmed = {name for kind, name in events[:first_timer] if kind == "run"}
    assert warmed == set(table["pattern"]) == {"sectioning", "voting", "orchestrator"}
    cells = [_src(c) for c in _cells(EN / "04b_patterns_that_plan.ipynb") if c["cell_type"] == "code"]
    assert any("speedup_table(" in c for c in cells), "notebook 04b builds its table with speedup_table"


# 06: a traceback fails every case but the timeouts, for our rule-based reader


def test_06_our_reader_recovers_from_a_traceback_only_on_timeouts_and_from_every_readable_error():
    ns = run_until("06_error_recovery.ipynb", "rows = recovery_table()")
    raw = {(r["case"], r["lang"]): r["success"] for r in ns["rows"] if r["style"] == "raw"}
    readable = [r["success"] for r in ns["rows"] if r["style"] == "readable"]
    assert all(readable)
    assert {case for (case, _), ok in raw.items() if ok} == {"timeout"}


# 08: the API checks a tool's input only with strict: true; without it a missing field reaches the tool


def test_08_the_notebooks_tools_are_not_strict_and_a_missing_field_reaches_the_harness(tmp_path):
    ns = run_until("08_react_vs_native.ipynb", "rows = compare_styles(")
    specs = [t.spec() for t in agentlab.task_tools(ns["workdir"])]
    assert not any(s.get("strict") for s in specs)
    assert all(r["parse_failures"] == 0 for r in ns["rows"] if r["style"] == "native")
    from agentlab.experiments.recovery import run_case

    row = run_case("missing_field", "readable", "en", tmp_path)
    assert "city" in row["errors_seen"][0], "the bad input went through the API to the harness's checks"
    assert "format errors do not happen" not in markdown("08_react_vs_native.ipynb")
    assert "strict: true" in markdown("08_react_vs_native.ipynb") and "strict: true" in markdown(
        "08_react_vs_native.ipynb", "zh"
    )


# 10: a prompt past the window is a 400 error, not a refusal


def test_10_a_prompt_past_the_models_window_is_an_http_400_not_a_refusal():
    client = agentlab.connect("sim", quiet=True)
    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.create(
            model="claude-haiku-4-5", max_tokens=16, messages=[{"role": "user", "content": "Paris weather. " * 80_000}]
        )
    assert err.value.status_code == 400 and "prompt is too long" in err.value.message
    assert "would have refused" not in markdown("10_context_engineering.ipynb")


# 11: a tool result comes back as text in a user message, with no mark of trust


def test_11_the_injected_text_reaches_the_model_in_a_user_message_and_gullible_obeys_it():
    ns = run_until("11_untrusted_content.ipynb", 'case = run_case("compare_and_note"')
    case = ns["case"]
    results = [
        (m["role"], b)
        for m in case.run.messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert results and all(role == "user" for role, _ in results)
    assert all(set(b) <= {"type", "tool_use_id", "content", "is_error"} for _, b in results)
    assert case.attack_succeeded  # Gullible's doing, which the prose marks
    assert "same standing" not in markdown("11_untrusted_content.ipynb")


# The marker: one form, the same cells in both editions, on every result the issue names


def _marked(path: Path, marker: str) -> list[int]:
    return [i for i, c in enumerate(_cells(path)) if c["cell_type"] == "markdown" and marker in _src(c)]


@pytest.mark.parametrize("name", sorted(p.name for p in EN.glob("*.ipynb")))
def test_both_editions_mark_the_same_cells_as_holding_for_our_scripted_model(name):
    en, zh = _marked(EN / name, MARKER["en"]), _marked(ZH / name, MARKER["zh"])
    assert en == zh, f"{name}: en marks cells {en}, zh-CN marks {zh}"
    assert not _marked(EN / name, MARKER["zh"]) and not _marked(ZH / name, MARKER["en"])


@pytest.mark.parametrize(
    "name,snippet",
    [
        ("01_one_round_trip.ipynb", "A result marked"),
        ("13_api_features_2026.ipynb", "it read the countdown and wrapped up"),
        ("13_api_features_2026.ipynb", "What each level makes the model do here"),
        ("03b_what_the_fixed_path_cannot_do.ipynb", "needed new code"),
        ("06_error_recovery.ipynb", "blind retry, which only helps"),
        ("06_error_recovery.ipynb", "The bound of three retries is how our careful model is written"),
        ("06_error_recovery.ipynb", "because each step\ngot up to three more tries"),
        ("08_react_vs_native.ipynb", "model and the vague description sent bad inputs"),
        ("10_context_engineering.ipynb", "by construction of our scripted agent"),
        ("11_untrusted_content.ipynb", "our `Gullible` obeys every one"),
        ("12_capstone.ipynb", "*scripted* to obey"),
    ],
)
def test_each_scripted_only_result_carries_the_marker(name, snippet):
    cells = [_src(c) for c in _cells(EN / name) if c["cell_type"] == "markdown" and snippet in _src(c)]
    assert cells and all(MARKER["en"] in c for c in cells), f"{name}: {snippet!r} is not marked"


def test_no_notebook_sends_students_to_stderr_for_the_clients_notice():
    # in a notebook connect() prints its notice as a plain line (agentlab.client._notice), not on stderr
    said = [
        f"{folder.name}/{path.name}"
        for folder in (EN, ZH)
        for path in sorted(folder.glob("*.ipynb"))
        if any("stderr" in _src(c) for c in _cells(path) if c["cell_type"] == "markdown")
    ]
    assert said == []
