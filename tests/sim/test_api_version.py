"""The anthropic-version header decides the rules, as it does on the API."""

from __future__ import annotations

import anthropic
import pytest
from sim_http import body, error, post


def test_missing_version_header_is_rejected():
    r = post(body(), headers={"anthropic-version": None})
    assert error(r) == (400, "invalid_request_error", "anthropic-version: header is required")


def test_unknown_version_is_rejected():
    r = post(body(), headers={"anthropic-version": "2024-10-22"})
    assert error(r) == (400, "invalid_request_error", 'anthropic-version: "2024-10-22" is not a valid version')


@pytest.mark.parametrize("field,value", [("temperature", 1.0), ("top_p", 1.0), ("top_k", 5)])
def test_2026_10_21_rejects_sampling_parameters_even_at_defaults(field, value):
    r = post(body("claude-sonnet-4-6", **{field: value}))
    assert error(r) == (400, "invalid_request_error", f"{field}: Extra inputs are not permitted")


def test_2023_06_01_accepts_sampling_parameters_where_the_model_takes_them():
    r = post(body("claude-sonnet-4-6", temperature=0.2, top_k=5), headers={"anthropic-version": "2023-06-01"})
    assert r.status_code == 200, r.text


def test_2023_06_01_rejects_sampling_where_the_model_deprecates_it():
    r = post(body("claude-sonnet-5-5", temperature=0.2), headers={"anthropic-version": "2023-06-01"})
    assert error(r) == (400, "invalid_request_error", "temperature is deprecated for this model")


def test_2023_06_01_sonnet_5_takes_only_default_sampling_values():
    ok = post(body("claude-sonnet-5", temperature=1), headers={"anthropic-version": "2023-06-01"})
    bad = post(body("claude-sonnet-5", temperature=0.5), headers={"anthropic-version": "2023-06-01"})
    assert ok.status_code == 200 and error(bad)[0] == 400


def test_2026_10_21_rejects_a_document_block_in_an_assistant_message():
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    msgs = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [doc]},
        {"role": "user", "content": "and?"},
    ]
    status, _, message = error(post(body(messages=msgs)))
    assert status == 400 and message.startswith("messages.1.content.0: `document` blocks are not allowed")
    assert post(body(messages=msgs), headers={"anthropic-version": "2023-06-01"}).status_code == 200


def test_2026_10_21_rejects_citations_on_user_text():
    cited = {
        "type": "text",
        "text": "Paris is warm.",
        "citations": [
            {
                "type": "char_location",
                "cited_text": "x",
                "document_index": 0,
                "start_char_index": 0,
                "end_char_index": 1,
            }
        ],
    }
    status, _, message = error(post(body(messages=[{"role": "user", "content": [cited]}])))
    assert status == 400 and "`citations`" in message


def test_undocumented_top_level_field_is_an_extra_input():
    assert error(post(body(foo=1))) == (400, "invalid_request_error", "foo: Extra inputs are not permitted")


@pytest.mark.parametrize(
    "field,value",
    [
        ("metadata", {"user_id": "u1"}),
        ("service_tier", "auto"),
        ("thinking", {"type": "adaptive"}),
        ("output_config", {"effort": "low"}),
        ("context_management", {"edits": []}),
        ("container", None),
        ("mcp_servers", []),
        ("stop_sequences", ["END"]),
        ("system", "Be brief."),
        ("inference_geo", "global"),
    ],
)
def test_documented_top_level_fields_pass(field, value):
    r = post(body(**{field: value}))
    assert r.status_code == 200, r.text


def test_the_installed_sdk_passes_its_own_version(sim):
    msg = sim.messages.create(model="claude-sonnet-5-5", max_tokens=50, messages=[{"role": "user", "content": "Hello"}])
    assert msg.stop_reason == "end_turn"
    with pytest.raises(anthropic.BadRequestError, match="temperature: Extra inputs are not permitted"):
        sim.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=50,
            messages=[{"role": "user", "content": "Hi"}],
            extra_body={"temperature": 1.0},
        )
