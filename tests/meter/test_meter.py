"""The Meter: continuity by conversation (interleaved, threaded), cache tokens in what was re-sent."""

import json
import threading

import anthropic
import httpx2

import agentlab
from agentlab import meter_of
from agentlab.run import turns_of

MODEL = "claude-sonnet-5-5"


def _ask(client, messages):
    reply = client.messages.create(model=MODEL, max_tokens=200, messages=messages, tools=[agentlab.get_weather.spec()])
    return [b.model_dump(mode="json", exclude_none=True) for b in reply.content]


def _next(messages, content):
    results = agentlab.execute_tools(content, [agentlab.get_weather])
    return messages + [{"role": "assistant", "content": content}, {"role": "user", "content": results}]


def test_interleaved_conversations_each_keep_their_reprefill():
    alone = agentlab.connect("sim", quiet=True)
    a = [{"role": "user", "content": "Which is warmer, Paris or London?"}]
    _ask(alone, _next(a, _ask(alone, a)))
    want = meter_of(alone).calls[1].reprefill
    assert want > 0

    client = agentlab.connect("sim", quiet=True)
    b = [{"role": "user", "content": "Which is warmer, Rome or Berlin?"}]
    a1, b1 = _ask(client, a), _ask(client, b)  # two conversations, calls interleaved
    _ask(client, _next(a, a1))
    _ask(client, _next(b, b1))
    calls = meter_of(client).calls
    assert [c.conversation for c in calls] == [1, 2, 1, 2]
    assert [c.continues for c in calls] == [False, False, True, True]
    assert calls[2].reprefill == want and calls[3].reprefill > 0


def test_runs_in_parallel_threads_report_the_same_turns_as_alone(tmp_path):
    task = agentlab.city_task(["Paris", "London", "Rome"])
    solo = agentlab.run_agent(agentlab.connect("sim", quiet=True), task, agentlab.task_tools(tmp_path / "solo"))
    client = agentlab.connect("sim", quiet=True)
    runs = {}

    def work(i):
        runs[i] = agentlab.run_agent(client, task, agentlab.task_tools(tmp_path / str(i)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(meter_of(client).calls) == 4 * solo.model_calls
    for run in runs.values():
        assert [(t.input_tokens, t.reprefill_tokens) for t in run.turns] == [
            (t.input_tokens, t.reprefill_tokens) for t in solo.turns
        ]


def _cached_api(request):
    """Canned replies: call 1 writes 100 tokens to the cache, call 2 reads them."""
    body = json.loads(request.content)
    second = len(body["messages"]) > 1
    usage = (
        {"input_tokens": 20, "output_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0}
        if second
        else {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 100}
    )
    return httpx2.Response(
        200,
        json={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [{"type": "text", "text": "ok" if not second else "done"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        },
    )


def _two_cached_calls() -> agentlab.Meter:
    """A Meter that saw two calls to the canned API, the second reading and writing the prompt cache."""
    meter = agentlab.Meter()
    client = anthropic.Anthropic(
        api_key="x",
        base_url="https://canned.invalid",
        middleware=[meter],
        http_client=httpx2.Client(transport=httpx2.MockTransport(_cached_api)),
    )
    msgs = [{"role": "user", "content": "hi"}]
    client.messages.create(model=MODEL, max_tokens=10, messages=msgs)
    client.messages.create(
        model=MODEL,
        max_tokens=10,
        messages=msgs + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}],
    )
    return meter


def test_cache_reads_and_writes_count_in_what_was_resent():
    meter = _two_cached_calls()
    turns = turns_of(meter)
    assert turns[1].reprefill_tokens == 115  # min(20 + 100 read, 10 + 100 written + 5 out)
    assert turns[1].prompt_tokens == 120 and turns[1].breakdown is None  # a real API sends no parts


def test_turns_table_shows_cache_reads_and_writes_when_there_are_any():
    from agentlab.run import Run, StopReason
    from agentlab.views.display import turns_table

    meter = _two_cached_calls()
    run = Run("agent", MODEL, "done", StopReason.END_TURN, turns_of(meter), [], estimated=False)
    table = turns_table(run)
    assert list(table["input tokens"]) == [110, 120]
    assert list(table["of which cache reads"]) == [0, 100] and list(table["of which cache writes"]) == [100, 0]


def test_a_first_message_has_one_conversation_key_in_any_form_and_no_two_messages_share_one():
    from agentlab.meter.conversations import first_key

    task = "Compare Paris and London."
    same = [
        [{"role": "user", "content": task}],
        [{"role": "user", "content": [{"type": "text", "text": task}]}],
        [{"role": "user", "content": [{"type": "text", "text": task, "cache_control": {"type": "ephemeral"}}]}],
    ]
    assert len({first_key(m) for m in same}) == 1
    different = [
        [{"role": "user", "content": task}],
        [{"role": "assistant", "content": task}],
        [{"content": task}],
        [{"role": None, "content": task}],
        [{"role": "None", "content": task}],
        [{"role": 1, "content": task}],
        [{"role": "1", "content": task}],
        [{"role": "user\x00a", "content": "b"}],
        [{"role": "user", "content": "a\x00b"}],
        [{"role": "user", "content": task, "name": "x"}],
        [{"role": "user", "content": [{"type": "text", "text": task, "citations": None}]}],
        [{"role": "user", "content": [{"type": "text", "text": task}, {"type": "text", "text": task}]}],
    ]
    assert len({first_key(m) for m in different}) == len(different)
