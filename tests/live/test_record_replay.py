"""A run recorded live (against a stand-in that answers like the API) replays offline into the same Run."""

import anthropic
import pytest
from live_standin import standin

import agentlab
from agentlab import run_agent
from agentlab.live.cassette import BadCassette, CassetteMismatch
from agentlab.live.errors import explain

KEY = "sk-ant-api03-" + "Rk9" * 14 + "-recordtail "
TASK = "Which is warmer, Paris or London? Save a note."


def _record(tmp_path, **options):
    transport, seen = standin()
    client = agentlab.connect(
        "live",
        api_key=KEY,
        transport=transport,
        record=tmp_path / "run.yaml",
        quiet=True,
        model="claude-sonnet-5-5",
        **options,
    )
    return client, seen


def test_a_recorded_run_replays_offline_into_the_same_run_byte_for_byte(tmp_path):
    live, seen = _record(tmp_path, count_parts=True)
    recorded = run_agent(live, TASK, agentlab.task_tools(tmp_path / "notes"), trace=tmp_path / "live.jsonl")
    replay = agentlab.connect(
        "replay", cassette=tmp_path / "run.yaml", quiet=True, model="claude-sonnet-5-5", count_parts=True
    )
    (tmp_path / "notes").rename(tmp_path / "notes-live")
    replayed = run_agent(replay, TASK, agentlab.task_tools(tmp_path / "notes"), trace=tmp_path / "replay.jsonl")
    assert (tmp_path / "live.jsonl").read_bytes() == (tmp_path / "replay.jsonl").read_bytes()
    assert recorded.model_calls >= 3 and replay.agentlab_replayer.played == len(seen)  # count_tokens calls too
    same = ("final_text", "stop_reason", "messages", "tool_results", "model")
    assert {k: getattr(recorded, k) for k in same} == {k: getattr(replayed, k) for k in same}
    assert [(t.input_tokens, t.output_tokens, t.breakdown) for t in recorded.turns] == [
        (t.input_tokens, t.output_tokens, t.breakdown) for t in replayed.turns
    ]
    assert recorded.turns[1].breakdown.source == "count_tokens" and not recorded.estimated
    saved = (tmp_path / "run.yaml").read_text()
    assert KEY.strip() not in saved and "authorization" not in saved.lower() and "agentlab-" not in saved


def test_a_streamed_call_is_recorded_and_replayed(tmp_path):
    live, _ = _record(tmp_path)
    ask = {"model": "claude-sonnet-5-5", "max_tokens": 200, "messages": [{"role": "user", "content": "Say hello."}]}
    with live.messages.stream(**ask) as s:
        text = s.get_final_text()
    replay = agentlab.connect("replay", cassette=tmp_path / "run.yaml", quiet=True)
    with replay.messages.stream(**ask) as s:
        assert s.get_final_text() == text and text
    assert len(agentlab.meter_of(replay).calls) == 1


def test_a_request_that_differs_says_which_field_differs_first(tmp_path):
    live, _ = _record(tmp_path)
    ask = {"model": "claude-sonnet-5-5", "max_tokens": 50, "messages": [{"role": "user", "content": "Say hello."}]}
    live.messages.create(**ask)
    replay = agentlab.connect("replay", cassette=tmp_path / "run.yaml", quiet=True, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError) as e:
        replay.messages.create(**{**ask, "messages": [{"role": "user", "content": "Say goodbye."}]})
    assert isinstance(e.value.__cause__, CassetteMismatch)
    line = explain(e.value)
    assert "interaction 1" in line and 'messages[0].content[0].text: recorded "Say hello.", sent "Say goodbye."' in line
    replay.messages.create(**ask)  # the recorded one still plays
    with pytest.raises(anthropic.APIConnectionError) as e:
        replay.messages.create(**ask)
    assert "all were played" in str(e.value.__cause__)


