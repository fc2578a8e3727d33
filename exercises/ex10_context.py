"""Graded exercises for notebook 10 (context engineering). Grade them with `make grade`.

Edit the functions below: replace each `raise NotImplementedError(...)` with your code.
"""

from __future__ import annotations


def compact_now(prompt_tokens: list[int], output_tokens: list[int], threshold: int) -> bool:
    """Exercise 10.1: decide whether to compact before the next call.

    `prompt_tokens[i]` and `output_tokens[i]` are the input tokens (the whole window sent) and the
    output tokens of call i, in order. The next call will re-send the last call's window plus what
    it wrote. Return True when that (last prompt + last output) is MORE than `threshold`, False
    otherwise, and False when there has been no call yet (empty lists).
    """
    ### BEGIN SOLUTION
    if not prompt_tokens:
        return False
    return prompt_tokens[-1] + output_tokens[-1] > threshold
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
    ids = [b["tool_use_id"] for m in messages if isinstance(m["content"], list)
           for b in m["content"] if b.get("type") == "tool_result"]
    old = set(ids[: max(len(ids) - keep, 0)])
    out = []
    for m in messages:
        if not isinstance(m["content"], list):
            out.append(dict(m))
            continue
        out.append({**m, "content": [{**b, "content": placeholder} if b.get("type") == "tool_result"
                                     and b["tool_use_id"] in old else dict(b) for b in m["content"]]})
    return out
    ### END SOLUTION


def arrange_context(docs: list[str], scores: list[float], budget: int, count) -> list[str]:
    """Exercise 10.3: choose the documents that fit a token budget, and place the best at the edges.

    Length decides the bill, position does not (every position cost the same in the notebook), but the
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
