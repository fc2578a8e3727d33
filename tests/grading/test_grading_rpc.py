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


STUDENT = {"make_tools": _make_tools, "first_long_word": _first_long_word,
           "append": lambda xs, x: xs.append(x)}


@pytest.fixture
def student():
    """A trusted peer whose module calls run on a sandbox peer in a thread."""
    t_read, s_write = os.pipe()
    s_read, t_write = os.pipe()
    sandbox = rpc.Peer(os.fdopen(s_read, "rb"), os.fdopen(s_write, "wb"), "s",
                       handler=lambda module, name, args, kwargs: STUDENT[name])
    thread = threading.Thread(target=sandbox.serve, daemon=True)
    thread.start()
    trusted = rpc.Peer(os.fdopen(t_read, "rb"), os.fdopen(t_write, "wb"), "t")

    def get(name):
        return trusted.request({"op": "module_call", "module": "ex", "name": name, "args": [], "kwargs": {}})

    yield get
    trusted.send({"k": "end"})
    thread.join(timeout=10)


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

