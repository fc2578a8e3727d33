"""Request bodies the simulator refuses as the API does: a 400 naming what was wrong, never a 500 or a path (issue 22)."""

import sys
from pathlib import Path

import pytest
from sim_http import body, error, post

from agentlab.sim.server import MAX_JSON_DEPTH, Simulator, _lone_surrogate

sys.path.insert(0, str(Path(__file__).parent))
OK = b'{"model":"claude-sonnet-5-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]'


@pytest.mark.parametrize(
    "raw, words",
    [
        (OK.replace(b"claude-sonnet-5-5", b"\\ud800") + b"}", "no low surrogate in string: line 1 column 11 (char 10)"),
        (OK.replace(b"hi", b"\\udc00") + b"}", "no low surrogate"),
        (OK.replace(b"hi", b"\\ud800\\ud800") + b"}", "no low surrogate"),
        (OK + b',"metadata":' + b"[" * 990 + b"]" * 990 + b"}", "nested"),
        (OK + b',"metadata":' + b"[" * 5000 + b"]" * 5000 + b"}", "nested"),
        (OK.replace(b"10", b"9" * 4301) + b"}", "more than 4300 digits"),
        (OK.replace(b"10", b"NaN") + b"}", "NaN is not a JSON value"),
        (b"\xff\xfe" + OK + b"}", "not valid JSON"),
    ],
)
def test_a_body_the_parser_cannot_take_is_a_400_that_says_why(raw, words):
    status, kind, message = error(post(None, raw=raw))
    assert (status, kind) == (400, "invalid_request_error") and words in message, message


def test_nesting_up_to_the_limit_is_accepted():
    nested = b"[" * (MAX_JSON_DEPTH - 2) + b"]" * (MAX_JSON_DEPTH - 2)
    assert post(None, raw=OK + b',"metadata":{"x":' + nested + b"}}").status_code != 500


def test_paired_and_escaped_surrogate_lookalikes_are_text():
    assert _lone_surrogate(b'"\\ud83d\\ude00"') is None  # a pair: one emoji
    assert _lone_surrogate(b'"\\\\ud800"') is None  # an escaped backslash, then the letters ud800
    assert _lone_surrogate(b'"\\\\\\ud800"') == 3  # an escaped backslash, then a real lone escape
    assert post(None, raw=OK.replace(b"hi", b"\\ud83d\\ude00") + b"}").status_code == 200


def test_a_tool_name_given_as_a_dict_is_a_400():
    status, kind, message = error(post(body(tools=[{"name": {"a": 1}, "input_schema": {"type": "object"}}])))
    assert (status, kind) == (400, "invalid_request_error") and "name" in message


def test_a_policy_bug_is_a_500_naming_no_file_of_the_package():
    def broken(request):
        raise KeyError("oops")

    status, kind, message = error(post(body(), sim=Simulator(broken)))
    assert (status, kind) == (500, "api_error") and "KeyError" in message
    assert "agentlab" not in message and "/" not in message and "test_request_bodies.py" in message
