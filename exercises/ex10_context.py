"""Graded exercises for notebooks 10 (context engineering: 10.1) and 10b (the other tactics: 10.2, 10.3).

Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.

Moved: `arrange_context` (it was exercise 10.3) is now exercise 8.3, in `ex08_react.py`, beside the
position-and-length section it belongs to; if you already wrote it here, copy it there. `plan_window`
(it was 10.4) is now 10.3. Exercise 10.1 was the trigger alone (`compact_now`); it is now the loop
around it (`run_compacting`).
"""

from __future__ import annotations

from typing import Any


def run_compacting(
    client: Any, task: str, tools: list[Any], model: str, *, threshold: int, max_turns: int = 30
) -> tuple[list[dict], int]:
    """Exercise 10.1: your agent loop (exercise 2.1), kept inside a context budget by compaction.

    Every call re-sends the whole history, so a long task outgrows any window. Before each call of the
    task, look at what the previous task call sent and wrote (its `usage`: input_tokens + output_tokens,
    as the API reported them). When that is more than `threshold`, compact first: one extra model call
    with no tools, whose system prompt asks for a summary of the conversation so far (sent as text), and
    then go on from a single user message that holds the summary. The simulated model answers a system
    prompt with the word "summarise", "summarize" or "summary" in it, and reads the temperatures from
    the text you send: `agentlab.context.compaction.transcript(messages)` renders a conversation the way
    it reads best (`SUMMARY_SYSTEM`, beside it, is the notebook's own summariser prompt).

    Return (messages, compactions): the conversation as your loop holds it at the end (every tool_use
    answered: it ends with the model's last reply, or with the results of its last requests when
    `max_turns` ends the run) and how many times it compacted. `max_turns` bounds the
    calls of the task; the summary calls are not turns. Write the loop and the trigger yourself:
    agentlab.run_agent, agentlab.execute_tools and the lab's Compaction fail the tests.
    """
    ### BEGIN SOLUTION
    from agentlab.context.compaction import SUMMARY_SYSTEM, transcript
    from agentlab.tools import run_tool, toolset

    by_name, specs = toolset(tools), [t.spec() for t in tools]
    messages: list[dict] = [{"role": "user", "content": task}]
    last, compactions = None, 0
    for _ in range(max_turns):
        if last is not None and last.input_tokens + last.output_tokens > threshold:
            summary = client.messages.create(
                model=model,
                max_tokens=1024,
                system=SUMMARY_SYSTEM,
                messages=[{"role": "user", "content": transcript(messages)}],
            )
            text = "".join(b.text for b in summary.content if b.type == "text")
            messages = [{"role": "user", "content": f"{text}\n\nContinue the task from this summary."}]
            compactions += 1
        reply = client.messages.create(model=model, max_tokens=1024, messages=messages, tools=specs)
        last = reply.usage
        content = [b.model_dump(mode="json", exclude_none=True) for b in reply.content]
        messages.append({"role": "assistant", "content": content})
        if reply.stop_reason != "tool_use":
            break
        results = []
        for block in (b for b in content if b["type"] == "tool_use"):
            out = run_tool(by_name, block["name"], block["input"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": out.content})
            if out.is_error:
                results[-1]["is_error"] = True
        messages.append({"role": "user", "content": results})
    return messages, compactions
    ### END SOLUTION


def clear_old_results(messages: list[dict], keep: int, placeholder: str = "[cleared]") -> list[dict]:
    """Exercise 10.2: clear all but the newest `keep` tool results, keeping the conversation valid.

    `messages` is an agent's history (user/assistant messages; content a string or a list of
    blocks). Return a NEW list (do not change `messages` or any of its dicts) in which the
    "content" of every `tool_result` block except the newest `keep` ones is `placeholder`.
    Everything else stays as it was: every `tool_use` block (its id, name, input), every
    `tool_result`'s `tool_use_id` and `is_error`, every text, the order of messages and blocks,
    so each tool_use is still answered by its tool_result in the next message.
    """
    ### BEGIN SOLUTION
    ids = [
        b["tool_use_id"]
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    old = set(ids[: max(len(ids) - keep, 0)])
    out = []
    for m in messages:
        if not isinstance(m["content"], list):
            out.append(dict(m))
            continue
        out.append(
            {
                **m,
                "content": [
                    {**b, "content": placeholder}
                    if b.get("type") == "tool_result" and b["tool_use_id"] in old
                    else dict(b)
                    for b in m["content"]
                ],
            }
        )
    return out
    ### END SOLUTION


def plan_window(parts: list[dict], budget: int) -> dict[str, str]:
    """Exercise 10.3: choose what to keep, summarise or drop so the next call fits (a design decision).

    `parts` is the next call's window in request order, oldest history first. Each part is a dict:
    "name" (unique), "kind" (one of "tool_prompt", "tool_definitions", "system", "task", "history",
    "new"), "tokens" (its size) and, for history parts, "summary_tokens" (its size once summarised,
    smaller than "tokens") and "needed" (True when the answer still needs a fact only this part holds;
    a summary keeps that fact). Return {name: "keep" | "summarise" | "drop"} for every part, such that:
    1. the plan fits: the tokens of kept parts plus the summary_tokens of summarised ones are at most `budget`;
    2. every part that is not history is kept (without them the agent is a different agent, or has
       not seen what it just asked for), and only history parts are summarised or dropped;
    3. a needed part is never dropped;
    4. no room is wasted: no single part could move up one step (drop -> summarise, summarise -> keep)
       and still fit.
    Which parts give way first is your design: say why in a comment. When even the smallest plan
    (everything else dropped, needed parts summarised) does not fit, raise ValueError naming the
    budget and the smallest plan's tokens. Do not change `parts`.
    """
    ### BEGIN SOLUTION
    # Summarise what is needed, drop the rest, then give room back newest first: the newest turns are
    # what the model is reasoning from right now, the oldest results have usually been noted already.
    plan = {
        p["name"]: ("keep" if p["kind"] != "history" else "summarise" if p.get("needed") else "drop") for p in parts
    }
    size = {"keep": lambda p: p["tokens"], "summarise": lambda p: p["summary_tokens"], "drop": lambda p: 0}
    used = sum(size[plan[p["name"]]](p) for p in parts)
    if used > budget:
        raise ValueError(
            f"plan_window(budget={budget}): the smallest plan needs {used} tokens "
            "(fixed parts, the newest turn, needed parts summarised); raise the budget or shrink those parts"
        )
    for p in reversed([p for p in parts if p["kind"] == "history"]):
        for better in ("keep", "summarise"):  # the biggest step up that still fits
            now = plan[p["name"]]
            if better == now:
                break
            extra = size[better](p) - size[now](p)
            if used + extra <= budget:
                plan[p["name"]], used = better, used + extra
                break
    return plan
    ### END SOLUTION
