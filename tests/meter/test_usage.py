"""Usage: one call's token counts as one typed value, read once from the API's usage."""

from __future__ import annotations

import pytest
from anthropic.types import Usage as SDKUsage

from agentlab.meter.prices import cost_usd
from agentlab.meter.record import prompt_total
from agentlab.meter.usage import Usage
from agentlab.run import turns_of

API = {
    "input_tokens": 12,
    "output_tokens": 30,
    "cache_read_input_tokens": 500,
    "cache_creation_input_tokens": 80,
    "cache_creation": {"ephemeral_5m_input_tokens": 20, "ephemeral_1h_input_tokens": 60},
}


def test_usage_from_api_reads_every_field_and_the_one_hour_share():
    assert Usage.from_api(API) == Usage(
        input_tokens=12, output_tokens=30, cache_read_tokens=500, cache_write_tokens=80, cache_write_1h_tokens=60
    )


def test_usage_from_api_treats_missing_fields_as_zero():
    assert Usage.from_api({"input_tokens": 7, "cache_read_input_tokens": None, "cache_creation": None}) == Usage(7)
    assert Usage.from_api({}) == Usage.from_api(None) == Usage()


def test_usage_from_api_reads_the_sdks_usage_object_as_its_json():
    sdk = SDKUsage.model_validate(API)
    assert Usage.from_api(sdk) == Usage.from_api(API)
    assert Usage.from_api(SDKUsage(input_tokens=3, output_tokens=4)) == Usage(3, 4)


def test_prompt_total_counts_cache_reads_and_writes():
    assert Usage.from_api(API).prompt_total == 12 + 500 + 80
    assert prompt_total(API) == 592  # the meter's function says the same


def test_usages_add_field_by_field():
    a, b = Usage(1, 2, 3, 4, 1), Usage(10, 20, 30, 40, 5)
    assert a + b == Usage(11, 22, 33, 44, 6)
    assert sum([a, b]) == sum([a, b], Usage()) == a + b


def test_as_api_gives_back_the_api_shape_with_the_write_split():
    u = Usage.from_api(API)
    assert u.as_api() == API
    assert Usage.from_api(u.as_api()) == u


def test_a_usage_is_priced_as_its_api_json():
    assert cost_usd("claude-opus-5", Usage.from_api(API)) == cost_usd("claude-opus-5", API) is not None


@pytest.mark.parametrize("bad", [{"input_tokens": -1}, {"output_tokens": "12"}, {"cache_read_tokens": 1.5}])
def test_a_count_that_is_not_a_whole_number_names_the_field(bad):
    ((name, value),) = bad.items()
    with pytest.raises(ValueError, match=rf"Usage\({name}={value!r}\)"):
        Usage(**bad)


def test_one_hour_writes_cannot_exceed_all_writes():
    with pytest.raises(ValueError, match="cache_write_1h_tokens=5"):
        Usage(cache_write_tokens=4, cache_write_1h_tokens=5)


def test_a_metered_call_keeps_the_responses_usage_as_one_value(sim):
    import agentlab

    reply = sim.messages.create(model="claude-opus-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}])
    call = agentlab.meter_of(sim).calls[-1]
    assert call.tokens == Usage.from_api(reply.usage) and call.usage == call.tokens.as_api()
    assert turns_of(agentlab.meter_of(sim))[-1].tokens == call.tokens


def test_reprefill_is_what_the_earlier_call_sent_and_wrote_never_more_than_this_input():
    earlier = Usage(input_tokens=100, cache_read_tokens=40, output_tokens=30)  # sent 140, wrote 30
    assert Usage(input_tokens=500).reprefill_after(earlier) == 170
    assert Usage(input_tokens=120).reprefill_after(earlier) == 120  # capped at this call's own input
    assert Usage(input_tokens=0, cache_read_tokens=300).reprefill_after(earlier) == 170  # cache reads are input too
    assert Usage(input_tokens=500).reprefill_after(None) == 0  # a first call re-sends nothing
