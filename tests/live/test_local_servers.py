"""A local Anthropic-compatible server at base_url: what it lacks degrades with one line, and no paid
call is sent twice because of it (the stand-in: tests/live/local_standin.py, offline)."""

import anthropic
import pytest
from local_standin import counted, local_server, paid

import agentlab
from agentlab.live.compat import NOT_REPORTED, is_anthropic, is_local, no_token_counting
from agentlab.live.errors import explain
from agentlab.views.display import turns_table

LOCAL = "http://127.0.0.1:11434"
"""Where Ollama listens by default (https://docs.ollama.com/api/anthropic-compatibility)."""

KEY = "sk-ant-api03-" + "Lq4" * 14 + "-LOCALtail"
"""A key that must never be printed, even to a server that ignores it."""

NO_COUNTING = (
    f"agentlab: the server at {LOCAL} has no token counting (count_tokens answered HTTP 404); input "
    "tokens are the usage the server reports, not split into parts (Turn.breakdown is None), and the run "
    "goes on"
)
NO_CACHE = (
    f"agentlab: the server at {LOCAL} reports no cache reads or writes (its usage has no cache fields: it "
    "ignores cache_control); caching figures show as 'not reported by this server', not as 0 tokens saved"
)


def _resent(field):
    return (
        f"agentlab: the server at {LOCAL} refused {field} (HTTP 400); sent once more without it, free on this "
        "machine, and left out of later calls: the model now picks its own tools, and the loop's guards "
        "(max_turns, Limits) still bound the run"
    )


def _lines(capsys, start="agentlab: the server at"):
    out = capsys.readouterr()
    assert KEY not in out.out + out.err
    return [ln for ln in (out.out + out.err).splitlines() if ln.startswith(start)]


def _connect(transport, base_url=LOCAL, model="qwen3-coder", **options):
    return agentlab.connect("live", base_url=base_url, model=model, api_key=KEY, transport=transport, **options)


def _ask(client, tmp_path, model="qwen3-coder", **options):
    tools = [t.spec() for t in agentlab.task_tools(tmp_path)]
    return client.messages.create(
        model=model,
        max_tokens=200,
        tools=tools,
        messages=[{"role": "user", "content": agentlab.city_task(["Paris", "London"])}],
        **options,
    )


def test_no_count_tokens_is_said_once_and_asked_no_more_and_every_paid_call_goes_once(tmp_path, capsys):
    transport, seen = local_server()
    client = _connect(transport, count_parts=True)
    run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
    assert run.stop_reason.value == "end_turn" and run.model_calls >= 2
    assert len(paid(seen)) == run.model_calls == len(agentlab.meter_of(client).calls)  # none sent twice
    assert counted(seen) == 1  # the first 404 ends the counting for this client
    assert all(t.breakdown is None for t in run.turns) and run.input_tokens > 0  # the server's own usage
    assert _lines(capsys) == [NO_COUNTING]


