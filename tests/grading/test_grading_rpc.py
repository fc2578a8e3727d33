"""The channel between a trusted test and the student's sandbox (``agentlab.grading.rpc``), both ends
in this process over two pipes: how an argument changed in the sandbox comes back, and that a stale
copy never overwrites what the test changed itself."""

from __future__ import annotations

import os
import threading

import pytest

from agentlab.grading import rpc


def _make_tools(seats):
    """A student function that builds tools around its argument (exercise 7.1's shape)."""

    def book(seat):
        seats.remove(seat)
        return f"Booked {seat}."

    return {"book": book, "count": lambda: len(seats)}


def _first_long_word(words, texts):
    """A student function that only reads its arguments (exercise 11.1's shape)."""
    return next((w for w in words if len(w) > 3 and any(w in t for t in texts)), None)


STUDENT = {
    "make_tools": _make_tools,
    "first_long_word": _first_long_word,
    "append": lambda xs, x: xs.append(x),
    "echo": lambda value: value,
    "count_with": lambda count, text: count(text),
    "sandbox_copies": lambda: len(SANDBOX[0].mirrors),
}
SANDBOX: list = []
LOOKUPS: list = []


@pytest.fixture
def student():
    """A trusted peer whose module calls run on a sandbox peer in a thread."""
    t_read, s_write = os.pipe()
    s_read, t_write = os.pipe()
    sandbox = rpc.Peer(
        os.fdopen(s_read, "rb"),
        os.fdopen(s_write, "wb"),
        "s",
        handler=lambda module, name, args, kwargs: LOOKUPS.append(name) or STUDENT[name],
    )
    SANDBOX[:] = [sandbox]
    thread = threading.Thread(target=sandbox.serve, daemon=True)
    thread.start()
    trusted = rpc.Peer(os.fdopen(t_read, "rb"), os.fdopen(t_write, "wb"), "t")

    def get(name):
        return trusted.request({"op": "module_call", "module": "ex", "name": name, "args": [], "kwargs": {}})

    get.peer = trusted
    yield get
    trusted.send({"k": "end"})
    thread.join(timeout=10)
    SANDBOX.clear()
    for f in (trusted.rfile, trusted.wfile, sandbox.rfile, sandbox.wfile):  # no unclosed pipe left for the exit
        f.close()


def test_an_argument_changed_in_place_is_seen_by_the_test(student):
    xs = [1]
    student("append")(xs, 2)
    assert xs == [1, 2]


def test_a_change_made_later_by_a_tool_built_around_the_argument_comes_back(student):
    seats = ["1A", "1B"]
    tools = student("make_tools")(seats)
    assert tools["book"]("1A") == "Booked 1A."
    assert seats == ["1B"] and tools["count"]() == 1


def test_what_the_test_changes_after_a_call_is_not_overwritten_by_the_sandbox_copy(student):
    texts = ["ride tram 28"]
    words = ["tram"]
    find = student("first_long_word")
    assert find(words, texts) == "tram"
    texts.append("a second page")  # the test's own change, after the call
    words.append("page")
    assert find(["none"], ["x"]) is None  # another call: its answer carries no stale copy of texts or words
    assert texts == ["ride tram 28", "a second page"] and words == ["tram", "page"]


@pytest.mark.parametrize(
    "value",
    [
        {"$": "R", "side": "t", "id": 1, "n": "client"},  # a dict that looks like a reference is only data
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, None, True, 1.5, 2**70],
        {"point": (1, 2), 3: "an int key", "nested": [{"tags": {"a", "b"}}]},  # not plain JSON: tagged, rebuilt exactly
        [b"bytes", ("tuple",), frozenset({1})],
    ],
)
def test_a_value_crosses_and_comes_back_exactly_as_it_was(student, value):
    back = student("echo")(value)
    assert back == value and type(back) is type(value)
    if isinstance(value, dict) and "$" in value:
        assert not isinstance(back, rpc.Proxy)


def test_copies_of_arguments_the_sandbox_no_longer_holds_are_let_go(student):
    echo = student("echo")
    for i in range(50):  # fresh lists each call, as a property test sends them
        echo([{"name": f"part{i}", "tokens": i}])
    assert student("sandbox_copies")() <= 2  # not one copy per call, each re-read before every message


def test_a_student_function_is_looked_up_once_a_test_then_each_call_is_one_round_trip(student, monkeypatch):
    from agentlab.grading import lazy

    monkeypatch.setattr(lazy, "remote", student.peer)
    ex = lazy.lazy_import("exercises.ex07_parallel")
    LOOKUPS.clear()
    assert [ex.echo(i) for i in range(5)] == list(range(5))
    assert LOOKUPS == ["echo"]  # not once a call (a property test calls it hundreds of times)


def test_a_pure_lab_function_crosses_by_name_and_runs_in_the_sandbox(student):
    from agentlab.api.tokens import text_tokens

    assert student("echo")(text_tokens) is text_tokens  # back as the trusted side's own function, not a reference
    count_with, trusted = student("count_with"), student.peer
    trusted.touched = False
    assert count_with(text_tokens, "two words") == text_tokens("two words") and count_with(len, "abc") == 3
    assert not trusted.touched  # the calls ran in the sandbox: nothing was run here for the student


def test_a_name_outside_the_portable_functions_is_refused():
    with pytest.raises(rpc.ChannelClosed, match="not a function that crosses by name"):
        rpc.Peer(None, None, "t").decode({"$": "N", "n": "os:system"})


def test_a_spy_a_test_puts_in_place_of_a_portable_function_stays_a_reference(monkeypatch):
    import agentlab.api.tokens as tokens

    real = tokens.text_tokens
    monkeypatch.setattr(tokens, "text_tokens", lambda text: real(text))  # the test counts the calls through it
    peer = rpc.Peer(None, None, "t")
    assert peer.encode(tokens.text_tokens)["$"] == "R" and peer.encode(real)["$"] == "N"
    assert peer.decode(peer.encode(real)) is real  # the name brings back the function itself, not the spy


def test_a_reference_kept_from_an_earlier_test_fails_with_a_reason():
    peer = rpc.Peer(None, None, "s")
    peer.ended = True  # its test is over; the student's module kept the client it was given
    with pytest.raises(rpc.StaleReference, match="came from an earlier test"):
        rpc.Proxy(peer, "t", 1, "Anthropic").messages
