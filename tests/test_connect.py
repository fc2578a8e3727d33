import anthropic
import pytest

import agentlab
from agentlab.client import SIM_BASE_URL
from agentlab.run import turns_of


def test_auto_without_key_is_the_simulator_and_says_so(capsys):
    client = agentlab.connect()
    assert isinstance(client, anthropic.Anthropic)
    assert client.agentlab_mode == "sim" and str(client.base_url).startswith(SIM_BASE_URL)
    assert "simulated Claude" in capsys.readouterr().err


def test_auto_with_key_is_live_without_calling_anything(monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    client = agentlab.connect()
    assert client.agentlab_mode == "live" and "api.anthropic.com" in str(client.base_url)
    assert client.api_key == "sk-test-not-real"
    assert "live calls" in capsys.readouterr().err


def test_live_without_key_names_the_variable_and_the_simulator():
    with pytest.raises(agentlab.MissingAPIKey) as e:
        agentlab.connect("live")
    assert "ANTHROPIC_API_KEY" in str(e.value) and "mode='sim'" in str(e.value)


def test_base_url_reaches_a_compatible_server_without_a_key():
    client = agentlab.connect(base_url="http://127.0.0.1:11434", quiet=True)
    assert client.agentlab_mode == "live" and str(client.base_url).startswith("http://127.0.0.1:11434")


def test_bad_mode_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="mode must be 'auto', 'sim', 'live' or 'replay'"):
        agentlab.connect("offline")


def test_every_client_is_metered_even_a_students_own_loop(sim):
    meter = agentlab.meter_of(sim)
    sim.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=[{"role": "user", "content": "Hello"}])
    assert len(meter.calls) == 1 and meter.calls[0].estimated
    assert turns_of(meter)[0].cost_usd > 0


def test_plain_sdk_client_without_meter_gets_a_helpful_error():
    with pytest.raises(LookupError, match="middleware=\\[agentlab.Meter\\(\\)\\]"):
        agentlab.meter_of(anthropic.Anthropic(api_key="x"))


def test_default_model_is_known_to_the_sdk_and_not_deprecated():
    import typing

    from anthropic._data import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    sdk_ids = {a for arg in typing.get_args(ModelParam) for a in typing.get_args(arg)}
    assert agentlab.default_model() in sdk_ids and agentlab.default_model() not in DEPRECATED_MODELS


def test_unknown_price_is_none_not_zero():
    assert agentlab.cost_usd("claude-imaginary-9", {"input_tokens": 100, "output_tokens": 10}) is None
    assert agentlab.cost_usd("claude-haiku-4-5", {"input_tokens": 1_000_000, "output_tokens": 0}) == pytest.approx(1.0)


def test_cache_tokens_are_priced_apart_from_input():
    plain = agentlab.cost_usd("claude-haiku-4-5", {"input_tokens": 1000, "output_tokens": 0})
    cached = agentlab.cost_usd(
        "claude-haiku-4-5", {"input_tokens": 1000, "output_tokens": 0, "cache_read_input_tokens": 1000}
    )
    assert cached > plain


def test_public_api_names_all_resolve():
    for name in agentlab.__all__:
        assert getattr(agentlab, name) is not None, name
    assert sorted(agentlab.__all__) == sorted(agentlab._WHERE)


def test_a_raw_json_call_is_metered_too(sim):
    sim.post(
        "/v1/messages",
        cast_to=object,
        body={"model": "claude-haiku-4-5", "max_tokens": 20, "messages": [{"role": "user", "content": "Hello"}]},
    )
    assert agentlab.meter_of(sim).calls[-1].usage["input_tokens"] > 0


def test_stop_reason_covers_every_sdk_stop_reason():
    import typing

    from anthropic.types import StopReason as SDKStopReason

    assert set(typing.get_args(SDKStopReason)) - {"tool_use"} <= {r.value for r in agentlab.StopReason}


def test_unknown_model_in_sim_mode_is_refused_early_with_suggestions():
    with pytest.raises(
        ValueError, match=r"connect\(model='claude-sonet-4-6'\): no such model; did you mean 'claude-sonnet-4-6'"
    ):
        agentlab.connect("sim", model="claude-sonet-4-6")


def test_unknown_model_far_from_every_id_points_to_the_list_instead_of_guessing():
    with pytest.raises(
        ValueError, match=r"connect\(model='gpt-4o'\): no such model; `agentlab models` lists them"
    ) as e:
        agentlab.connect("sim", model="gpt-4o")
    assert "did you mean" not in str(e.value)


def test_offline_notice_is_a_plain_line_once_per_kernel_in_a_notebook(monkeypatch, capsys):
    import agentlab.client as client_module

    monkeypatch.setattr(client_module, "_in_notebook", lambda: True)
    monkeypatch.setattr(client_module, "_shown", set())
    agentlab.connect("sim")
    agentlab.connect("sim")
    out, err = capsys.readouterr()
    assert err == "" and out.count("simulated Claude") == 1


def test_offline_notice_goes_to_stderr_in_a_script(capsys):
    agentlab.connect("sim")
    out, err = capsys.readouterr()
    assert out == "" and "simulated Claude" in err