def test_a_404_about_the_model_is_not_taken_for_a_missing_endpoint():
    import httpx2

    def error(status, body):
        response = httpx2.Response(status, request=httpx2.Request("POST", f"{LOCAL}/v1/messages/count_tokens"))
        return anthropic.APIStatusError("x", response=response, body=body)

    assert no_token_counting(error(404, "404 page not found")) and no_token_counting(error(501, None))
    assert not no_token_counting(
        error(404, {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-sonet-4-5"}})
    )
    assert not no_token_counting(error(429, None))


def test_a_server_that_ignores_cache_control_shows_caching_as_not_reported(tmp_path, capsys):
    transport, _ = local_server()
    run = agentlab.run_agent(
        _connect(transport), agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path), cache=True
    )
    assert not run.cache_reported and not any(t.cache_reported for t in run.turns)
    table = turns_table(run)
    assert set(table["of which cache reads"]) == {NOT_REPORTED} == set(table["of which cache writes"])
    assert _lines(capsys) == [NO_CACHE]


def test_a_server_that_reports_cache_fields_shows_its_numbers(tmp_path, capsys):
    from live_standin import standin

    transport, _ = standin()
    run = agentlab.run_agent(
        _connect(transport, model="claude-haiku-5-5"),
        agentlab.city_task(["Paris", "London"]),
        agentlab.task_tools(tmp_path),
        cache=True,
    )
    table = turns_table(run)
    assert run.cache_reported and all(t.cache_reported for t in run.turns) and NOT_REPORTED not in table.to_string()
    assert _lines(capsys) == []


def test_a_refused_tool_choice_on_this_machine_is_sent_once_more_without_it(tmp_path, capsys):
    transport, seen = local_server()
    client = _connect(transport)
    reply = _ask(client, tmp_path, tool_choice={"type": "any"})
    assert reply.stop_reason == "tool_use"
    sent = paid(seen)
    assert len(sent) == 2 and "tool_choice" in sent[0] and "tool_choice" not in sent[1]  # the 400, then one resend
    _ask(client, tmp_path, tool_choice={"type": "any"})  # later calls leave it out up front: one request, no 400
    assert len(paid(seen)) == 3 and "tool_choice" not in paid(seen)[2]
    assert _lines(capsys) == [_resent("tool_choice")]
    assert [a.status for a in agentlab.meter_of(client).attempts] == [400, 200, 200]  # the refusal is on record


def test_a_refused_disable_parallel_tool_use_keeps_the_rest_of_tool_choice(tmp_path, capsys):
    transport, seen = local_server(refuses=("disable_parallel_tool_use",))
    client = _connect(transport)
    _ask(client, tmp_path, tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert [s.get("tool_choice") for s in paid(seen)] == [
        {"type": "auto", "disable_parallel_tool_use": True},
        {"type": "auto"},
    ]
    assert _lines(capsys) == [_resent("disable_parallel_tool_use")]


def test_a_streamed_call_with_a_refused_tool_choice_is_resent_once_too(tmp_path, capsys):
    transport, seen = local_server()
    client = _connect(transport)
    with client.messages.stream(
        model="qwen3-coder",
        max_tokens=200,
        tool_choice={"type": "any"},
        tools=[t.spec() for t in agentlab.task_tools(tmp_path)],
        messages=[{"role": "user", "content": agentlab.city_task(["Paris", "Oslo"])}],
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use" and len(paid(seen)) == 2
    assert _lines(capsys) == [_resent("tool_choice")]
    assert not agentlab.meter_of(client).calls[-1].cache_reported


@pytest.mark.parametrize(
    "base_url, model", [("https://gpu-box.example.org", "qwen3-coder"), (LOCAL, "claude-haiku-5-5")]
)
def test_where_a_call_may_be_billed_the_refusal_is_explained_and_nothing_is_resent(tmp_path, capsys, base_url, model):
    """A remote server may bill each call, and a Claude id on localhost may be a proxy to the paid API."""
    transport, seen = local_server()
    client = _connect(transport, base_url=base_url, model=model, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as e:
        _ask(client, tmp_path, model=model, tool_choice={"type": "tool", "name": "get_weather"})
    assert len(paid(seen)) == 1
    line = explain(e.value, client.base_url)
    assert "\n" not in line and KEY not in line
    assert f"at {client.base_url} answered HTTP 400 invalid_request_error: tool_choice: not supported" in line
    assert "does not take tool_choice: send the request without it" in line
    assert _lines(capsys) == []


def test_the_connect_line_says_a_local_model_is_neither_claude_nor_the_simulator(capsys):
    transport, _ = local_server()
    _connect(transport)
    said = _lines(capsys, "agentlab: live calls")
    assert said == [
        f"agentlab: live calls to {LOCAL} with qwen3-coder, a server that is not Anthropic's API: usage "
        "is what it reports, its model is neither Claude nor the simulator; no spending cap "
        "(connect(max_usd=...))."
    ]


def test_which_hosts_are_this_machine_and_which_are_anthropic():
    assert all(
        map(is_local, ["http://localhost:11434", "http://127.0.0.1:8080", "http://[::1]:8000", "http://127.8.0.1"])
    )
    assert not any(map(is_local, ["https://api.anthropic.com", "http://192.168.1.5:11434", "https://ollama.com", None]))
    assert is_anthropic("https://api.anthropic.com") and not is_anthropic("https://anthropic.com.evil.example")


def test_the_notebooks_environment_route_goes_live_to_the_local_server_and_a_cap_says_to_drop_it(
    monkeypatch, tmp_path, capsys
):
    """The README's setup for the notebooks: base URL, any key and the model in the environment, MAX_USD = None."""
    from agentlab.live.session import _defaults, use

    monkeypatch.setenv("ANTHROPIC_BASE_URL", LOCAL)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ollama")
    monkeypatch.setenv("AGENTLAB_MODEL", "qwen3-coder")
    transport, seen = local_server()
    try:
        use("auto", max_usd=None)
        client = agentlab.connect(transport=transport)
        run = agentlab.run_agent(client, agentlab.city_task(["Paris", "London"]), agentlab.task_tools(tmp_path))
        assert (client.agentlab_mode, run.model, run.stop_reason.value) == ("live", "qwen3-coder", "end_turn")
        assert run.cost_usd is None and len(paid(seen)) == run.model_calls
        use("auto", max_usd=0.5)
        refused = agentlab.run_agent(agentlab.connect(transport=transport), "hi", [])
        assert refused.stop_reason.value == "usd_budget" and "no known price" in refused.detail
        assert "drop max_usd (MAX_USD = None in a notebook's parameter cell)" in refused.detail
        assert len(paid(seen)) == run.model_calls  # the refused call was never sent
    finally:
        _defaults.clear()
    capsys.readouterr()
