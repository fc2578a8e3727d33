"""Graded exercises for notebook 08 (ReAct vs native tool use). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations

from typing import Any


def parse_call_syntax(text: str) -> tuple[str, dict[str, Any]]:
    """Exercise 8.1: read an action written as a function call.

    `text` is a ReAct turn whose last line is like `Action: get_weather(city='Paris', days=3)`:
    keyword arguments only, values are Python literals (strings in ' or ", numbers, True/False/None,
    lists). Return `("get_weather", {"city": "Paris", "days": 3})`. Lines before the Action line
    (e.g. `Thought: ...`) are ignored. Raise ValueError naming the problem for text with no such
    Action line, positional arguments, or values that are not literals (never evaluate code).
    """
    ### BEGIN SOLUTION
    import ast
    import re

    m = re.search(r"^Action:\s*(.+?)\s*\Z", text.strip(), re.M | re.S)
    if not m:
        raise ValueError("no 'Action: name(...)' line found")
    try:
        node = ast.parse(m.group(1), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"the action is not a call: {e.msg}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("the action must be a call such as get_weather(city='Paris')")
    if node.args:
        raise ValueError("positional arguments are not allowed; write name=value")
    out = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ValueError("**kwargs is not allowed")
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            raise ValueError(f"the value of {kw.arg} is not a literal") from None
    return node.func.id, out
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

    Length decides the bill, position does not (every position cost the same in notebook 08), but the
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
