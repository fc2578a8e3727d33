"""The simulator's prompt cache: usage sums, lifetimes on the clock, minimum length, breakpoint limit."""

import anthropic
import httpx2
import pytest

from agentlab.api.tokens import estimate_input_tokens
from agentlab.sim.caching import PromptCache, SimClock, min_cacheable_tokens, request_blocks
from agentlab.sim.server import Simulator

MODEL = "claude-opus-5"  # documented minimum: 512 tokens
LONG = " ".join(f"word{i}" for i in range(700))  # ~700+ tokens: above Opus 5's minimum


def _client(clock=None):
    sim = Simulator(lambda req: "ok", clock=clock)
    client = anthropic.Anthropic(
        api_key="x", base_url="https://sim.invalid", max_retries=0, http_client=httpx2.Client(transport=sim.transport())
    )
    return client, sim


def _ask(client, system, question="Hi?", model=MODEL, **kw):
    return client.messages.create(
        model=model, max_tokens=50, system=system, messages=[{"role": "user", "content": question}], **kw
    )


def _cached_system(ttl=None):
    cc = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return [{"type": "text", "text": LONG, "cache_control": cc}]


def test_blocks_add_up_to_the_estimated_input_tokens():
    body = {
        "model": MODEL,
        "system": [{"type": "text", "text": "sys"}, {"type": "text", "text": LONG}],
        "tools": [{"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}}],
        "messages": [
            {"role": "user", "content": "hello there"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "x", "name": "t", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "42"}]},
        ],
    }
    assert sum(b.tokens for b in request_blocks(body)) == estimate_input_tokens(body)


def test_first_call_writes_second_reads_and_usage_sums_to_the_total():
    client, _ = _client(SimClock())
    first, second = _ask(client, _cached_system()), _ask(client, _cached_system())
    total = estimate_input_tokens(
        {"model": MODEL, "system": _cached_system(), "messages": [{"role": "user", "content": "Hi?"}]}
    )
    for u in (first.usage, second.usage):
        assert u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens == total
    assert first.usage.cache_creation_input_tokens > 512 and first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation.ephemeral_5m_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0


def test_five_minute_entry_expires_on_the_clock_and_a_read_refreshes_it():
    clock = SimClock()
    client, _ = _client(clock)
    _ask(client, _cached_system())
    clock.advance(250)
    assert _ask(client, _cached_system()).usage.cache_read_input_tokens > 0  # read at ~250 s: lifetime restarts
    clock.advance(250)
    assert _ask(client, _cached_system()).usage.cache_read_input_tokens > 0  # 500 s after the write, 250 after the read
    clock.advance(301)
    late = _ask(client, _cached_system()).usage
    assert late.cache_read_input_tokens == 0 and late.cache_creation_input_tokens > 0


def test_one_hour_entry_outlives_five_minutes_and_is_reported_as_1h():
    clock = SimClock()
    client, _ = _client(clock)
    first = _ask(client, _cached_system("1h")).usage
    assert first.cache_creation.ephemeral_1h_input_tokens == first.cache_creation_input_tokens > 0
    assert first.cache_creation.ephemeral_5m_input_tokens == 0
    clock.advance(30 * 60)
    assert _ask(client, _cached_system("1h")).usage.cache_read_input_tokens == first.cache_creation_input_tokens
    clock.advance(3601)
    assert _ask(client, _cached_system("1h")).usage.cache_read_input_tokens == 0


def test_prefix_below_the_models_minimum_is_silently_not_cached():
    client, _ = _client(SimClock())
    short = [{"type": "text", "text": "You are brief.", "cache_control": {"type": "ephemeral"}}]
    for _ in range(2):
        u = _ask(client, short).usage
        assert (u.cache_creation_input_tokens, u.cache_read_input_tokens) == (0, 0)
    minimum, status = min_cacheable_tokens("claude-haiku-4-5")
    assert (minimum, status) == (4096, "documented")
    u = _ask(client, _cached_system(), model="claude-haiku-4-5").usage  # ~700 tokens < 4096
    assert u.cache_creation_input_tokens == 0


