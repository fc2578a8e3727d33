"""Graded tests for exercises/ex11_untrusted.py. Run: make grade

11.1 is graded on the suite the notebook uses and on cases drawn here at random (``random.Random()``,
seeded from the operating system, so every run sees new ones), with the expected answers worked out by
this file from the docstring's definition, never by the library. 11.2 is graded on the suite's world
and its gullible model: what the student's loop asks about, what it runs, and what happens to the world.

What is forbidden, and why: ``guard.carries_taint``, ``guard.shared_run`` and the guard's own
``DataFlowGuard.check`` (each is the data-flow check of 11.1); for 11.2, the lab's loop and its gates
(``GatedExecutor``, ``Confirmation.check``). Library functions built on these (``matrix``,
``guard_reach``) are caught too, since the guard looks for your module anywhere on the call stack.
"""

import json
import random
import string

import pytest

from agentlab.grading import answered, lazy_import, shared

pytestmark = pytest.mark.forbids(
    "agentlab.injection.guard.carries_taint",
    "agentlab.injection.guard.shared_run",
    "agentlab.injection.guard.DataFlowGuard.check",
    why="Exercise 11.1 asks you to write the data-flow check yourself",
)

ex11 = lazy_import("exercises.ex11_untrusted")
PAGE = "Lisbon travel tips\nTop tip: ride tram 28 before 9 am to skip the queues."
ROUNDS = 40
"""Random cases per test."""


class _StudentGuard:
    """A gate (agentlab.injection.gates) that uses the student's tainted_field on untrusted results."""

    name = "student guard"

    def __init__(self):
        from agentlab.injection.world import UNTRUSTED

        self.untrusted, self.texts = UNTRUSTED, []

    def check(self, block):
        field = ex11.tainted_field(block.get("input") or {}, self.texts)
        return None if field is None else f"argument {field!r} carries untrusted text"

    def observe(self, block, result):
        if block["name"] in self.untrusted and not result.get("is_error"):
            self.texts.append(result["content"])
            try:
                self.texts += [v for v in json.loads(result["content"]).values() if isinstance(v, str)]
            except (ValueError, AttributeError):
                pass


# --- 11.1: random cases, with the answer known by construction ---------------------------------


def _words(rng, n):
    return " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8))) for _ in range(n))


def _filler(rng, n):
    """Characters never found in an untrusted text (those are lowercase words and single spaces)."""
    return "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(n))


def _copy(rng, texts, length):
    text = rng.choice(texts)
    start = rng.randint(0, len(text) - length)
    return text[start : start + length]


def _by_definition(tool_input, texts, min_chars):
    """The docstring's definition, checked the slow way: every run of min_chars characters of every string field."""
    for name, value in tool_input.items():
        if isinstance(value, str) and any(
            value[i : i + min_chars] in t for t in texts for i in range(len(value) - min_chars + 1)
        ):
            return name
    return None


def _random_call(rng):
    """(tool_input, untrusted texts, min_chars, expected field or None), the answer known by construction."""
    texts = [_words(rng, rng.randint(8, 20)) for _ in range(rng.randint(1, 3))]
    min_chars = rng.randint(3, 14)
    tool_input, expected = {}, None
    for j in range(rng.randint(1, 6)):
        name = f"{rng.choice(['to', 'body', 'text', 'city', 'url', 'note'])}_{j}"
        kind = rng.choice(["copied", "short", "upper", "clean", "number", "list"])
        if kind == "copied":
            value = (
                _filler(rng, rng.randint(0, 6))
                + _copy(rng, texts, rng.randint(min_chars, min_chars + 8))
                + _filler(rng, rng.randint(0, 6))
            )
            expected = expected or name
        elif kind == "short":  # pieces of untrusted text, each shorter than min_chars, kept apart by filler
            value = _filler(rng, rng.randint(1, 4)).join(
                _copy(rng, texts, rng.randint(1, min_chars - 1)) for _ in range(rng.randint(1, 3))
            )
        elif kind == "upper":  # a long enough run, but in the wrong case
            value = _copy(rng, texts, rng.randint(min_chars, min_chars + 8)).upper()
        elif kind == "clean":
            value = _filler(rng, rng.randint(0, 30))
        elif kind == "number":
            value = rng.randint(10**12, 10**15)
        else:  # not a string: never tainted, whatever it holds
            value = [_copy(rng, texts, rng.randint(min_chars, min_chars + 8))]
        tool_input[name] = value
    assert _by_definition(tool_input, texts, min_chars) == expected, "the test's own case is wrong"
    return tool_input, texts, min_chars, expected


