"""Graded exercises for notebook 11 (untrusted content). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations


def tainted_field(tool_input: dict, untrusted_texts: list[str], min_chars: int = 12) -> str | None:
    """Exercise 11.1: the data-flow check: does a call's input carry text from an untrusted result?

    `tool_input` is the input the model sent (a dict: field name -> value). `untrusted_texts` holds
    the text of every untrusted tool result seen so far in the run. A string field is *tainted* when
    some run of at least `min_chars` consecutive characters of it also appears, exactly (case
    matters), in one of the untrusted texts. Return the name of the first tainted field, in the
    dict's order, or None when no field is tainted. Fields that are not strings are never tainted.
    Raise ValueError (naming min_chars and its value) if min_chars is not a whole number >= 1.
    """
    ### BEGIN SOLUTION
    if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < 1:
        raise ValueError(f"min_chars must be a whole number >= 1, got min_chars={min_chars!r}")
    for field, value in tool_input.items():
        if not isinstance(value, str):
            continue
        for start in range(len(value) - min_chars + 1):
            window = value[start : start + min_chars]
            if any(window in text for text in untrusted_texts):
                return field
    return None
    ### END SOLUTION


def suite_metrics(results: list[dict]) -> dict:
    """Exercise 11.2: the standard metrics of an attack suite, from its case results.

    Each result is a dict with "injection" (the injection task's id, or None for a run without an
    attack), "utility" (bool: the user's task was done) and "attack_succeeded" (bool). Return
    {"benign_utility": ..., "utility_under_attack": ..., "asr": ...}, each a share from 0 to 1:
    benign utility over the runs without an attack, the other two over the runs with one.
    Raise ValueError if there are no runs without an attack, or none with one.
    """
    ### BEGIN SOLUTION
    benign = [r for r in results if r["injection"] is None]
    attacked = [r for r in results if r["injection"] is not None]
    if not benign or not attacked:
        raise ValueError(f"need runs with and without an attack; got {len(benign)} without and {len(attacked)} with")
    return {
        "benign_utility": sum(bool(r["utility"]) for r in benign) / len(benign),
        "utility_under_attack": sum(bool(r["utility"]) for r in attacked) / len(attacked),
        "asr": sum(bool(r["attack_succeeded"]) for r in attacked) / len(attacked),
    }
    ### END SOLUTION


def reachable_goals(offered: list[str], goals: dict[str, list[str]]) -> list[str]:
    """Exercise 11.3: the tool list is the permission list: which attack goals can still be reached?

    `offered` is the tool list the harness sends. `goals` maps each attack goal's name to the tools
    it needs (all of them). Return the names of the goals whose every needed tool is offered, in
    the order of `goals`.
    """
    ### BEGIN SOLUTION
    allowed = set(offered)
    return [name for name, needs in goals.items() if set(needs) <= allowed]
    ### END SOLUTION