@pytest.mark.parametrize(
    "text",
    [
        "!!python/object/apply:os.system ['echo pwned']\n",
        "interactions:\n- request: !!python/object/apply:os.system ['echo pwned']\n  response: {}\n",
        "requests: [1]\nresponses: [not a response]\n",
        "{{{ not yaml",
    ],
)
def test_a_hostile_or_broken_cassette_is_refused_without_running_anything(tmp_path, text, capfd):
    path = tmp_path / "evil.yaml"
    path.write_text(text)
    with pytest.raises(BadCassette, match="evil.yaml"):
        agentlab.connect("replay", cassette=path, quiet=True)
    assert "pwned" not in capfd.readouterr().out


def test_replay_needs_a_cassette_and_record_needs_live(tmp_path):
    with pytest.raises(ValueError, match="needs cassette=PATH"):
        agentlab.connect("replay", quiet=True)
    with pytest.raises(ValueError, match="record= goes with mode='live'"):
        agentlab.connect("replay", cassette=tmp_path / "x.yaml", record=tmp_path / "x.yaml", quiet=True)
    with pytest.raises(BadCassette, match="no such file"):
        agentlab.connect("replay", cassette=tmp_path / "missing.yaml", quiet=True)


def test_a_notebooks_parameter_cell_sends_every_auto_connect_to_the_same_replay(tmp_path):
    """agentlab.use(...) as the parameter cell calls it: two connects continue one cassette; a rerun restarts it."""
    from agentlab.client import use

    ask = {"model": "claude-sonnet-5-5", "max_tokens": 30, "messages": [{"role": "user", "content": "Say hello."}]}
    sim = agentlab.connect("sim", record=tmp_path / "nb.yaml", quiet=True)
    first, second = sim.messages.create(**ask).content[0].text, sim.messages.create(**ask).content[0].text
    try:
        for _ in range(2):  # the notebook run twice in one kernel
            use("replay", cassette=tmp_path / "nb.yaml")
            a, b = agentlab.connect(quiet=True), agentlab.connect(quiet=True)
            assert a.agentlab_mode == "replay" and a.messages.create(**ask).content[0].text == first
            assert b.messages.create(**ask).content[0].text == second
            assert agentlab.meter_of(a).estimated()  # a simulated recording still says so
        use("sim")
        assert agentlab.connect(quiet=True).agentlab_mode == "sim"
    finally:
        use("auto")


def test_compare_replays_a_recorded_live_comparison_with_every_row_filled(tmp_path, capsys):
    from agentlab.cli import main

    live, _ = _record(tmp_path, count_parts=True)
    out = tmp_path / "runs"
    agentlab.compare(live, ["Paris", "London"], out / "notes", trace_dir=out)
    (out / "notes").rename(tmp_path / "notes-live")
    capsys.readouterr()
    assert (
        main(["compare", "--replay", str(tmp_path / "run.yaml"), "--out", str(out), "--png", str(tmp_path / "c.png")])
        == 0
    )
    printed = capsys.readouterr().out
    assert "unknown" not in printed and "of which history" in printed


def test_requests_sent_out_of_recorded_order_by_threads_each_get_their_own_answer(tmp_path):
    live, _ = _record(tmp_path)
    asks = [
        {"model": "claude-sonnet-5-5", "max_tokens": 30, "messages": [{"role": "user", "content": f"Say {w}."}]}
        for w in ("one", "two")
    ]
    answers = [live.messages.create(**a).content[0].text for a in asks]
    replay = agentlab.connect("replay", cassette=tmp_path / "run.yaml", quiet=True, max_retries=0)
    assert [replay.messages.create(**a).content[0].text for a in reversed(asks)] == answers[::-1]
    assert replay.agentlab_replayer.played == 2 and replay.agentlab_replayer.refused == []
    with pytest.raises(anthropic.APIConnectionError):
        replay.messages.create(**asks[0])
    assert len(replay.agentlab_replayer.refused) == 1 and "all were played" in replay.agentlab_replayer.refused[0]


