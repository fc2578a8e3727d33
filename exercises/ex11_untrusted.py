"""Graded exercises for notebook 11 (untrusted content). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Changed: exercise 11.2 was `suite_metrics` and 11.3 `reachable_goals` (the notebook computes both);
11.2 is now `run_with_approval`, your loop with an approval gate, worth the 4 points of the two.
"""

from __future__ import annotations

from typing import Any, Callable


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


def run_with_approval(
    client: Any,
    task: str,
    tools: list[Any],
    model: str,
    *,
    side_effects: set[str],
    approve: Callable[[str, dict], bool],
    max_turns: int = 10,
) -> tuple[list[dict], list[str]]:
    """Exercise 11.2: your agent loop (exercise 2.1) with a person in it: calls that change the world wait for a yes.

    A model that reads a third party's text may have been told to do things by it, and nothing in the
    model's reply says so. The harness can still decide what runs. Before your loop runs a call of a
    tool named in `side_effects`, it asks `approve(name, tool_input)`; a call that is not approved does
    not run, and the model gets an error result for it that says which tool the user did not approve, so
    it can go on without it. Reading tools run without asking. An approver that raises gave no yes: that
    call is refused like any other, and the run goes on.

    Return (messages, refused): the conversation (every tool_use answered, in its order: it ends with the
    model's last reply, or with the results of its last requests when `max_turns` ends the run) and the
    names of the refused calls, in the order they were asked for.
    Write the loop and the gate yourself: agentlab.run_agent, agentlab.execute_tools and the lab's
    gates (`GatedExecutor`, `Confirmation`) fail the tests.
    """
    ### BEGIN SOLUTION
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    refused: list[str] = []
    for _ in range(max_turns):
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=specs)
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        results = []
        for block in (b for b in content if b["type"] == "tool_use"):
            if block["name"] in side_effects:
                try:
                    allowed = approve(block["name"], block["input"]) is True
                except Exception:  # no answer is not a yes: the gate fails closed
                    allowed = False
                if not allowed:
                    refused.append(block["name"])
                    text = f"The user did not approve {block['name']}; it was not run. Go on without it."
                    results.append(
                        {"type": "tool_result", "tool_use_id": block["id"], "content": text, "is_error": True}
                    )
                    continue
            out = run_tool(by_name, block["name"], block["input"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": out.content})
            if out.is_error:
                results[-1]["is_error"] = True
        messages.append({"role": "user", "content": results})
    return messages, refused
    ### END SOLUTION
