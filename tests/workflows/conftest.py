import json

import pytest

import agentlab


def schema_of(info):
    """The JSON schema a request asked for (``output_config.format.schema``), or None."""
    return ((info.get("output_config") or {}).get("format") or {}).get("schema")


@pytest.fixture
def fake():
    """A simulated client whose model is your function ``fn(prompt, info) -> text``."""

    def make(fn):
        def policy(messages, info):
            return fn(messages[-1]["content"], info)

        return agentlab.connect("sim", policy=agentlab.FunctionModel(policy), quiet=True)

    return make


@pytest.fixture
def as_json():
    return lambda value: json.dumps(value)
