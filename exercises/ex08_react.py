"""Graded exercises for notebooks 08 (ReAct vs native tool use: 8.1, 8.2) and 08b (position and length: 8.3).

Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any


def react_loop(client: Any, task: str, tools: list[Any], model: str, max_turns: int = 8) -> str | None:
    """Exercise 8.1: write the ReAct loop: the model writes each tool call as text; your code parses, acts, observes.

    No `tools=` goes to the API. The system prompt (agentlab.react.react_prompt(tools) writes one) asks the model
    for `Thought: ...`, `Action: <tool name>` and `Action Input: <JSON object>`, then to stop. Your code reads that
    action, runs the tool (agentlab.run_tool is fine) and answers with a user message starting `Observation: `;
    a reply with `Final Answer: <text>` ends the task, and that text is what you return.

    A model does not always stop where a prompt says: it may write on, invent the Observation itself and answer
    from it. Make sure every reply is cut before an Observation the model writes (the API can do it for you). A
    reply that is neither a well-formed action nor a final answer gets a message back saying what to write, and
    counts as a turn. Never more than `max_turns` model calls; return None if no final answer came by then.
    Write the loop and its parsing yourself: agentlab.react.run_react and agentlab.react.parse_action fail the tests.
    """
    ### BEGIN SOLUTION
    import json
    import re

    from agentlab.react import react_prompt
    from agentlab.tools import run_tool, toolset

    by_name = toolset(tools)
    messages: list[dict] = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        reply = client.messages.create(
            model=model,
            max_tokens=1024,
            system=react_prompt(tools, lang="en"),
            messages=messages,
            stop_sequences=["Observation:"],
        )
        text = "".join(b.text for b in reply.content if b.type == "text").strip()
        messages.append({"role": "assistant", "content": text or "(nothing)"})
        final = re.search(r"^Final Answer:\s*(.+)", text, re.M | re.S)
        action = re.search(r"^Action:\s*(\S+)\s*\n\s*Action Input:\s*(\{.*\})\s*\Z", text, re.M | re.S)
        if action:
            try:
                tool_input = json.loads(action.group(2))
            except ValueError:
                tool_input = None
            if isinstance(tool_input, dict):
                out = run_tool(by_name, action.group(1), tool_input)
                messages.append({"role": "user", "content": f"Observation: {out.content}"})
                continue
        if final:
            return final.group(1).strip()
        messages.append(
            {
                "role": "user",
                "content": "Format error: write 'Action: <tool name>' and 'Action Input: <a JSON object>' on two "
                "lines, then stop; or 'Final Answer: <the answer>'.",
            }
        )
    return None
    ### END SOLUTION


def describe_lookup() -> tuple[str, str]:
    """Exercise 8.2: describe the weather tool so the model picks it, fills it right, and it stays cheap.

    Return `(description, query_description)` for the tool `lookup(query)` of notebook 08
    (`agentlab.experiments.tool_descriptions.lookup_tool`): the tool's description and its `query`
    property's description. The tool returns today's temperature (`temp_c`, degrees Celsius) and the
    sky condition for one city, and refuses anything but the city's bare name. Graded against the
    simulated `DescriptionReader` made to guess every input format wrong (`guess_wrong=1.0`): the city
    task must be answered in 3 model calls (both cities in one reply, the note, the answer) with no
    refused input, the description must state the unit, and the whole definition must cost at most
    `BUDGET_TOKENS` (about 60) input tokens per turn,
    as `tool_descriptions.definition_tokens` estimates it. The notebook's `precise` text is too long.
    Try yours with `tool_descriptions.run_once(*describe_lookup(), guess_wrong=1.0)`.
    """
    ### BEGIN SOLUTION
    return (
        "Today's temperature in °C and sky condition for one city; call once per city.",
        'City name only, e.g. "Paris".',
    )
    ### END SOLUTION


BUDGET_TOKENS = 60
"""The most input tokens the `lookup` definition may cost per turn in Exercise 8.2."""


def arrange_context(docs: list[str], scores: list[float], budget: int, count) -> list[str]:
    """Exercise 8.3: choose the documents that fit a token budget, and place the best at the edges.

    Length decides the bill, position does not (every position cost the same in notebook 08b), but the
    published Lost-in-the-Middle curves are lowest in the middle. So: `docs[i]` has relevance
    `scores[i]`; `count(doc)` gives a document's tokens. Return the documents to send, in order:
    1. Go through the documents from the highest score down (equal scores: the earlier in `docs` first);
       keep a document if the kept documents' tokens plus its own are at most `budget`, otherwise skip it
       and go on with the next.
    2. Place the kept documents best at the edges, weakest in the middle: rank 1 first, rank 2 last,
       rank 3 second, rank 4 second from last, and so on.
    Do not change `docs` or `scores`. No document fits: return [].
    """
    ### BEGIN SOLUTION
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
    kept, used = [], 0
    for i in order:
        if used + count(docs[i]) <= budget:
            kept.append(docs[i])
            used += count(docs[i])
    front, back = [], []
    for rank, doc in enumerate(kept):
        (front if rank % 2 == 0 else back).append(doc)
    return front + back[::-1]
    ### END SOLUTION
