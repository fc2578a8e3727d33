"""The notebook widgets: the trace stepper, experiment controls, and their static copy for headless runs."""

from __future__ import annotations

import base64

import matplotlib
import pytest

matplotlib.use("Agg")

import agentlab  # noqa: E402
from agentlab.experiments.city import city_experiment  # noqa: E402
from agentlab.views.stepper import messages_html, tokens_html, turn_frames  # noqa: E402
from agentlab.views.widgets import WIDGET_MIME, experiment_controls, lane_figure, trace_stepper, widget_mode  # noqa: E402

PNG_MAGIC = b"\x89PNG"


@pytest.fixture
def run(sim, tools, tmp_path):
    return agentlab.run_agent(sim, agentlab.city_task(["Paris", "London"]), tools, trace=tmp_path / "agent.jsonl")


def test_each_frame_holds_the_messages_its_request_carried(run):
    frames = turn_frames(run)
    events = agentlab.read_trace(run.trace_path)
    sent = [e["messages"] for e in events if e.get("event") == "request"]
    assert [len(f.messages) for f in frames] == sent
    assert [f.new_from for f in frames] == [0] + sent[:-1]
    assert frames[-1].messages == run.messages[: sent[-1]]


def test_a_trace_file_alone_gives_the_same_frames_as_the_run(run):
    from_run, from_file = turn_frames(run), turn_frames(run.trace_path)
    assert [f.messages for f in from_file] == [f.messages for f in from_run]
    assert [f.reprefill_tokens for f in from_file] == [t.reprefill_tokens for t in run.turns]
    assert from_file[-1].cum_input == run.input_tokens


def test_new_blocks_are_highlighted_and_old_ones_are_not(run):
    frame = turn_frames(run)[1]
    page = messages_html(frame)
    new_blocks = sum(
        1 if isinstance(m["content"], str) else len(m["content"]) for m in frame.messages[frame.new_from :]
    )
    assert page.count("agentlab-block agentlab-new") == new_blocks > 0
    assert page.count('class="agentlab-block"') == sum(
        1 if isinstance(m["content"], str) else len(m["content"]) for m in frame.messages[: frame.new_from]
    )


def test_tokens_show_the_turn_and_the_totals_so_far(run):
    frame = turn_frames(run)[1]
    page = tokens_html(frame, estimated=True)
    assert (
        f"<td>input tokens so far</td><td style='text-align:right'>{run.turns[0].input_tokens + run.turns[1].input_tokens}<"
        in page
    )
    assert "estimated" in page and "input: " not in page


def test_a_per_component_breakdown_is_shown_when_the_turn_has_one(run):
    run.turns[0].input_breakdown = {"system": 346, "tools": 120, "history": 0, "new": 30}
    page = tokens_html(turn_frames(run)[0])
    assert "input: system</td><td style='text-align:right'>346<" in page and "input: new" in page


def test_moving_the_slider_changes_messages_tokens_and_lanes(run):
    stepper = trace_stepper(run)
    assert stepper.slider.max == run.model_calls and stepper.slider.value == run.model_calls
    before = (stepper.messages.value, stepper.tokens.value, stepper.lane.value)
    stepper.slider.value = 1
    after = (stepper.messages.value, stepper.tokens.value, stepper.lane.value)
    assert all(a != b for a, b in zip(before, after))
    assert bytes(after[2]).startswith(PNG_MAGIC)
    assert "turn 1</b>" in stepper.tokens.value


def test_the_lane_figure_shades_the_chosen_turn(run):
    import matplotlib.pyplot as plt

    fig = lane_figure(agentlab.read_trace(run.trace_path), 2)
    ax = fig.axes[0]
    assert "model call 2 shaded" in ax.get_title()
    assert any(p.get_facecolor()[:3] == matplotlib.colors.to_rgb("#ffd54f") for p in ax.patches)
    plt.close(fig)


def test_a_turn_outside_the_run_is_refused_with_the_range(run):
    with pytest.raises(ValueError, match=f"turns 1 to {run.model_calls}"):
        trace_stepper(run, turn=run.model_calls + 1)


def test_static_mode_shows_the_figure_and_a_note_and_no_widget(run, monkeypatch):
    monkeypatch.setenv("AGENTLAB_WIDGETS", "static")
    bundle = trace_stepper(run)._repr_mimebundle_()
    assert WIDGET_MIME not in bundle
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    assert "Static view" in bundle["text/html"] and "<img src='data:image/png;base64," in bundle["text/html"]