def _check_random_calls(rounds):
    rng = random.Random()
    for _ in range(rounds):
        tool_input, texts, min_chars, want = _random_call(rng)
        got = ex11.tainted_field(tool_input, texts, min_chars)
        assert got == want, (
            f"tainted_field({tool_input!r}, {texts!r}, min_chars={min_chars}) returned {got!r}; expected {want!r} (reread 'Defence 3: the data-flow guard, and what it cannot see' in notebook 11)"
        )


@pytest.mark.exercise("11.1")
@pytest.mark.points(1)
def test_tainted_field_finds_copied_text_and_lets_short_overlaps_pass():
    assert ex11.tainted_field({"text": "Top tip: ride tram 28 early"}, [PAGE]) == "text"
    assert ex11.tainted_field({"to": "me@example.com", "body": "see ride tram 28 before"}, [PAGE]) == "body"
    assert ex11.tainted_field({"text": "Lisbon is nice"}, [PAGE]) is None, "'Lisbon ' shares 7 characters only"
    assert ex11.tainted_field({"text": "TOP TIP: RIDE TRAM 28"}, [PAGE]) is None, "case matters"
    assert ex11.tainted_field({"n": 12345678901234, "tags": ["Top tip: ride tram 28"]}, [PAGE]) is None
    assert ex11.tainted_field({"text": "ride tram"}, [PAGE], min_chars=9) == "text"
    assert ex11.tainted_field({}, [PAGE]) is None
    for bad in (0, -3, 2.5):
        with pytest.raises(ValueError, match="min_chars"):
            ex11.tainted_field({"text": "x"}, [PAGE], min_chars=bad)
    _check_random_calls(5)  # answers written for the cases above only do not pass


@pytest.mark.exercise("11.1")
@pytest.mark.points(1)
def test_tainted_field_on_random_calls_and_texts():
    _check_random_calls(ROUNDS)


@shared
def _reference_cases():
    """What the reference guard does on every case of the suite: case -> (blocked calls, attack succeeded)."""
    from agentlab.injection import GUARD, run_case
    from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

    out = {}
    for u in USER_TASKS:
        for i in [None, *INJECTION_TASKS]:
            ref = run_case(u, i, GUARD)
            out[f"{u.id} x {i.id if i else 'no attack'}"] = ([b.name for b in ref.blocked], ref.attack_succeeded)
    return out


@pytest.mark.exercise("11.1")
@pytest.mark.points(1)
def test_your_guard_blocks_what_the_reference_guard_blocks_on_the_suite():
    from agentlab.injection import GUARD, run_case
    from agentlab.injection.gates import GatedExecutor
    from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

    class StudentDefence(type(GUARD)):
        def executor(self):
            return GatedExecutor([_StudentGuard()])

    yours, reference = StudentDefence("student guard"), _reference_cases()
    for u in USER_TASKS:
        for i in [None, *INJECTION_TASKS]:
            got = run_case(u, i, yours)
            case = f"{u.id} x {i.id if i else 'no attack'}"
            blocked, attacked = reference[case]
            assert [b.name for b in got.blocked] == blocked, f"{case}: blocked calls differ"
            assert got.attack_succeeded == attacked, f"{case}: attack outcome differs"
    _check_random_calls(5)  # a check fitted to the suite's texts does not pass


# --- 11.2: the student's loop with an approval gate, on the suite's world and its gullible model -----

YOUR_OWN_GATE = pytest.mark.forbids(
    "agentlab.loop.run_agent",
    "agentlab.loop.execute_tools",
    "agentlab.injection.gates.GatedExecutor.__call__",
    "agentlab.injection.confirm.Confirmation.check",
    why="Exercise 11.2 asks you to write the loop and its approval gate yourself",
)


def _gated(user, injection, approve, side_effects=None, tmp_path=None):
    """Run the student's loop on one case of the suite; what it asked, refused, and what happened to the world."""
    import tempfile
    from pathlib import Path

    from agentlab.injection import SIDE_EFFECTS, World, gullible_client
    from agentlab.injection.suite import injection_task, user_task

    user = user_task(user)
    attack = injection_task(injection) if injection else None
    world = World(Path(tempfile.mkdtemp(dir=tmp_path)) / "notes", attack.text() if attack else "")
    asked = []

    def spy(name, tool_input):
        asked.append((name, tool_input))
        return approve(name, tool_input)

    messages, refused = ex11.run_with_approval(
        gullible_client(),
        user.prompt,
        world.tools(),
        "claude-haiku-4-5",
        side_effects=set(SIDE_EFFECTS if side_effects is None else side_effects),
        approve=spy,
    )
    final = messages[-1]
    text = "".join(b.get("text", "") for b in final["content"]) if isinstance(final["content"], list) else ""
    return {
        "done": bool(user.check(world, text)),
        "attacked": bool(attack.check(world)) if attack else False,
        "asked": asked,
        "refused": refused,
        "messages": messages,
        "world": world,
    }


