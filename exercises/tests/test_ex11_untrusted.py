"""Graded tests for exercises/ex11_untrusted.py. Run: make grade"""

import pytest

from agentlab.grading import lazy_import

pytestmark = pytest.mark.forbids("agentlab.injection.guard.carries_taint", "agentlab.injection.guard.shared_run",
                                  "agentlab.injection.metrics.summarize", "agentlab.injection.analysis.reachable",
                                  "agentlab.injection.analysis.reachable_share",
                                  why="Exercise 11 asks you to write the check, the metrics and the reachability yourself")

ex11 = lazy_import("exercises.ex11_untrusted")
PAGE = "Lisbon travel tips\nTop tip: ride tram 28 before 9 am to skip the queues."


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
        import json
        if block["name"] in self.untrusted and not result.get("is_error"):
            self.texts.append(result["content"])
            try:
                self.texts += [v for v in json.loads(result["content"]).values() if isinstance(v, str)]
            except (ValueError, AttributeError):
                pass


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
    with pytest.raises(ValueError, match="min_chars"):
        ex11.tainted_field({"text": "x"}, [PAGE], min_chars=0)


@pytest.mark.exercise("11.1")
@pytest.mark.points(2)
def test_your_guard_blocks_what_the_reference_guard_blocks_on_the_suite():
    from agentlab.injection import GUARD, run_case
    from agentlab.injection.gates import GatedExecutor
    from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

    class StudentDefence(type(GUARD)):
        def executor(self):
            return GatedExecutor([_StudentGuard()])

    yours = StudentDefence("student guard")
    for u in USER_TASKS:
        for i in [None, *INJECTION_TASKS]:
            ref, got = run_case(u, i, GUARD), run_case(u, i, yours)
            case = f"{u.id} x {i.id if i else 'no attack'}"
            assert [b.name for b in got.blocked] == [b.name for b in ref.blocked], f"{case}: blocked calls differ"
            assert got.attack_succeeded == ref.attack_succeeded, f"{case}: attack outcome differs"


@pytest.mark.exercise("11.2")
@pytest.mark.points(1)
def test_suite_metrics_on_a_small_hand_made_suite():
    rows = [{"injection": None, "utility": True, "attack_succeeded": False},
            {"injection": None, "utility": False, "attack_succeeded": False},
            {"injection": "a", "utility": True, "attack_succeeded": True},
            {"injection": "b", "utility": True, "attack_succeeded": False},
            {"injection": "a", "utility": False, "attack_succeeded": True},
            {"injection": "b", "utility": True, "attack_succeeded": False}]
    got = ex11.suite_metrics(rows)
    assert got == pytest.approx({"benign_utility": 0.5, "utility_under_attack": 0.75, "asr": 0.5}), got
    with pytest.raises(ValueError):
        ex11.suite_metrics(rows[:2])


@pytest.mark.exercise("11.2")
@pytest.mark.points(2)
def test_suite_metrics_match_the_guard_row_of_the_matrix():
    from agentlab.injection import GUARD, run_suite, summarize

    results = run_suite(GUARD)
    rows = [{"injection": r.injection, "utility": r.utility, "attack_succeeded": r.attack_succeeded} for r in results]
    want = summarize(results)
    got = ex11.suite_metrics(rows)
    assert got == pytest.approx({"benign_utility": want.benign_utility, "utility_under_attack": want.utility_under_attack,
                                 "asr": want.asr}), got


@pytest.mark.exercise("11.3")
@pytest.mark.points(1)
def test_reachable_goals_follow_the_tool_list():
    from agentlab.injection.analysis import reachable
    from agentlab.injection.suite import INJECTION_TASKS, USER_TASKS

    goals = {i.id: list(i.needs) for i in INJECTION_TASKS}
    for u in USER_TASKS:
        want = [i.id for i in INJECTION_TASKS if reachable(i, u.needs)]
        assert ex11.reachable_goals(list(u.needs), goals) == want, f"tools {u.needs}"
    assert ex11.reachable_goals([], goals) == []
    assert ex11.reachable_goals(["delete_notes", "get_weather"], {"wipe": ["delete_notes"], "none": []}) == ["wipe", "none"]
