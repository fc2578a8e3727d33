"""The channel between a trusted test and the student's sandbox (``agentlab.grading.channel``), both ends in
this process over two pipes: only data crosses, functions as handles called with data, a client as its API."""

from __future__ import annotations

import os
import threading
import time
import types

import pytest

from agentlab.grading import channel


def _make_tools(seats):
    """A student function that builds tools around its argument (exercise 7.1's shape)."""

    def book(seat):
        seats.remove(seat)
        return f"Booked {seat}."

    return {"book": book, "count": lambda: len(seats)}


def _first_long_word(words, texts):
    """A student function that only reads its arguments (exercise 11.1's shape)."""
    return next((w for w in words if len(w) > 3 and any(w in t for t in texts)), None)


class _Liar(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class _Rewinding(list):
    def __iter__(self):
        return iter(["what the test wants"])


def _ask(client, text, **options):
    reply = client.messages.create(
        model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": text}], **options
    )
    return reply.content[0].text if not options.get("stream") else "".join(e.type for e in reply)


def _dig(fn):
    """What a cheating student tries on anything the grader hands over."""
    return [type(fn).__name__, sorted(a for a in dir(fn) if not a.startswith("_")), fn._peer.side]


STUDENT = types.SimpleNamespace(
    make_tools=_make_tools,
    first_long_word=_first_long_word,
    append=lambda xs, x: xs.append(x),
    wait=lambda: RELEASE.wait(10),
    echo=lambda value: value,
    count_with=lambda count, text: count(text),
    call=lambda fn, *args: fn(*args),
    ask=_ask,
    dig=_dig,
    liar=lambda: [_Liar("wrong"), _Rewinding(["wrong"])],
    an_object=lambda: threading.Lock(),
    sandbox_copies=lambda: len(SANDBOX[0].mirrors),
    CONSTANT={"budget": 120},
)
SANDBOX: list = []
RELEASE = threading.Event()
LOOKUPS: list = []


def _module(name):
    LOOKUPS.append(name)
    return STUDENT


@pytest.fixture
def student():
    """A trusted peer whose module lookups and calls are served by a sandbox peer in a thread."""
    t_read, s_write = os.pipe()
    s_read, t_write = os.pipe()
    sandbox = channel.Peer(os.fdopen(s_read, "rb"), os.fdopen(s_write, "wb"), "s", module=_module)
    SANDBOX[:] = [sandbox]
    thread = threading.Thread(target=sandbox.serve, daemon=True)
    thread.start()
    trusted = channel.Peer(os.fdopen(t_read, "rb"), os.fdopen(t_write, "wb"), "t")

    def get(name):
        return trusted.get("ex", name)

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


def test_a_call_still_waiting_on_the_sandbox_keeps_the_channel_busy(student):
    waiting = threading.Thread(target=student("wait"), daemon=True)  # a tool call the executor gave up on
    waiting.start()
    deadline = time.monotonic() + 10
    while not student.peer.busy() and time.monotonic() < deadline:  # until the call is under way (bounded)
        time.sleep(0.01)
    assert student.peer.busy()
    RELEASE.set()
    waiting.join(timeout=10)
    assert not student.peer.busy()


TABLE = [1]


def test_a_changed_argument_that_outlives_its_test_is_named_and_the_tests_own_are_not(student):
    local, unchanged = [1], {"a": 1}
    try:
        student("append")(local, 2)
        student("append")(TABLE, 2)  # a module-level table: a later test would see it changed
        student("echo")(unchanged)
        assert local == [1, 2] and TABLE == [1, 2]
        del local
        assert student.peer.outliving() == [TABLE]  # the one still held by something besides the channel
    finally:
        TABLE[:] = [1]


def test_a_change_made_later_by_a_tool_built_around_the_argument_comes_back(student):
    seats = ["1A", "1B"]
    tools = student("make_tools")(seats)
    assert isinstance(tools["book"], channel.Remote)  # the student's function, called by value
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
        {"$": "H", "mine": False, "id": 1, "n": "client"},  # a dict that looks like a handle is only data
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, None, True, 1.5, 2**70],
        {"point": (1, 2), 3: "an int key", "nested": [{"tags": {"a", "b"}}]},  # not plain JSON: tagged, rebuilt exactly
        [b"bytes", ("tuple",), frozenset({1})],
    ],
)
def test_a_value_crosses_and_comes_back_exactly_as_it_was(student, value):
    back = student("echo")(value)
    assert back == value and type(back) is type(value)


def test_a_module_constant_is_data_and_read_anew_each_time(student):
    assert student("CONSTANT") == {"budget": 120}
    LOOKUPS.clear()
    student("CONSTANT")
    assert LOOKUPS == ["ex"]  # data is not kept: the module may rebind it


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
    assert LOOKUPS == ["ex07_parallel"]  # not once a call (a property test calls it hundreds of times)