def test_a_session_that_sends_nothing_leaves_an_empty_cassette_whose_replay_refuses_any_call(tmp_path):
    """A notebook whose calls are all simulated: recording it live writes an empty cassette, which loads."""
    from agentlab.client import use

    path = tmp_path / "none.yaml"
    try:
        use("live", record=path)
        assert path.is_file()
        use("replay", cassette=path)
        replay = agentlab.connect(quiet=True, max_retries=0)
        assert replay.agentlab_replayer.played == 0 and replay.agentlab_replayer.cassette.data == []
        with pytest.raises(anthropic.APIConnectionError) as e:
            replay.messages.create(
                model="claude-sonnet-5-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        assert "holds no interactions: the recorded run sent no calls" in str(e.value.__cause__)
        assert "POST /v1/messages" in str(e.value.__cause__)
    finally:
        use("auto")


def test_the_recorder_appends_what_vcrpy_would_write_for_the_whole_cassette(tmp_path):
    import yaml
    from vcr.serialize import serialize
    from vcr.serializers import yamlserializer

    live, _ = _record(tmp_path)
    assert yaml.safe_load((tmp_path / "run.yaml").read_text()) == {"interactions": [], "version": 1}
    for word in ("one", "two", "three"):
        live.messages.create(
            model="claude-sonnet-5-5", max_tokens=30, messages=[{"role": "user", "content": f"Say {word}."}]
        )
    from agentlab.live.cassette import _recorders

    data = _recorders[(tmp_path / "run.yaml").resolve()].cassette.data
    whole = serialize({"requests": [r for r, _ in data], "responses": [r for _, r in data]}, yamlserializer)
    assert yaml.safe_load((tmp_path / "run.yaml").read_text()) == yaml.safe_load(whole)
    assert (
        len(agentlab.connect("replay", cassette=tmp_path / "run.yaml", quiet=True).agentlab_replayer.cassette.data) == 3
    )


def test_a_run_recorded_through_agentlab_serve_behind_a_stripping_proxy_replays_byte_for_byte(tmp_path):
    """The issue's own set-up: the real ``agentlab serve`` (its own process), a proxy in front that strips
    the simulator's headers, a live client recording through it; then replay with no server at all."""
    import os
    import re
    import select
    import subprocess
    import sys
    import time

    from live_standin import forward_to, serve_standin

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen(
        [sys.executable, "-m", "agentlab", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        line, deadline = "", time.monotonic() + 120
        while "http://" not in line and time.monotonic() < deadline and server.poll() is None:
            if select.select([server.stdout], [], [], 1.0)[0]:
                line = server.stdout.readline()
        upstream = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert upstream, f"agentlab serve did not say where it listens: {line!r}"
        base, stop = serve_standin(handler=forward_to(upstream.group(0)))
        try:
            live = agentlab.connect(
                "live",
                api_key=KEY,
                base_url=base,
                record=tmp_path / "run.yaml",
                quiet=True,
                model="claude-sonnet-5-5",
                count_parts=True,
            )
            recorded = run_agent(live, TASK, agentlab.task_tools(tmp_path / "notes"), trace=tmp_path / "live.jsonl")
        finally:
            stop()
    finally:
        server.terminate()
        server.wait(30)
    assert recorded.stop_reason.value == "end_turn" and not recorded.estimated  # the proxy hid that it was simulated
    replay = agentlab.connect(
        "replay", cassette=tmp_path / "run.yaml", quiet=True, model="claude-sonnet-5-5", count_parts=True
    )
    (tmp_path / "notes").rename(tmp_path / "notes-live")
    run_agent(replay, TASK, agentlab.task_tools(tmp_path / "notes"), trace=tmp_path / "replay.jsonl")
    assert (tmp_path / "live.jsonl").read_bytes() == (tmp_path / "replay.jsonl").read_bytes()
    assert replay.agentlab_replayer.played == len(stop.seen) >= recorded.model_calls >= 2
    saved = (tmp_path / "run.yaml").read_text()
    assert KEY.strip() not in saved and "agentlab-" not in saved