def test_live_mode_offers_the_widget_with_the_static_copy_beside_it(run, monkeypatch):
    monkeypatch.setenv("AGENTLAB_WIDGETS", "live")
    bundle = trace_stepper(run)._repr_mimebundle_()
    assert bundle[WIDGET_MIME]["model_id"]
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)


def test_without_a_kernel_the_mode_is_static_and_a_bad_setting_is_named(monkeypatch):
    monkeypatch.delenv("AGENTLAB_WIDGETS", raising=False)
    assert widget_mode() == "static"  # pytest runs no IPython kernel
    monkeypatch.setenv("AGENTLAB_WIDGETS", "fancy")
    with pytest.raises(ValueError, match="AGENTLAB_WIDGETS='fancy'.*'static'"):
        widget_mode()


def _bar(height):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2))
    ax.bar(["x"], [height])
    ax.set_ylim(0, 10)
    return fig


def test_changing_a_control_reruns_and_redraws_the_figure():
    calls = []

    def run(height, label):
        calls.append((height, label))
        return _bar(height)

    panel = experiment_controls({"height": (1, 9, 2), "label": ["a", "b"]}, run)
    first = panel.figure.value
    panel.controls["height"].value = 8
    assert calls == [(2, "a"), (8, "a")]
    assert panel.figure.value != first and bytes(panel.figure.value).startswith(PNG_MAGIC)
    assert panel.values == {"height": 8, "label": "a"} and "height=8" in panel.status.value


def test_a_failing_rerun_is_shown_and_the_last_figure_stays():
    def run(height):
        if height > 5:
            raise RuntimeError(f"too high: {height}")
        return _bar(height)

    panel = experiment_controls({"height": (1, 9)}, run)
    good = panel.figure.value
    panel.controls["height"].value = 7
    assert panel.figure.value == good
    assert "RuntimeError: too high: 7" in panel.status.value


def test_a_failing_first_run_raises():
    def run(height):
        raise RuntimeError("broken experiment")

    with pytest.raises(RuntimeError, match="broken experiment"):
        experiment_controls({"height": (1, 9)}, run)


def test_a_control_spec_that_is_not_one_is_named():
    with pytest.raises(ValueError, match=r"control 'cities' = \(5, 2\).*\(low, high\)"):
        experiment_controls({"cities": (5, 2)}, lambda cities: _bar(1))


def test_the_city_experiment_reruns_the_simulator_for_more_cities(monkeypatch):
    monkeypatch.setenv("AGENTLAB_WIDGETS", "static")
    panel = city_experiment()
    assert set(panel.values) == {"model", "cities", "path", "max_turns", "one_per_turn"}
    two = panel.figure.value
    panel.controls["cities"].value = 3
    assert panel.runs == 2 and panel.figure.value != two
    panel.controls["path"].value = "workflow"
    assert panel.runs == 3 and "path='workflow'" in panel.status.value
    assert WIDGET_MIME not in panel._repr_mimebundle_()


@pytest.mark.slow  # starts a kernel (tests/conftest.py's SLOW says what is slow)
def test_in_a_kernel_without_a_frontend_the_widgets_leave_a_figure_and_no_error(tmp_path, monkeypatch):
    """nbclient runs a real kernel but no widget frontend: each display keeps its static PNG beside the widget."""
    import nbformat
    from notebook_store import execute

    monkeypatch.delenv("AGENTLAB_WIDGETS", raising=False)
    cells = [
        "import agentlab\nfrom agentlab.views.widgets import trace_stepper, widget_mode\n"
        f"run = agentlab.run_agent(agentlab.connect('sim', quiet=True), agentlab.city_task(['Paris', 'London']),\n"
        f"    agentlab.task_tools({str(tmp_path / 'notes')!r}), trace={str(tmp_path / 'a.jsonl')!r})\nprint(widget_mode())",
        "trace_stepper(run)",
        "import os\nos.environ['AGENTLAB_WIDGETS'] = 'static'\ntrace_stepper(run)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    execute(nb, timeout=120)
    outs = [c.outputs for c in nb.cells]
    assert outs[0][0]["text"].strip() == "live"
    assert not [o for cell in outs for o in cell if o["output_type"] == "error"]
    live, static = outs[1][0]["data"], outs[2][0]["data"]
    assert WIDGET_MIME in live and base64.b64decode(live["image/png"]).startswith(PNG_MAGIC)
    assert WIDGET_MIME not in static and "Static view" in static["text/html"]