def test_a_pure_lab_function_crosses_by_name_and_runs_in_the_sandbox(student):
    from agentlab.api.tokens import text_tokens

    assert student("echo")(text_tokens) is text_tokens  # back as the trusted side's own function, not a handle
    count_with, trusted = student("count_with"), student.peer
    trusted.touched = False
    assert count_with(text_tokens, "two words") == text_tokens("two words") and count_with(len, "abc") == 3
    assert not trusted.touched  # the calls ran in the sandbox: nothing was run here for the student


def test_a_function_the_test_passes_is_called_with_data_and_answers_data(student):
    seen = []

    def spy(x):
        seen.append(x)
        return {"got": x}

    assert student("call")(spy, [1, (2, 3)]) == {"got": [1, (2, 3)]} and seen == [[1, (2, 3)]]


def test_what_a_graders_function_returns_must_be_data(student):
    def leaky():
        return (i for i in range(3))  # a generator: its frame would lead to the grader's globals

    with pytest.raises(TypeError, match="cannot cross"):
        student("call")(leaky)


def test_a_handle_offers_the_student_nothing_but_a_call(student):
    kind, public, side = student("dig")(lambda: None)
    assert kind == "Remote" and public == []
    assert side == "s"  # the one object behind it is the sandbox's own end of the pipe: nothing of this process


def test_an_object_the_test_passes_is_refused_before_anything_crosses(student):
    with pytest.raises(channel.NotData, match="cannot cross"):
        student("echo")(iter([1, 2]))


def test_a_value_the_student_returns_is_plain_data_judged_here(student):
    liar, rewinding = student("liar")()
    assert type(liar) is str and liar != "right" and liar == "wrong"
    assert type(rewinding) is list and rewinding == ["wrong"]
    with pytest.raises(TypeError, match="type lock cannot cross"):
        student("an_object")()


def test_a_class_this_side_has_not_imported_comes_back_as_its_fields():
    peer = channel.Peer(None, None, "t")
    back = peer.decode({"$": "C", "c": "agentlab.not_imported_here:Thing", "v": {"a": 1}})
    assert back == {"a": 1}
    import sys

    assert "agentlab.not_imported_here" not in sys.modules


def test_a_client_crosses_as_its_api_and_the_tests_meter_sees_every_call(student):
    import anthropic

    import agentlab

    client = agentlab.connect("sim", quiet=True)
    ask = student("ask")
    assert ask(client, "Say hello.")
    assert ask(client, "Say hello.", stream=True).startswith("message_start")
    assert len(agentlab.meter_of(client).calls) == 2
    with pytest.raises(TypeError, match="type Anthropic cannot cross"):
        student("call")(lambda c: c, client)  # the student's copy is not handed back: it is not data
    with pytest.raises(anthropic.BadRequestError):
        ask(client, "")  # the simulator's own 400 reaches the student's SDK, and its error comes back here


def test_a_name_outside_the_portable_functions_is_refused():
    with pytest.raises(channel.ChannelClosed, match="not a function that crosses by name"):
        channel.Peer(None, None, "t").decode({"$": "N", "n": "os:system"})


def test_a_spy_a_test_puts_in_place_of_a_portable_function_stays_a_handle(monkeypatch):
    import agentlab.api.tokens as tokens

    real = tokens.text_tokens
    monkeypatch.setattr(tokens, "text_tokens", lambda text: real(text))  # the test counts the calls through it
    peer = channel.Peer(None, None, "t")
    assert peer.encode(tokens.text_tokens, handles=True)["$"] == "H" and peer.encode(real)["$"] == "N"
    assert peer.decode(peer.encode(real)) is real  # the name brings back the function itself, not the spy


def test_a_handle_kept_from_an_earlier_test_fails_with_a_reason():
    peer = channel.Peer(None, None, "s")
    peer.ended = True  # its test is over; the student's module kept the tool it was given
    with pytest.raises(channel.StaleHandle, match="came from an earlier test"):
        channel.Remote(peer, 1, "get_weather")("Paris")


def test_naming_a_lazy_name_of_the_lab_runs_no_module_getattr_here(monkeypatch):
    import sys

    asked = []
    lazy = types.ModuleType("agentlab.lazy_probe")
    lazy.__getattr__ = lambda name: asked.append(name) or type(name, (), {})  # as agentlab's lazy imports work
    monkeypatch.setitem(sys.modules, "agentlab.lazy_probe", lazy)
    back = channel.Peer(None, None, "t").decode({"$": "C", "c": "agentlab.lazy_probe:Budget", "v": {"a": 1}})
    assert back == {"a": 1} and asked == []  # only what the module defines is rebuilt: its __getattr__ never ran