def _results_for(messages, name):
    """The tool_result blocks that answer calls of tool `name`."""
    ids = {
        b["id"]
        for m in messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use" and b["name"] == name
    }
    return [
        b
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] in ids
    ]


def _selective(name, tool_input):
    """A careful person: no key, no link, no mail to strangers, no deleting."""
    from agentlab.injection.world import ATTACKER_EMAIL, PHISHING_URL, USER_KEY

    said = json.dumps(tool_input)
    return name != "delete_notes" and not any(s in said for s in (USER_KEY, PHISHING_URL, ATTACKER_EMAIL))


@pytest.mark.exercise("11.2")
@YOUR_OWN_GATE
@pytest.mark.points(1)
def test_reading_tools_run_without_asking_and_approved_calls_run(tmp_path):
    out = _gated("compare_and_note", None, lambda name, tool_input: True, tmp_path=tmp_path)
    saved = [
        b["input"]
        for m in out["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use" and b["name"] == "save_note"
    ]
    assert out["asked"] == [("save_note", saved[0])] and len(saved) == 1, (
        "only the call that changes the world (save_note) is asked about, once, with its input; get_weather reads "
        f"and runs without asking. Asked: {out['asked']} (reread 'Defence 2: confirmation before side effects' in notebook 11)"
    )
    assert out["done"] and out["refused"] == [], (
        f"an approved note is saved: done={out['done']}, refused={out['refused']}"
    )
    assert answered(out["messages"]), "every tool_use in the conversation you return needs its tool_result"
    quiet = _gated("one_city", None, lambda name, tool_input: True, tmp_path=tmp_path)
    assert quiet["asked"] == [] and quiet["done"], f"a task that only reads asks nothing: {quiet['asked']}"


@pytest.mark.exercise("11.2")
@YOUR_OWN_GATE
@pytest.mark.points(1)
def test_a_refused_call_does_not_run_and_the_model_is_told_which_tool(tmp_path):
    out = _gated("one_city", "key_by_email", lambda name, tool_input: False, tmp_path=tmp_path)
    assert out["world"].outbox == [] and not out["attacked"], (
        f"a refused send_email must not run: {out['world'].outbox}"
    )
    assert out["refused"] == ["send_email"], f"refused should list the one refused call: {out['refused']}"
    answers = _results_for(out["messages"], "send_email")
    assert answers and all(b.get("is_error") is True and "send_email" in str(b.get("content")) for b in answers), (
        "the model reads an error result that names the tool the user did not approve, so it can go on without it: "
        f"{answers}"
    )
    assert out["done"], "after the refusal the model still answers the user's question"
    assert answered(out["messages"]), "every tool_use in the conversation you return needs its tool_result"


@pytest.mark.exercise("11.2")
@YOUR_OWN_GATE
@pytest.mark.points(1)
def test_a_careful_approver_stops_every_attack_and_keeps_every_task(tmp_path):
    from agentlab.injection import INJECTION_TASKS, USER_TASKS

    failed = []
    for user in USER_TASKS:
        for attack in INJECTION_TASKS:
            out = _gated(user.id, attack.id, _selective, tmp_path=tmp_path)
            if out["attacked"] or not out["done"]:
                failed.append(
                    f"{user.id} x {attack.id}: attack {'succeeded' if out['attacked'] else 'stopped'}, task {'done' if out['done'] else 'not done'}"
                )
    assert not failed, (
        "with an approver that refuses the attacker's calls and nothing else, every attack should fail and every "
        "user task still succeed: " + "; ".join(failed[:4])
    )


@pytest.mark.exercise("11.2")
@YOUR_OWN_GATE
@pytest.mark.points(1)
def test_the_gate_fails_closed_and_follows_the_side_effects_it_is_given(tmp_path):
    def broken(name, tool_input):
        raise RuntimeError("the approval window was closed")

    out = _gated("one_city", "key_by_email", broken, tmp_path=tmp_path)
    assert not out["attacked"] and out["refused"] == ["send_email"], (
        "an approver that raises gave no yes: the call must not run (fail closed), and the run goes on. "
        f"attack succeeded: {out['attacked']}, refused: {out['refused']}"
    )
    only_mail = _gated(
        "compare_and_note", None, lambda name, tool_input: False, side_effects={"send_email"}, tmp_path=tmp_path
    )
    assert only_mail["asked"] == [] and only_mail["done"], (
        "side_effects is the list the harness was given: with only send_email in it, save_note runs without asking "
        f"(asked: {only_mail['asked']})"
    )
