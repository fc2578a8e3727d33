"""The Message Batches endpoints on the simulator, through the real SDK's ``client.messages.batches``."""

import anthropic
import pytest

import agentlab
from agentlab.sim.batches import EXPIRES_S, MAX_REQUESTS, RESULTS_KEPT_S
from agentlab.sim.clock import SimClock

MODEL = "claude-sonnet-5-5"


def _params(**kw):
    return {"model": MODEL, "max_tokens": 100, "messages": [{"role": "user", "content": "Weather in Paris?"}], **kw}


@pytest.fixture
def client():
    c = agentlab.connect("sim", model=MODEL, quiet=True)
    c.agentlab_simulator.clock = SimClock()
    return c


def _wait(client, seconds):
    client.agentlab_simulator.batches.wait(seconds)


def test_a_batch_is_in_progress_then_ends_on_the_clock_and_its_results_decode(client):
    batch = client.messages.batches.create(
        requests=[{"custom_id": "one", "params": _params()}, {"custom_id": "two", "params": _params(max_tokens=50)}]
    )
    assert batch.processing_status == "in_progress" and batch.results_url is None
    assert batch.request_counts.processing == 2
    with pytest.raises(anthropic.AnthropicError, match="results_url"):  # the SDK's own refusal before the end
        client.messages.batches.results(batch.id)
    _wait(client, 3600)
    done = client.messages.batches.retrieve(batch.id)
    assert done.processing_status == "ended" and done.request_counts.succeeded == 2
    assert done.ended_at > done.created_at and (done.expires_at - done.created_at).total_seconds() == EXPIRES_S
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert set(results) == {"one", "two"}
    assert all(r.type == "succeeded" and r.message.usage.service_tier == "batch" for r in results.values())


def test_a_batch_answers_each_request_as_the_messages_endpoint_does(client):
    direct = client.messages.create(**_params())
    batch = client.messages.batches.create(requests=[{"custom_id": "x", "params": _params()}])
    _wait(client, 3600)
    (line,) = list(client.messages.batches.results(batch.id))
    assert [b.model_dump() for b in line.result.message.content] == [b.model_dump() for b in direct.content]
    assert line.result.message.usage.input_tokens == direct.usage.input_tokens


def test_an_invalid_request_is_an_errored_result_and_the_others_succeed(client):
    batch = client.messages.batches.create(
        requests=[
            {"custom_id": "ok", "params": _params()},
            {"custom_id": "no-model", "params": _params(model="claude-nope")},
            {"custom_id": "bad-temp", "params": _params(temperature=7)},
            {"custom_id": "prewarm", "params": _params(max_tokens=0)},
        ]
    )
    _wait(client, 3600)
    counts = client.messages.batches.retrieve(batch.id).request_counts
    assert (counts.succeeded, counts.errored) == (1, 3)
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["ok"].type == "succeeded"
    assert results["no-model"].error.error.type == "not_found_error"
    assert results["bad-temp"].error.error.type == "invalid_request_error"
    assert "cache pre-warming" in results["prewarm"].error.error.message


@pytest.mark.parametrize(
    "requests, words",
    [
        ([], "1 to 100000"),
        ([{"custom_id": "has space", "params": _params()}], "custom_id"),
        ([{"custom_id": "a" * 65, "params": _params()}], "custom_id"),
        ([{"custom_id": "a", "params": _params()}, {"custom_id": "a", "params": _params()}], "used twice"),
        ([{"custom_id": "a"}], "requests.0.params"),
    ],
)
def test_a_malformed_batch_is_refused_whole_with_a_400(client, requests, words):
    with pytest.raises(anthropic.BadRequestError, match=words):
        client.messages.batches.create(requests=requests)


def test_more_than_the_documented_request_limit_is_refused(client):
    one = {"custom_id": "a", "params": {}}
    with pytest.raises(anthropic.BadRequestError, match="got 100001 requests"):
        client.messages.batches.create(requests=[one] * (MAX_REQUESTS + 1))


def test_cancel_makes_a_batch_canceling_then_ended_with_every_request_canceled(client):
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
    with pytest.raises(anthropic.BadRequestError, match="cannot be deleted"):
        client.messages.batches.delete(batch.id)
    assert client.messages.batches.cancel(batch.id).processing_status == "canceling"
    _wait(client, 5)
    done = client.messages.batches.retrieve(batch.id)
    assert done.processing_status == "ended" and done.request_counts.canceled == 1 and done.cancel_initiated_at
    assert [r.result.type for r in client.messages.batches.results(batch.id)] == ["canceled"]
    assert client.messages.batches.delete(batch.id).type == "message_batch_deleted"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.batches.retrieve(batch.id)


def test_results_are_gone_after_29_days_and_list_is_newest_first(client):
    first = client.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
    second = client.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
    assert [b.id for b in client.messages.batches.list()] == [second.id, first.id]
    assert [b.id for b in client.messages.batches.list(limit=1, after_id=second.id)] == [first.id]
    _wait(client, RESULTS_KEPT_S)
    assert client.messages.batches.retrieve(first.id).archived_at is not None
    with pytest.raises(anthropic.NotFoundError, match="29 days"):
        list(client.messages.batches.results(first.id))


def test_a_batch_that_would_take_over_24_hours_expires(client):
    client.agentlab_simulator.batches.queue_s = EXPIRES_S + 1
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
    _wait(client, EXPIRES_S)
    assert client.messages.batches.retrieve(batch.id).request_counts.expired == 1


def test_waiting_on_the_default_clock_moves_only_the_batches(client):
    plain = agentlab.connect("sim", model=MODEL, quiet=True)  # time.monotonic: nothing sleeps, nothing moves it
    batch = plain.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
    plain.agentlab_simulator.batches.wait(3600)
    assert plain.messages.batches.retrieve(batch.id).processing_status == "ended"


def test_a_plain_sdk_client_runs_a_batch_over_http():
    import threading

    from agentlab.sim.serve import make_server
    from agentlab.sim.server import Simulator

    sim = Simulator(clock=SimClock())
    server = make_server(sim, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = anthropic.Anthropic(
            api_key="anything", base_url=f"http://127.0.0.1:{server.server_address[1]}", max_retries=0
        )
        batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": _params()}])
        assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
        sim.batches.wait(3600)
        (line,) = list(client.messages.batches.results(batch.id))
        assert line.custom_id == "a" and line.result.type == "succeeded"
    finally:
        server.shutdown()
        server.server_close()