def test_more_than_four_breakpoints_is_a_400_naming_the_count():
    client, _ = _client()
    system = [{"type": "text", "text": f"part {i}", "cache_control": {"type": "ephemeral"}} for i in range(4)]
    _ask(client, system)  # four is allowed
    with pytest.raises(anthropic.BadRequestError, match="maximum of 4 blocks with cache_control.*Found 5"):
        _ask(client, system, cache_control={"type": "ephemeral"})  # the automatic one makes five


def test_1h_after_5m_is_rejected():
    client, _ = _client()
    system = [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    ]
    with pytest.raises(anthropic.BadRequestError, match="1h"):
        _ask(client, system)


def test_automatic_caching_follows_a_growing_conversation():
    client, _ = _client(SimClock())
    messages = [{"role": "user", "content": LONG}]
    reads = []
    for i in range(3):
        r = client.messages.create(model=MODEL, max_tokens=50, messages=messages, cache_control={"type": "ephemeral"})
        reads.append(r.usage.cache_read_input_tokens)
        messages += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": f"and {i}?"}]
    assert reads[0] == 0 and 0 < reads[1] < reads[2]


def test_a_changed_prefix_misses():
    cache = PromptCache()
    body = {"model": MODEL, "system": _cached_system(), "messages": [{"role": "user", "content": "q"}]}
    cache.apply(body, estimate_input_tokens(body), 0)
    other = {**body, "system": [{**_cached_system()[0], "text": LONG + " changed"}]}
    assert cache.apply(other, estimate_input_tokens(other), 1)["cache_read_input_tokens"] == 0


def test_no_cache_control_means_no_cache_fields_move():
    body = {"model": MODEL, "system": LONG, "messages": [{"role": "user", "content": "q"}]}
    u = PromptCache().apply(body, 1234, 0)
    assert u == {"input_tokens": 1234, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def test_text_sent_as_a_string_reads_the_prefix_its_one_block_form_wrote():
    """The loop's moving breakpoint turns the newest message into a block with cache_control; sent again as a
    string on the next turn it is the same prompt, as the API renders it."""
    cache, marked = PromptCache(), [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}]
    first = {"model": MODEL, "messages": [{"role": "user", "content": marked}]}
    later = [{"role": "user", "content": LONG}, {"role": "assistant", "content": "ok"}]
    second = {"model": MODEL, "messages": [*later, {"role": "user", "content": [{**marked[0], "text": "and?"}]}]}
    wrote = cache.apply(first, estimate_input_tokens(first), 0.0)["cache_creation_input_tokens"]
    assert wrote > min_cacheable_tokens(MODEL)[0]
    assert cache.apply(second, estimate_input_tokens(second), 1.0)["cache_read_input_tokens"] == wrote


DEFERRED = {
    "name": "lookup_refund_policy",
    "defer_loading": True,
    "description": "Refund policy for an order, with every exception the shop allows. " * 5,
    "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}
FOUND = [
    {"role": "user", "content": "Refund?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "search", "input": {"q": "refund"}}]},
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "s1",
                "content": [{"type": "tool_reference", "tool_name": "lookup_refund_policy"}],
            }
        ],
    },
]


def test_a_deferred_tool_loaded_later_keeps_the_cached_prefix_and_is_counted_where_it_is_loaded():
    """Docs (tool-use-with-prompt-caching): a discovered deferred tool "is appended inline ... The prefix is untouched"."""
    search = {"name": "search", "description": "Find a tool.", "input_schema": {"type": "object"}}
    base = {"model": MODEL, "tools": [search, DEFERRED], "system": _cached_system()}
    before = {**base, "messages": FOUND[:1]}
    after = {**base, "messages": FOUND}
    blocks = request_blocks(after)
    assert sum(b.tokens for b in blocks) == estimate_input_tokens(after)  # counted once, at the reference
    from agentlab.api.tokens import MESSAGE_FRAME, content_tokens, tool_def_tokens

    loaded = tool_def_tokens(DEFERRED, model=MODEL)
    assert blocks[1].tokens == 0  # in the tools, a deferred tool is nothing
    own = MESSAGE_FRAME + content_tokens(FOUND[-1]["content"], model=MODEL)
    assert blocks[-1].tokens == own + loaded  # counted where it was loaded
    cache = PromptCache()
    wrote = cache.apply(before, estimate_input_tokens(before), 0.0)["cache_creation_input_tokens"]
    assert wrote > 0 and cache.apply(after, estimate_input_tokens(after), 1.0)["cache_read_input_tokens"] == wrote
