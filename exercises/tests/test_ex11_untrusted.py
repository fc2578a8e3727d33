"""Graded tests for exercises/ex11_untrusted.py. Run: make grade

Each exercise is graded on the suite the notebook uses and on cases drawn here at random
(``random.Random()``, seeded from the operating system, so every run sees new ones). Every test
of 11.1 and 11.2 ends with a few random cases, so an answer fitted to the suite's cases or to the
hand-made ones earns no points. Expected answers for
the random cases are worked out by this file from the definitions in the exercises' docstrings,
never by the library.

What is forbidden, and why: ``guard.carries_taint``, ``guard.shared_run`` and the guard's own
``DataFlowGuard.check`` (each is the data-flow check of 11.1), ``metrics.summarize`` (the metrics of
11.2), ``analysis.reachable`` and ``analysis.reachable_share`` (the reachability of 11.3). Library
functions built on these (``matrix``, ``guard_reach``, ``reachability_table``) are caught too,
since the guard looks for your module anywhere on the call stack.
"""

import json
import random
import string

import pytest

from agentlab.grading import lazy_import, shared

pytestmark = pytest.mark.forbids(
    "agentlab.injection.guard.carries_taint",
    "agentlab.injection.guard.shared_run",
    "agentlab.injection.guard.DataFlowGuard.check",
    "agentlab.injection.metrics.summarize",
    "agentlab.injection.analysis.reachable",
    "agentlab.injection.analysis.reachable_share",
    why="Exercise 11 asks you to write the check, the metrics and the reachability yourself",
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
            f"tainted_field({tool_input!r}, {texts!r}, min_chars={min_chars}) returned {got!r}; expected {want!r}"
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


# --- 11.2 ---------------------------------------------------------------------------------------


def _share(rows, key):
    return sum(1 for r in rows if r[key]) / len(rows)


def _random_results(rng):
    """Random case results in the exercise's format, in random order."""
    ids = ["".join(rng.choice(string.ascii_lowercase) for _ in range(6)) for _ in range(rng.randint(1, 6))]
    benign = [
        {"injection": None, "utility": rng.random() < 0.7, "attack_succeeded": False} for _ in range(rng.randint(1, 12))
    ]
    attacked = [
        {"injection": rng.choice(ids), "utility": rng.random() < 0.5, "attack_succeeded": rng.random() < 0.5}
        for _ in range(rng.randint(1, 40))
    ]
    rows = benign + attacked
    rng.shuffle(rows)
    want = {
        "benign_utility": _share(benign, "utility"),
        "utility_under_attack": _share(attacked, "utility"),
        "asr": _share(attacked, "attack_succeeded"),
    }
    return rows, want


def _check_random_results(rounds):
    rng = random.Random()
    for _ in range(rounds):
        rows, want = _random_results(rng)
        got = ex11.suite_metrics(rows)
        assert got == pytest.approx(want), (
            f"suite_metrics on {len(rows)} random rows {rows!r}: got {got}, expected {want}"
        )


@pytest.mark.exercise("11.2")
@pytest.mark.points(1)
def test_suite_metrics_on_a_small_hand_made_suite():
    rows = [
        {"injection": None, "utility": True, "attack_succeeded": False},
        {"injection": None, "utility": False, "attack_succeeded": False},
        {"injection": "a", "utility": True, "attack_succeeded": True},
        {"injection": "b", "utility": True, "attack_succeeded": False},
        {"injection": "a", "utility": False, "attack_succeeded": True},
        {"injection": "b", "utility": True, "attack_succeeded": False},
    ]
    got = ex11.suite_metrics(rows)
    assert got == pytest.approx({"benign_utility": 0.5, "utility_under_attack": 0.75, "asr": 0.5}), got
    with pytest.raises(ValueError):
        ex11.suite_metrics(rows[:2])
    with pytest.raises(ValueError):
        ex11.suite_metrics(rows[2:])
    _check_random_results(5)  # answers written for the six rows above only do not pass


@pytest.mark.exercise("11.2")
@pytest.mark.points(1)
def test_suite_metrics_on_random_results():
    _check_random_results(ROUNDS)
    rows, _ = _random_results(random.Random())
    with pytest.raises(ValueError):
        ex11.suite_metrics([r for r in rows if r["injection"] is not None])
    with pytest.raises(ValueError):
        ex11.suite_metrics([r for r in rows if r["injection"] is None])


@shared
def _guard_rows():
    """The reference guard's row of the matrix, run here by the grader."""
    from agentlab.injection import GUARD, run_suite

    return [
        {"injection": r.injection, "utility": r.utility, "attack_succeeded": r.attack_succeeded}
        for r in run_suite(GUARD)
    ]


@pytest.mark.exercise("11.2")
@pytest.mark.points(1)
def test_suite_metrics_match_the_guard_row_of_the_matrix():
    rows = _guard_rows()
    benign = [r for r in rows if r["injection"] is None]
    attacked = [r for r in rows if r["injection"] is not None]
    want = {
        "benign_utility": _share(benign, "utility"),
        "utility_under_attack": _share(attacked, "utility"),
        "asr": _share(attacked, "attack_succeeded"),
    }
    got = ex11.suite_metrics(rows)
    assert got == pytest.approx(want), got
    _check_random_results(5)  # answers fitted to the suite's 24 rows do not pass


# --- 11.3 ---------------------------------------------------------------------------------------


def _random_tools(rng):
    """A random tool list, random goals (each needing 0 to 3 tools), and the goals it leaves reachable."""
    pool = [
        f"{rng.choice(['get', 'send', 'save', 'delete', 'fetch'])}_{''.join(rng.choice(string.ascii_lowercase) for _ in range(4))}"
        for _ in range(rng.randint(1, 10))
    ]
    offered = [rng.choice(pool) for _ in range(rng.randint(0, len(pool)))]
    goals = {
        f"goal_{k}_{rng.randint(0, 999)}": [rng.choice(pool) for _ in range(rng.randint(0, 3))]
        for k in range(rng.randint(0, 8))
    }
    want = [name for name, needs in goals.items() if all(tool in offered for tool in needs)]
    return offered, goals, want


@pytest.mark.exercise("11.3")
@pytest.mark.points(1)
def test_reachable_goals_follow_the_tool_list():
    from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

    goals = {i.id: list(i.needs) for i in INJECTION_TASKS}
    for u in USER_TASKS:
        want = [i.id for i in INJECTION_TASKS if all(tool in u.needs for tool in i.needs)]
        assert ex11.reachable_goals(list(u.needs), goals) == want, f"tools {u.needs}"
    assert ex11.reachable_goals([], goals) == []
    assert ex11.reachable_goals(["delete_notes", "get_weather"], {"wipe": ["delete_notes"], "none": []}) == [
        "wipe",
        "none",
    ]
    rng = random.Random()
    for _ in range(ROUNDS):
        offered, goals, want = _random_tools(rng)
        got = ex11.reachable_goals(offered, goals)
        assert got == want, f"reachable_goals({offered!r}, {goals!r}) returned {got!r}; expected {want!r}"
